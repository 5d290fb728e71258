// The concurrency soak (not a unit test): rounds of 10,000 `execute` calls of a trivial async tool, all in flight at
// once, through a registry with a pre-execute listener, a guard and a result observer, every call linked to one
// long-lived caller signal (a session's). After a warm-up round the heap must stay flat, and nothing may be left
// behind: abort listeners on the caller's signal, registry listeners, fiber effects, timers. It reports in
// soak.ts's format; a line starting with `!` is a failure (soak.ts exits non-zero on any).
import { getEventListeners, setMaxListeners } from 'node:events'
import type { ToolExecutionResult } from '@dsh/tools-core'
import { ToolRegistry } from '@dsh/tools-registry'
import { Context } from 'cordis'

const CONCURRENT = Number(process.env.SOAK_CONCURRENT ?? 10_000)
const ROUNDS = Number(process.env.SOAK_CONCURRENT_ROUNDS ?? 6)
/** Heap growth after the warm-up round that still counts as flat. */
const FLAT_MIB = 4

const heapMiB = (): number => {
  globalThis.gc?.()
  globalThis.gc?.()
  return process.memoryUsage().heapUsed / 2 ** 20
}
const timers = (): number => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length
const content = [{ type: 'text' as const, text: 'ok' }]

/** Listeners of the registry's events, as cordis holds them. */
function registryListeners(ctx: Context): number {
  const hooks = (ctx.events as unknown as { _hooks?: Record<string, unknown[] | undefined> })._hooks ?? {}
  let count = 0
  for (const [event, list] of Object.entries(hooks)) if (event.startsWith('tools/')) count += list?.length ?? 0
  return count
}

export async function soakConcurrent(): Promise<string[]> {
  if (globalThis.gc === undefined) return ['### 10,000 concurrent executions', '', '!run with --expose-gc to measure the heap']
  const ctx = new Context()
  const registry = await ctx.plugin(ToolRegistry)
  const tools = ctx.tools
  tools.register({
    name: 'tick',
    description: 'Waits one turn of the event loop and answers ok.',
    parameters: { type: 'object', properties: { n: { type: 'integer' } } },
    async execute() {
      await new Promise<void>((resolve) => setImmediate(resolve))
      return content
    },
  })
  let observed = 0
  tools.on('tools/pre-execute', (_exec, next) => next())
  tools.on('tools/result', () => void observed++)
  tools.guard(() => undefined)
  const caller = new AbortController()
  setMaxListeners(CONCURRENT + 10, caller.signal) // every in-flight call listens to it

  const before = {
    listeners: registryListeners(ctx),
    effects: ctx.fiber.getEffects().length,
    timers: timers(),
  }
  const round = async (): Promise<{ ok: number; peakMiB: number; ms: number }> => {
    const started = performance.now()
    const calls: Promise<ToolExecutionResult>[] = []
    for (let index = 0; index < CONCURRENT; index++) {
      calls.push(tools.execute({ callId: `c${index}`, name: 'tick', arguments: { n: index }, signal: caller.signal }))
    }
    // Every call is in flight now (the bodies wait for setImmediate): this is the round's peak.
    const peakMiB = process.memoryUsage().heapUsed / 2 ** 20
    const results = await Promise.all(calls)
    return { ok: results.filter((result) => !result.isError).length, peakMiB, ms: performance.now() - started }
  }

  const heapBefore = heapMiB()
  const warmup = await round()
  const heapAfterWarmup = heapMiB()
  const rounds: Array<{ ok: number; peakMiB: number; ms: number }> = []
  const heaps: number[] = []
  for (let index = 1; index < ROUNDS; index++) {
    rounds.push(await round())
    heaps.push(heapMiB())
  }
  const heapAfter = heaps.at(-1) ?? heapAfterWarmup
  const after = {
    listeners: registryListeners(ctx),
    effects: ctx.fiber.getEffects().length,
    timers: timers(),
    callerListeners: getEventListeners(caller.signal, 'abort').length,
  }
  await registry.dispose()

  const all = [warmup, ...rounds]
  const completed = all.reduce((sum, each) => sum + each.ok, 0)
  const expected = CONCURRENT * ROUNDS
  const problems: string[] = []
  if (completed !== expected) problems.push(`${expected - completed} of ${expected} calls did not complete ok`)
  if (observed !== expected) problems.push(`tools/result saw ${observed} results for ${expected} calls`)
  if (heapAfter - heapAfterWarmup > FLAT_MIB) {
    problems.push(`heap grew ${(heapAfter - heapAfterWarmup).toFixed(1)} MiB after warm-up (at most ${FLAT_MIB})`)
  }
  if (after.callerListeners > 0) problems.push(`${after.callerListeners} abort listeners left on the caller signal`)
  if (after.listeners !== before.listeners) problems.push(`registry listeners went from ${before.listeners} to ${after.listeners}`)
  if (after.effects !== before.effects) problems.push(`fiber effects went from ${before.effects} to ${after.effects}`)
  if (after.timers > before.timers) problems.push(`${after.timers - before.timers} timers left`)
  const peak = Math.max(...all.map((each) => each.peakMiB))
  const slowest = Math.max(...all.map((each) => each.ms))
  return [
    `### ${CONCURRENT.toLocaleString('en')} concurrent executions`,
    '',
    `${ROUNDS} rounds of ${CONCURRENT.toLocaleString('en')} \`execute\` calls of a trivial async tool (it waits one setImmediate), all in flight at once, through a pre-execute listener, a guard and a \`tools/result\` observer, every call linked to one long-lived caller signal. The first round is the warm-up.`,
    '',
    `| measure | value |`,
    `| --- | --- |`,
    `| calls completed ok / made | ${completed} / ${expected} |`,
    `| slowest round | ${slowest.toFixed(0)} ms |`,
    `| heap before / after warm-up / after each later round | ${heapBefore.toFixed(1)} / ${heapAfterWarmup.toFixed(1)} / ${heaps.map((heap) => heap.toFixed(1)).join(', ')} MiB |`,
    `| heap growth after warm-up | ${(heapAfter - heapAfterWarmup).toFixed(1)} MiB (flat: at most ${FLAT_MIB}) |`,
    `| heap with every call in flight (peak of the rounds) | ${peak.toFixed(1)} MiB |`,
    `| abort listeners left on the caller signal | ${after.callerListeners} |`,
    `| registry listeners / fiber effects, before → after | ${before.listeners} → ${after.listeners} / ${before.effects} → ${after.effects} |`,
    `| timers left | ${Math.max(0, after.timers - before.timers)} |`,
    '',
    problems.length ? `Problems: ${problems.join('; ')}` : 'Leftovers: none.',
    ...problems.map((problem) => `!${problem}`),
  ]
}

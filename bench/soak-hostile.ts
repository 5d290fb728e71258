// The hostile soak (not a unit test): many `execute` calls through a registry and the timeout policy where the
// foreign code fights back: pre-execute listeners, wrappers and post-execute listeners that throw or never settle,
// guards that throw, bodies that ignore their abort or block the event loop past their deadline, abort listeners
// that throw, look-alike signals, throwing and rejecting `internal/dispatch` tracers and `tools/result` observers,
// and caller aborts at random moments. It reports, in soak.ts's format, what is left over: calls still pending,
// listeners on the callers' signals, timers, uncaught exceptions and unhandled rejections, heap growth after
// warm-up. A line starting with `!` is a failure (soak.ts exits non-zero on any).
import { getEventListeners } from 'node:events'
import type { ToolDefinition, ToolExecutionInput } from '@dsh/tools-core'
import { TimeoutPolicy } from '@dsh/timeout-policy'
import { ToolRegistry } from '@dsh/tools-registry'
import { Context } from 'cordis'

const CALLS = Number(process.env.SOAK_HOSTILE_CALLS ?? 20_000)
const BATCH = 100
const WARMUP = Math.min(2_000, Math.floor(CALLS / 5))
/** How long one batch may take before its unsettled calls count as hung. */
const WATCHDOG_MS = 10_000

/** A small deterministic PRNG, so a failing soak can be replayed (SOAK_SEED). */
function prng(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let value = state
    value = Math.imul(value ^ (value >>> 15), value | 1)
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61)
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
const heapMiB = (): number => {
  globalThis.gc?.()
  globalThis.gc?.()
  return process.memoryUsage().heapUsed / 2 ** 20
}
const timers = (): number => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length
const never = (): Promise<never> => new Promise<never>(() => undefined)

/** What a hostile stage does for one call. */
type Stage = 'pass' | 'throw' | 'reject' | 'hang'

/** A call's plan, carried in its arguments so every listener can read it. */
interface Plan {
  readonly n: number
  readonly pre: Stage
  readonly wrap: Stage
  readonly post: Stage
  readonly guard: 'pass' | 'throw'
}

function act(stage: Stage, proceed: () => unknown): unknown {
  switch (stage) {
    case 'pass':
      return proceed()
    case 'throw':
      throw new Error('soak: hostile throw')
    case 'reject':
      return Promise.reject(new Error('soak: hostile rejection'))
    case 'hang':
      return never()
  }
}

function attachThrowingListeners(signal: AbortSignal): void {
  signal.addEventListener('abort', () => {
    throw new Error('soak: abort listener')
  })
  signal.onabort = () => {
    throw new Error('soak: onabort')
  }
  // No `AbortSignal.any` here, though the unit tests cover its listeners: on Node.js 20 it leaks by itself (30,000
  // `AbortSignal.any([fresh signal])` calls keep ~75 MiB, without any of our code), which would drown the measure.
}

function tool(name: string, execute: ToolDefinition['execute'], timeoutMs?: number): ToolDefinition {
  return {
    name,
    description: `hostile soak tool ${name}`,
    parameters: { type: 'object' },
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    execute,
  }
}

/** The hostile soak; returns report lines, failures prefixed with `!`. */
export async function soakHostile(): Promise<string[]> {
  const seed = Number(process.env.SOAK_SEED ?? Date.now() % 1_000_000)
  const random = prng(seed)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T

  let uncaught = 0
  let unhandled = 0
  const onUncaught = (): void => void uncaught++
  const onUnhandled = (): void => void unhandled++
  process.on('uncaughtException', onUncaught)
  process.on('unhandledRejection', onUnhandled)

  const ctx = new Context()
  await ctx.plugin(ToolRegistry, { abortGraceMs: 3 })
  const policy = await ctx.plugin(TimeoutPolicy, { graceMs: 3 })
  const tools = ctx.tools
  const text = (value: string) => [{ type: 'text' as const, text: value }]
  const planOf = (exec: { arguments: unknown }): Plan => exec.arguments as Plan

  tools.register(tool('instant', async () => text('ok')))
  tools.register(tool('ignores-abort', () => sleep(4 + Math.floor(random() * 4)).then(() => text('late'))))
  tools.register(tool('never-settles', () => never()))
  tools.register(tool('never-settles-timed', () => never(), 2))
  tools.register(
    tool('throwing-listeners', (_args, exec) => {
      attachThrowingListeners(exec.signal)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve(text('done')), 1 + Math.floor(random() * 3))
        exec.signal.addEventListener('abort', () => (clearTimeout(timer), reject(exec.signal.reason)), { once: true })
      })
    }, 2),
  )
  tools.register(
    tool('spins-past-deadline', async () => {
      const until = performance.now() + 3
      while (performance.now() < until) {
        // Blocks the event loop past the 1 ms deadline, then returns.
      }
      return text('spun')
    }, 1),
  )
  tools.register(tool('throws', async () => Promise.reject(new Error('soak: body'))))

  tools.on('tools/pre-execute', (exec, next) => act(planOf(exec).pre, next) as never)
  tools.on('tools/execute', (exec, next) => act(planOf(exec).wrap, next) as never)
  tools.on('tools/post-execute', (exec, _result, next) => act(planOf(exec).post, next) as never)
  tools.guard((exec) => (planOf(exec).guard === 'throw' ? act('throw', () => undefined) : undefined) as never)
  tools.on('tools/result', (exec) => {
    if (planOf(exec)?.n % 3 === 0) throw new Error('soak: observer')
  })
  ctx.on('internal/dispatch', () => {
    throw new Error('soak: tracer')
  })
  ctx.on('internal/dispatch', () => Promise.reject(new Error('soak: async tracer')) as never)

  const names = ['instant', 'instant', 'ignores-abort', 'never-settles', 'never-settles-timed', 'throwing-listeners', 'spins-past-deadline', 'throws']
  const stages: Stage[] = ['pass', 'pass', 'pass', 'pass', 'throw', 'reject', 'hang']
  const codes = new Map<string, number>()
  let pending = 0
  let listenersLeft = 0
  let unfrozen = 0
  let heapAfterWarmup = 0
  const heapBefore = heapMiB()
  const started = performance.now()

  for (let done = 0; done < CALLS; done += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, CALLS - done) }, async (_, index) => {
      const n = done + index
      const plan: Plan = { n, pre: pick(stages), wrap: pick(stages), post: pick(stages), guard: random() < 0.05 ? 'throw' : 'pass' }
      const name = pick(names)
      const caller = new AbortController()
      const foreign = random() < 0.03
      const signal = foreign ? ({ aborted: false, addEventListener() {} } as unknown as AbortSignal) : caller.signal
      // Whatever can hang is aborted; other calls are aborted at random.
      const hangs = plan.pre === 'hang' || plan.wrap === 'hang' || plan.post === 'hang' || name.startsWith('never')
      let timer: ReturnType<typeof setTimeout> | undefined
      if (!foreign && (hangs || random() < 0.3)) {
        if (random() < 0.1) caller.abort()
        else timer = setTimeout(() => caller.abort(new Error('soak: caller')), Math.floor(random() * 4))
      }
      const input: ToolExecutionInput = { callId: `h${n}`, name, arguments: plan as never, signal }
      pending++
      try {
        const result = await tools.execute(input)
        if (!Object.isFrozen(result) || (result.isError && result.error === undefined)) unfrozen++
        const code = result.error?.code ?? 'ok'
        codes.set(code, (codes.get(code) ?? 0) + 1)
      } finally {
        pending--
        clearTimeout(timer)
        if (!foreign) listenersLeft += getEventListeners(caller.signal, 'abort').length
      }
    })
    // A call that never ends is the failure this soak looks for: report it instead of hanging with it.
    let watchdog: ReturnType<typeof setTimeout> | undefined
    const stuck = await Promise.race([
      Promise.all(batch).then(() => false),
      new Promise<boolean>((resolve) => (watchdog = setTimeout(() => resolve(true), WATCHDOG_MS))),
    ])
    clearTimeout(watchdog)
    if (stuck) break
    if (done + BATCH === WARMUP) heapAfterWarmup = heapMiB()
  }
  await sleep(30) // let abandoned bodies settle and every queued tick run
  const elapsed = (performance.now() - started) / 1000
  const heapAfter = heapMiB()
  await policy.dispose()
  const leftTimers = timers()
  process.off('uncaughtException', onUncaught)
  process.off('unhandledRejection', onUnhandled)

  const growth = heapAfter - heapAfterWarmup
  const lines = [
    `### ${CALLS.toLocaleString('en')} hostile executions`,
    '',
    `${CALLS.toLocaleString('en')} calls in ${elapsed.toFixed(1)} s (${BATCH} at a time), seed ${seed}: pre-execute listeners, wrappers and post-execute listeners that throw, reject or never settle; guards that throw; bodies that ignore their abort, never settle, block the event loop past their deadline or have throwing abort listeners; look-alike signals; throwing and rejecting internal/dispatch tracers and tools/result observers; caller aborts at random moments (every call that could hang is aborted). Abort grace 3 ms, timeout grace 3 ms.`,
    '',
    `| measure | value |`,
    `| --- | --- |`,
    `| heap before / after warm-up (${WARMUP.toLocaleString('en')} calls) / after | ${heapBefore.toFixed(1)} / ${heapAfterWarmup.toFixed(1)} / ${heapAfter.toFixed(1)} MiB |`,
    `| heap growth after warm-up | ${growth.toFixed(1)} MiB |`,
    `| calls still pending | ${pending} |`,
    `| abort listeners left on the callers' signals | ${listenersLeft} |`,
    `| timers left | ${leftTimers} |`,
    `| uncaught exceptions / unhandled rejections | ${uncaught} / ${unhandled} |`,
    `| results not frozen or without a code | ${unfrozen} |`,
    `| outcomes | ${[...codes].sort().map(([code, count]) => `${code} ${count}`).join(', ')} |`,
  ]
  const problems: string[] = []
  if (pending > 0) problems.push(`${pending} calls still pending`)
  if (listenersLeft > 0) problems.push(`${listenersLeft} listeners left on the callers' signals`)
  if (leftTimers > 0) problems.push(`${leftTimers} timers left`)
  if (uncaught > 0) problems.push(`${uncaught} uncaught exceptions`)
  if (unhandled > 0) problems.push(`${unhandled} unhandled rejections`)
  if (unfrozen > 0) problems.push(`${unfrozen} results not frozen or without a code`)
  if (growth > 8) problems.push(`heap grew ${growth.toFixed(1)} MiB after warm-up`)
  return [...lines, '', problems.length ? `Problems: ${problems.join('; ')}` : 'Leftovers: none.', ...problems.map((problem) => `!${problem}`)]
}

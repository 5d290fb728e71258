// For any set of hostile listeners, observers, tracers, wrappers, guards and bodies, and any moment of the caller's
// abort, execute() resolves (it never rejects and never hangs once the caller aborted) to a deep-frozen result with
// a code on every failure (issue 14, items 7, 8 and 10).
import { Context } from 'cordis'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ToolRegistry } from './index.js'
import { call, isDeepFrozen, text, tool } from './test-kit.js'

/** How one piece of foreign code behaves. */
type Hostility = 'cooperate' | 'throw' | 'reject' | 'hang' | 'garbage' | 'throwing-listener'

const hostility = fc.constantFrom<Hostility>('cooperate', 'cooperate', 'throw', 'reject', 'hang', 'garbage', 'throwing-listener')

interface Scenario {
  readonly pre: Hostility[]
  readonly wrappers: Hostility[]
  readonly body: Hostility
  readonly post: Hostility[]
  readonly observers: Hostility[]
  readonly tracers: Hostility[]
  readonly guards: Hostility[]
  /** When the caller aborts, in ms after the call started; `null`: never (then nothing may hang). */
  readonly abortAfter: number | null
}

const scenario: fc.Arbitrary<Scenario> = fc.record({
  pre: fc.array(hostility, { maxLength: 3 }),
  wrappers: fc.array(hostility, { maxLength: 3 }),
  body: hostility,
  post: fc.array(hostility, { maxLength: 3 }),
  observers: fc.array(hostility, { maxLength: 2 }),
  tracers: fc.array(hostility, { maxLength: 2 }),
  guards: fc.array(fc.constantFrom<Hostility>('cooperate', 'throw', 'garbage'), { maxLength: 2 }),
  abortAfter: fc.option(fc.integer({ min: 0, max: 3 })),
})

const never = new Promise<never>(() => undefined)

function hangs(scenario: Scenario): boolean {
  return [...scenario.pre, ...scenario.wrappers, scenario.body, ...scenario.post].includes('hang')
}

/** Foreign code that calls `proceed` when cooperating, and misbehaves otherwise. */
function behave(how: Hostility, signal: AbortSignal, proceed: () => unknown): unknown {
  switch (how) {
    case 'cooperate':
      return proceed()
    case 'throw':
      throw new Error('hostile: thrown')
    case 'reject':
      return Promise.reject(new Error('hostile: rejected'))
    case 'hang':
      return never
    case 'garbage':
      return Symbol('garbage')
    case 'throwing-listener':
      signal.addEventListener('abort', () => {
        throw new Error('hostile: abort listener')
      })
      signal.onabort = () => {
        throw new Error('hostile: onabort')
      }
      return proceed()
  }
}

async function run(scenario: Scenario): Promise<void> {
  const ctx = new Context()
  await ctx.plugin(ToolRegistry, { abortGraceMs: 2 })
  const tools = ctx.tools
  const fakeSignal = new AbortController().signal
  tools.register(tool('target', { execute: (_args, exec) => behave(scenario.body, exec.signal, async () => [text('done')]) as never }))
  for (const how of scenario.pre) ctx.on('tools/pre-execute', (exec, next) => behave(how, exec.signal, next) as never)
  for (const how of scenario.wrappers) ctx.on('tools/execute', (exec, next) => behave(how, exec.signal, next) as never)
  for (const how of scenario.post) ctx.on('tools/post-execute', (exec, _result, next) => behave(how, exec.signal, next) as never)
  for (const how of scenario.observers) ctx.on('tools/result', (exec) => behave(how, exec.signal, () => undefined) as never)
  for (const how of scenario.tracers) ctx.on('internal/dispatch', () => behave(how, fakeSignal, () => undefined) as never)
  for (const how of scenario.guards) tools.guard((exec) => behave(how, exec.signal, () => undefined) as never)
  const caller = new AbortController()
  const pending = tools.execute(call('target', {}, { signal: caller.signal }))
  let timer: ReturnType<typeof setTimeout> | undefined
  if (scenario.abortAfter !== null) timer = setTimeout(() => caller.abort(), scenario.abortAfter)
  const result = await pending
  clearTimeout(timer)
  expect(isDeepFrozen(result)).toBe(true)
  if (result.isError) expect(typeof result.error?.code).toBe('string')
  else expect(result.content).toEqual([text('done')])
}

describe('execute() under hostile foreign code', () => {
  it('resolves to a deep-frozen result, whatever the listeners do, once the caller aborts', async () => {
    // Throwing abort listeners are rethrown by Node.js from process.nextTick: count them, so none escapes unseen.
    const escaped: unknown[] = []
    const onUncaught = (error: unknown): void => void escaped.push(error)
    process.on('uncaughtException', onUncaught)
    try {
      await fc.assert(
        fc.asyncProperty(
          scenario.filter((drawn) => drawn.abortAfter !== null || !hangs(drawn)),
          async (drawn) => {
            await run(drawn)
          },
        ),
        { numRuns: 150 },
      )
      // Let every tick the aborts queued run before looking.
      await new Promise((resolve) => setTimeout(resolve, 10))
    } finally {
      process.off('uncaughtException', onUncaught)
    }
    expect(escaped).toEqual([])
  })
})

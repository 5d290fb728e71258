// Hot unload and disposal while calls run: nothing is left behind, and what a disposed policy does to running calls.
import { getEventListeners } from 'node:events'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { call, createHarness, textOf, timedTool, track } from './test-kit.js'
import { TimeoutPolicyConfigError } from './timeout-policy-config-error.js'
import { TimeoutPolicy } from './timeout-policy.js'

beforeEach(() => {
  vi.useFakeTimers()
})

afterEach(() => {
  expect(vi.getTimerCount()).toBe(0)
  vi.useRealTimers()
})

const EVENTS = ['tools/pre-execute', 'tools/execute', 'tools/post-execute', 'tools/result', 'tools/change', 'timeout/late-settlement']

describe('hot unload', () => {
  it('load, dispose: no listener, effect or timer remains, and deadlines are no longer enforced', async () => {
    const { ctx, tools } = await createHarness({ policy: false })
    const owns: AbortSignal[] = []
    ctx.on('tools/pre-execute', (exec, next) => (owns.push(exec.signal), next()))
    const hookCounts = (): Record<string, number> => Object.fromEntries(EVENTS.map((name) => [name, ctx.events._hooks[name]?.length ?? 0]))
    const before = hookCounts()
    const sleep = timedTool('sleep', { timeoutMs: 100, runsFor: 500 })
    tools.register(sleep)

    const fiber = await ctx.plugin(TimeoutPolicy, { defaultTimeoutMs: 50 })
    expect(hookCounts()).toEqual({ ...before, 'tools/execute': before['tools/execute']! + 1 })
    expect(ctx.registry.has(TimeoutPolicy)).toBe(true)
    const timed = track(tools.execute(call('sleep')))
    await vi.advanceTimersByTimeAsync(100)
    expect(timed.value?.error?.code).toBe('TOOL_TIMEOUT')

    await fiber.dispose()
    expect(hookCounts()).toEqual(before)
    expect(ctx.registry.has(TimeoutPolicy)).toBe(false)
    expect(fiber.getEffects()).toEqual([])
    const caller = new AbortController()
    const untimed = track(tools.execute(call('sleep', { signal: caller.signal })))
    await vi.advanceTimersByTimeAsync(0)
    expect(sleep.signals[1]).toBe(owns[1]) // the registry's own, not a deadline's
    await vi.advanceTimersByTimeAsync(500)
    expect(untimed.value?.isError).toBe(false)
  })

  it('loading the plugin object, the module namespace or the default export is the same', async () => {
    const namespace = await import('./index.js')
    expect(namespace.default).toBe(TimeoutPolicy)
    expect(TimeoutPolicy).toEqual({ name: 'timeout-policy', inject: ['tools'], Config: namespace.Config, apply: namespace.apply })
    const { ctx, tools } = await createHarness({ policy: false })
    tools.register(timedTool('sleep', { timeoutMs: 100, runsFor: 500 }))
    const fiber = await ctx.plugin(namespace, { graceMs: 10 })
    const running = track(tools.execute(call('sleep')))
    await vi.advanceTimersByTimeAsync(100)
    expect(running.value?.error?.code).toBe('TOOL_TIMEOUT')
    await fiber.dispose()
  })
})

describe('disposing the policy while calls run: deadlines stop being enforced, what happened stands', () => {
  it('before the deadline: its timer is dropped at once and the call finishes on its own, past its budget', async () => {
    const { tools, policy } = await createHarness()
    const sleep = timedTool('sleep', { timeoutMs: 100, runsFor: 300 })
    tools.register(sleep)
    const caller = new AbortController()
    const running = track(tools.execute(call('sleep', { signal: caller.signal })))
    await vi.advanceTimersByTimeAsync(50)
    expect(vi.getTimerCount()).toBe(2) // the deadline and the tool's own timer
    await policy!.dispose()
    expect(vi.getTimerCount()).toBe(1)
    await vi.advanceTimersByTimeAsync(250)
    expect(running.value).toMatchObject({ isError: false, content: [{ type: 'text', text: 'sleep done' }] })
    expect(sleep.signals[0]?.aborted).toBe(false)
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0)
  })

  it('before the deadline: the caller can still cancel the call (its abort still reaches the tool)', async () => {
    const { tools, policy } = await createHarness()
    const sleep = timedTool('sleep', { timeoutMs: 100, runsFor: 300 })
    tools.register(sleep)
    const caller = new AbortController()
    const running = track(tools.execute(call('sleep', { signal: caller.signal })))
    await vi.advanceTimersByTimeAsync(50)
    await policy!.dispose()
    await vi.advanceTimersByTimeAsync(100)
    expect(running.settled).toBe(false)
    caller.abort()
    await vi.advanceTimersByTimeAsync(0)
    expect(running.value?.error?.code).toBe('ABORTED')
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0)
  })

  it('during the grace: the call is not abandoned; when it settles it is still TOOL_TIMEOUT', async () => {
    const { tools, policy, late } = await createHarness({ policy: { graceMs: 100 } })
    tools.register(timedTool('deaf', { timeoutMs: 100, runsFor: 1000, honoursSignal: false }))
    const running = track(tools.execute(call('deaf')))
    await vi.advanceTimersByTimeAsync(150)
    await policy!.dispose()
    await vi.advanceTimersByTimeAsync(849)
    expect(running.settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(running.value?.error?.code).toBe('TOOL_TIMEOUT')
    expect(textOf(running.value!)).toMatch(/finished after its deadline/)
    expect(late).toEqual([])
  })

  it('after an abandonment: the late settlement is still reported', async () => {
    const { tools, policy, late } = await createHarness({ policy: { graceMs: 100 } })
    tools.register(timedTool('deaf', { timeoutMs: 100, runsFor: 1000, honoursSignal: false }))
    const running = tools.execute(call('deaf'))
    await vi.advanceTimersByTimeAsync(200)
    expect((await running).error?.code).toBe('TOOL_TIMEOUT_ABANDONED')
    await policy!.dispose()
    await vi.advanceTimersByTimeAsync(800)
    expect(late).toMatchObject([{ name: 'deaf', lateByMs: 900, status: 'fulfilled' }])
  })

  it('a call that reaches the wrapper after disposal (an outer wrapper was still waiting) runs without a deadline', async () => {
    const { ctx, tools } = await createHarness({ policy: false })
    let proceed: () => void = () => undefined
    const gate = new Promise<void>((resolve) => (proceed = resolve))
    ctx.tools.on('tools/execute', async (_exec, next) => (await gate, next()))
    const fiber = await ctx.plugin(TimeoutPolicy)
    tools.register(timedTool('sleep', { timeoutMs: 100, runsFor: 300 }))
    const running = track(tools.execute(call('sleep')))
    await fiber.dispose()
    proceed()
    await vi.advanceTimersByTimeAsync(300)
    expect(running.value?.isError).toBe(false)
  })
})

describe('updating the configuration', () => {
  it('an invalid update throws the typed error and keeps the running policy', async () => {
    const { tools, policy } = await createHarness({ policy: { graceMs: 10 } })
    tools.register(timedTool('sleep', { timeoutMs: 100, runsFor: 500 }))
    let thrown: unknown
    try {
      await policy!.update({ graceMs: -1 })
    } catch (error) {
      thrown = error
    }
    expect(TimeoutPolicyConfigError.isInstance(thrown)).toBe(true)
    expect((thrown as TimeoutPolicyConfigError).issues).toEqual(['graceMs: must be an integer from 0 to 2147483647, got -1'])
    const running = track(tools.execute(call('sleep')))
    await vi.advanceTimersByTimeAsync(100)
    expect(running.value?.error?.code).toBe('TOOL_TIMEOUT')
  })

  it('a valid update reloads the policy with the new configuration', async () => {
    const { ctx, tools, policy } = await createHarness()
    tools.register(timedTool('undeclared', { runsFor: 500 }))
    await policy!.update({ defaultTimeoutMs: 50 })
    expect(ctx.events._hooks['tools/execute']).toHaveLength(1)
    const running = track(tools.execute(call('undeclared')))
    await vi.advanceTimersByTimeAsync(50)
    expect(textOf(running.value!)).toMatch(/^Tool call timed out after 50ms:/)
  })
})

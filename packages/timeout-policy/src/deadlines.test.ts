// The deadline of one call: when it fires, what the call ends as, and what is left behind.
import { getEventListeners } from 'node:events'
import type { ToolExecutionResult } from '@dsh/tools-core'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { call, createHarness, textOf, timedTool, track } from './test-kit.js'
import { ToolTimeoutError } from './tool-timeout-error.js'

beforeEach(() => {
  vi.useFakeTimers()
})

afterEach(() => {
  expect(vi.getTimerCount()).toBe(0)
  vi.useRealTimers()
})

const timedOut = { name: 'ToolTimeoutError', code: 'TOOL_TIMEOUT' } as const
const abandoned = { name: 'ToolTimeoutAbandonedError', code: 'TOOL_TIMEOUT_ABANDONED' } as const

describe('the deadline', () => {
  it('fires at the deadline, not a millisecond before, with a reason naming this deadline', async () => {
    const { tools } = await createHarness()
    const sleep = timedTool('sleep', { timeoutMs: 1000, runsFor: 5000 })
    tools.register(sleep)
    const running = track(tools.execute(call('sleep')))
    await vi.advanceTimersByTimeAsync(999)
    expect(sleep.signals[0]?.aborted).toBe(false)
    expect(running.settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(sleep.signals[0]?.aborted).toBe(true)
    const reason: unknown = sleep.signals[0]?.reason
    expect(ToolTimeoutError.isInstance(reason)).toBe(true)
    expect(reason).toMatchObject({ code: 'TOOL_TIMEOUT', timeoutMs: 1000, message: 'Tool call timed out after 1000ms' })
    expect(running.settled).toBe(true)
    expect(running.value).toEqual({
      callId: running.value?.callId,
      content: [{ type: 'text', text: 'Tool call timed out after 1000ms: "sleep" was cancelled at its deadline.' }],
      isError: true,
      error: timedOut,
    })
    expect(sleep.endings).toEqual(['stopped'])
  })

  it('each call gets its own deadline, counted from its own dispatch', async () => {
    const { tools } = await createHarness()
    tools.register(timedTool('sleep', { timeoutMs: 100, runsFor: 1000 }))
    const first = track(tools.execute(call('sleep')))
    await vi.advanceTimersByTimeAsync(60)
    const second = track(tools.execute(call('sleep')))
    await vi.advanceTimersByTimeAsync(40)
    expect([first.settled, second.settled]).toEqual([true, false])
    await vi.advanceTimersByTimeAsync(59)
    expect(second.settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(second.value?.error).toEqual(timedOut)
  })

  it('starts at dispatch: time spent waiting for approval does not count', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(timedTool('deploy', { timeoutMs: 100, runsFor: 80 }))
    ctx.on('tools/pre-execute', () => ({ kind: 'ask', reason: 'deploys need a human' }))
    ctx.provide('toolApproval', {
      requestApproval: () => new Promise((resolve) => setTimeout(() => resolve({ outcome: 'allowed-once' }), 500)),
    })
    const running = track(tools.execute(call('deploy', { agent: { id: 'ops' } })))
    await vi.advanceTimersByTimeAsync(580)
    expect(running.value?.isError).toBe(false)
    expect(textOf(running.value!)).toBe('deploy done')
  })
})

describe('outcomes', () => {
  it('a call that settles before its deadline passes through untouched (the same result object)', async () => {
    const { ctx, tools, delivered } = await createHarness({ policy: false })
    tools.register(timedTool('read', { timeoutMs: 1000, runsFor: 999 }))
    let fromInside: ToolExecutionResult | undefined
    let seenOutside: ToolExecutionResult | undefined
    let bodySignal: AbortSignal | undefined
    ctx.tools.on('tools/execute', async (_exec, next) => (seenOutside = await next()))
    const { TimeoutPolicy } = await import('./timeout-policy.js')
    await ctx.plugin(TimeoutPolicy)
    ctx.tools.on('tools/execute', async (exec, next) => {
      bodySignal = exec.signal
      return (fromInside = await next())
    })
    const caller = new AbortController()
    const running = track(tools.execute(call('read', { signal: caller.signal })))
    await vi.advanceTimersByTimeAsync(999)
    expect(running.settled).toBe(true)
    expect(seenOutside).toBe(fromInside)
    expect(running.value).toEqual({ callId: running.value?.callId, content: [{ type: 'text', text: 'read done' }], isError: false, meta: { ranFor: 999 } })
    expect(delivered.map(({ result }) => result)).toEqual([running.value])
    expect(bodySignal).not.toBe(caller.signal)
    expect(bodySignal?.aborted).toBe(false)
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(5000)
    expect(bodySignal?.aborted).toBe(false)
  })

  it('the body runs under the fused signal; the call\'s own signal is back for post-execute and observers', async () => {
    const { ctx, tools } = await createHarness()
    const read = timedTool('read', { timeoutMs: 1000 })
    tools.register(read)
    const caller = new AbortController()
    const seen: AbortSignal[] = []
    ctx.on('tools/pre-execute', (exec, next) => (seen.push(exec.signal), next()))
    ctx.on('tools/post-execute', (exec, _result, next) => (seen.push(exec.signal), next()))
    ctx.on('tools/result', (exec) => void seen.push(exec.signal))
    const running = tools.execute(call('read', { signal: caller.signal }))
    await vi.advanceTimersByTimeAsync(10)
    await running
    const own = seen[0]
    expect(read.signals[0]).not.toBe(caller.signal)
    expect(read.signals[0]).not.toBe(own)
    expect(seen).toEqual([own, own, own])
    expect(seen[1]).toBe(own)
    expect(seen[2]).toBe(own)
  })

  it('a caller abort before the deadline stays an abort (ABORTED), with the caller\'s reason on the tool\'s signal', async () => {
    const { tools } = await createHarness()
    const sleep = timedTool('sleep', { timeoutMs: 1000, runsFor: 5000 })
    tools.register(sleep)
    const caller = new AbortController()
    const running = track(tools.execute(call('sleep', { signal: caller.signal })))
    await vi.advanceTimersByTimeAsync(300)
    const reason = new Error('user pressed Esc')
    caller.abort(reason)
    await vi.advanceTimersByTimeAsync(0)
    expect(sleep.signals[0]?.reason).toBe(reason)
    expect(running.value?.error).toEqual({ name: 'ToolAbortedError', code: 'ABORTED' })
    expect(textOf(running.value!)).toBe('The call to "sleep" was cancelled while it ran.')
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0)
  })

  it('a caller abort before the deadline is not turned into a timeout when the tool stops after the deadline', async () => {
    const { tools } = await createHarness({ policy: { graceMs: 1000 } })
    tools.register(timedTool('sleep', { timeoutMs: 100, runsFor: 5000, stopsAfter: 300 }))
    const caller = new AbortController()
    const running = track(tools.execute(call('sleep', { signal: caller.signal })))
    await vi.advanceTimersByTimeAsync(50)
    caller.abort()
    await vi.advanceTimersByTimeAsync(299)
    expect(running.settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(running.value?.error?.code).toBe('ABORTED')
  })

  it('a call cancelled before it is dispatched is ABORTED_BEFORE_DISPATCH and starts no timer', async () => {
    const { tools } = await createHarness()
    const sleep = timedTool('sleep', { timeoutMs: 1000 })
    tools.register(sleep)
    const result = await tools.execute(call('sleep', { signal: AbortSignal.abort() }))
    expect(result.error).toEqual({ name: 'ToolAbortedError', code: 'ABORTED_BEFORE_DISPATCH' })
    expect(sleep.signals).toEqual([])
  })

  it('a tool that honours the signal ends as TOOL_TIMEOUT when it stops, within the grace', async () => {
    const { tools, late } = await createHarness({ policy: { graceMs: 500 } })
    tools.register(timedTool('sleep', { timeoutMs: 1000, runsFor: 5000, stopsAfter: 300 }))
    const running = track(tools.execute(call('sleep')))
    await vi.advanceTimersByTimeAsync(1299)
    expect(running.settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(running.value?.error).toEqual(timedOut)
    expect(textOf(running.value!)).toBe('Tool call timed out after 1000ms: "sleep" was cancelled at its deadline.')
    expect(late).toEqual([])
  })

  it('a tool that finishes after its deadline, within the grace, is still TOOL_TIMEOUT, and the text says so', async () => {
    const { tools } = await createHarness({ policy: { graceMs: 500 } })
    tools.register(timedTool('write', { timeoutMs: 1000, runsFor: 1200, honoursSignal: false }))
    const running = track(tools.execute(call('write')))
    await vi.advanceTimersByTimeAsync(1200)
    expect(running.value?.error).toEqual(timedOut)
    expect(textOf(running.value!)).toBe(
      'Tool call timed out after 1000ms: "write" finished after its deadline, so its result was discarded; what it did may have taken effect.',
    )
  })

  it('a caller abort after the deadline changes nothing: the outcome is the deadline\'s', async () => {
    const { tools } = await createHarness({ policy: { graceMs: 500 } })
    tools.register(timedTool('sleep', { timeoutMs: 100, runsFor: 5000, stopsAfter: 200 }))
    const caller = new AbortController()
    const running = track(tools.execute(call('sleep', { signal: caller.signal })))
    await vi.advanceTimersByTimeAsync(150)
    caller.abort()
    await vi.advanceTimersByTimeAsync(150)
    expect(running.value?.error).toEqual(timedOut)
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0)
  })

  it('a tool that ignores the signal is abandoned graceMs after the deadline, not before', async () => {
    const { tools, delivered, late } = await createHarness({ policy: { graceMs: 500 } })
    tools.register(timedTool('mine', { timeoutMs: 1000, runsFor: 9000, honoursSignal: false }))
    const running = track(tools.execute(call('mine')))
    await vi.advanceTimersByTimeAsync(1499)
    expect(running.settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(running.value).toEqual({
      callId: running.value?.callId,
      content: [
        {
          type: 'text',
          text:
            'Tool call timed out after 1000ms and "mine" did not stop within 500ms of being cancelled. ' +
            'It was abandoned: its side effects may still be running.',
        },
      ],
      isError: true,
      error: abandoned,
    })
    expect(delivered.map(({ result }) => result.error)).toEqual([abandoned])
    expect(late).toEqual([])
    await vi.advanceTimersByTimeAsync(7500)
  })

  it('the late result never reaches tools/result; it is reported on timeout/late-settlement', async () => {
    const { tools, delivered, late } = await createHarness({ policy: { graceMs: 500 } })
    tools.register(timedTool('mine', { timeoutMs: 1000, runsFor: 4000, honoursSignal: false }))
    const input = call('mine')
    const running = tools.execute(input)
    await vi.advanceTimersByTimeAsync(1500)
    const result = await running
    await vi.advanceTimersByTimeAsync(2499)
    expect(late).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(late).toHaveLength(1)
    expect(late[0]).toMatchObject({
      callId: input.callId,
      name: 'mine',
      timeoutMs: 1000,
      graceMs: 500,
      lateByMs: 3000,
      status: 'fulfilled',
      result: { content: [{ type: 'text', text: 'mine done' }], isError: false, meta: { ranFor: 4000 } },
    })
    expect(late[0]?.execution).toBe(delivered[0]?.exec)
    expect(Object.isFrozen(late[0])).toBe(true)
    expect(delivered).toHaveLength(1)
    expect(delivered[0]?.result).toBe(result)
    expect(result.error).toEqual(abandoned)
  })

  it('a late failure is reported too, as the error result the pipeline made of it', async () => {
    const { tools, late } = await createHarness({ policy: { graceMs: 0 } })
    tools.register(timedTool('mine', { timeoutMs: 100, runsFor: 250, honoursSignal: false, fails: true }))
    const running = tools.execute(call('mine'))
    await vi.advanceTimersByTimeAsync(101) // a 0 ms timer runs after at least 1 ms, in Node and under fake timers
    expect((await running).error).toEqual(abandoned)
    await vi.advanceTimersByTimeAsync(149)
    expect(late).toMatchObject([{ status: 'fulfilled', lateByMs: 150, result: { isError: true, error: { code: 'TOOL_FAILED' } } }])
  })

  it('graceMs 0: a tool that stops as soon as it is told is TOOL_TIMEOUT; one that does not is abandoned on the next timer tick', async () => {
    const { tools } = await createHarness({ policy: { graceMs: 0 } })
    tools.register(timedTool('polite', { timeoutMs: 100, runsFor: 1000 }))
    tools.register(timedTool('deaf', { timeoutMs: 100, runsFor: 1000, honoursSignal: false }))
    const polite = track(tools.execute(call('polite')))
    const deaf = track(tools.execute(call('deaf')))
    await vi.advanceTimersByTimeAsync(100)
    expect(polite.value?.error).toEqual(timedOut)
    expect(deaf.settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(deaf.value?.error).toEqual(abandoned)
    await vi.advanceTimersByTimeAsync(899)
  })

  it('a late-settlement listener that throws is logged and harms nothing', async () => {
    const { ctx, tools, late, warnings } = await createHarness({ policy: { graceMs: 10 } })
    ctx.on('timeout/late-settlement', () => {
      throw new Error('logger down')
    })
    tools.register(timedTool('mine', { timeoutMs: 100, runsFor: 200, honoursSignal: false }))
    const running = tools.execute(call('mine'))
    await vi.advanceTimersByTimeAsync(200)
    expect((await running).error).toEqual(abandoned)
    expect(late).toHaveLength(1)
    expect(warnings).toEqual(['a timeout/late-settlement listener failed for "mine": Error: logger down'])
  })

  it('an async late-settlement listener that rejects is logged, never an unhandled rejection', async () => {
    const unhandled: unknown[] = []
    const record = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', record)
    try {
      const { ctx, tools, late, warnings } = await createHarness({ policy: { graceMs: 10 } })
      ctx.on('timeout/late-settlement', async () => {
        throw new Error('exporter down')
      })
      tools.register(timedTool('mine', { timeoutMs: 100, runsFor: 200, honoursSignal: false }))
      const running = tools.execute(call('mine'))
      await vi.advanceTimersByTimeAsync(200)
      expect((await running).error).toEqual(abandoned)
      expect(late).toHaveLength(1)
      await vi.advanceTimersByTimeAsync(0)
      expect(warnings).toEqual(['a timeout/late-settlement listener failed for "mine": Error: exporter down'])
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', record)
    }
  })
})

describe('budgets', () => {
  it('a tool without timeoutMs gets no deadline and keeps the call\'s own signal', async () => {
    const { ctx, tools } = await createHarness()
    const slow = timedTool('slow', { runsFor: 100_000 })
    tools.register(slow)
    let own: AbortSignal | undefined
    ctx.on('tools/pre-execute', (exec, next) => ((own = exec.signal), next()))
    const caller = new AbortController()
    const running = track(tools.execute(call('slow', { signal: caller.signal })))
    await vi.advanceTimersByTimeAsync(0)
    expect(own).toBeDefined()
    expect(slow.signals[0]).toBe(own)
    expect(vi.getTimerCount()).toBe(1) // the tool's own
    await vi.advanceTimersByTimeAsync(100_000)
    expect(running.value?.isError).toBe(false)
  })

  it('defaultTimeoutMs applies to tools that declare none, not to those that do', async () => {
    const { tools } = await createHarness({ policy: { defaultTimeoutMs: 200 } })
    tools.register(timedTool('undeclared', { runsFor: 1000 }))
    tools.register(timedTool('declared', { timeoutMs: 500, runsFor: 1000 }))
    const undeclared = track(tools.execute(call('undeclared')))
    const declared = track(tools.execute(call('declared')))
    await vi.advanceTimersByTimeAsync(200)
    expect(textOf(undeclared.value!)).toMatch(/^Tool call timed out after 200ms:/)
    expect(declared.settled).toBe(false)
    await vi.advanceTimersByTimeAsync(300)
    expect(textOf(declared.value!)).toMatch(/^Tool call timed out after 500ms:/)
  })

  it('maxTimeoutMs holds every budget to it, declared or default; alone it imposes no deadline', async () => {
    const { tools } = await createHarness({ policy: { maxTimeoutMs: 300 } })
    tools.register(timedTool('greedy', { timeoutMs: 10_000, runsFor: 1000 }))
    tools.register(timedTool('modest', { timeoutMs: 100, runsFor: 1000 }))
    tools.register(timedTool('undeclared', { runsFor: 1000 }))
    const greedy = track(tools.execute(call('greedy')))
    const modest = track(tools.execute(call('modest')))
    const undeclared = track(tools.execute(call('undeclared')))
    await vi.advanceTimersByTimeAsync(100)
    expect(textOf(modest.value!)).toMatch(/after 100ms:/)
    await vi.advanceTimersByTimeAsync(200)
    expect(textOf(greedy.value!)).toMatch(/after 300ms:/)
    await vi.advanceTimersByTimeAsync(700)
    expect(undeclared.value?.isError).toBe(false)
  })

  it('the budget is that of the tool that runs, even if the registry changes while the call is in policy', async () => {
    const { ctx, tools } = await createHarness()
    const dispose = tools.register(timedTool('job', { timeoutMs: 100, runsFor: 1000 }))
    ctx.on('tools/pre-execute', async (_exec, next) => {
      dispose()
      tools.register(timedTool('job', { timeoutMs: 10_000, runsFor: 1000 }))
      return next()
    })
    const running = track(tools.execute(call('job')))
    await vi.advanceTimersByTimeAsync(100)
    expect(textOf(running.value!)).toMatch(/after 100ms:/)
  })

  it('an agent\'s own tool brings its own budget', async () => {
    const { tools } = await createHarness()
    const alice = { id: 'alice' }
    tools.register(timedTool('job', { timeoutMs: 1000, runsFor: 5000 }))
    tools.scope(alice).register(timedTool('job', { timeoutMs: 50, runsFor: 5000 }))
    const hers = track(tools.execute(call('job', { agent: alice })))
    const global = track(tools.execute(call('job')))
    await vi.advanceTimersByTimeAsync(50)
    expect(textOf(hers.value!)).toMatch(/after 50ms:/)
    expect(global.settled).toBe(false)
    await vi.advanceTimersByTimeAsync(950)
    expect(textOf(global.value!)).toMatch(/after 1000ms:/)
  })

  it('a timeoutMs made invalid after registration is ignored with one warning; the default applies', async () => {
    const { tools, warnings } = await createHarness({ policy: { defaultTimeoutMs: 70 } })
    const job = timedTool('job', { timeoutMs: 100, runsFor: 1000 })
    tools.register(job)
    job.timeoutMs = -5
    const first = track(tools.execute(call('job')))
    const second = track(tools.execute(call('job')))
    await vi.advanceTimersByTimeAsync(70)
    expect(textOf(first.value!)).toMatch(/after 70ms:/)
    expect(textOf(second.value!)).toMatch(/after 70ms:/)
    expect(warnings).toEqual(['tool "job" declares an invalid timeoutMs (-5); its calls get the default budget, if any'])
  })

  it('many concurrent calls leave no timer and no listener behind', async () => {
    const { tools } = await createHarness({ policy: { graceMs: 50 } })
    tools.register(timedTool('fast', { timeoutMs: 100, runsFor: 20 }))
    tools.register(timedTool('slow', { timeoutMs: 100, runsFor: 1000 }))
    tools.register(timedTool('deaf', { timeoutMs: 100, runsFor: 1000, honoursSignal: false }))
    const caller = new AbortController()
    const calls = ['fast', 'slow', 'deaf', 'fast', 'slow', 'deaf'].map((name) => tools.execute(call(name, { signal: caller.signal })))
    await vi.advanceTimersByTimeAsync(150)
    expect((await Promise.all(calls)).map((result) => result.error?.code ?? 'ok')).toEqual([
      'ok',
      'TOOL_TIMEOUT',
      'TOOL_TIMEOUT_ABANDONED',
      'ok',
      'TOOL_TIMEOUT',
      'TOOL_TIMEOUT_ABANDONED',
    ])
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(850)
  })
})

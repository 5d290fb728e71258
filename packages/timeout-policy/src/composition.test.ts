// The policy among other tools/execute wrappers: registration order decides what the deadline covers.
import type { ToolExecutionResult, ToolExecutionToken } from '@dsh/tools-core'
import type { ToolRegistry } from '@dsh/tools-registry'
import type { Context } from 'cordis'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { call, createHarness, textOf, timedTool, track } from './test-kit.js'
import { TimeoutPolicy } from './timeout-policy.js'

beforeEach(() => {
  vi.useFakeTimers()
})

afterEach(() => {
  expect(vi.getTimerCount()).toBe(0)
  vi.useRealTimers()
})

/**
 * A retry wrapper: when an attempt fails with a retryable code it dispatches the call again, through the whole
 * pipeline, as a nested call (`parent: exec.token`) under the signal it received. Attempts it dispatched itself
 * pass through it untouched. (`next()` may be called once, so a wrapper retries through `execute`.)
 */
function retry(ctx: Context, attempts: number, retryable: readonly string[]): void {
  const tools: ToolRegistry = ctx.tools
  const retrying = new Set<ToolExecutionToken>()
  tools.on('tools/execute', async (exec, next) => {
    if (exec.parent !== undefined && retrying.has(exec.parent)) return next()
    let result = await next()
    retrying.add(exec.token)
    try {
      for (let attempt = 2; attempt <= attempts && result.error !== undefined && retryable.includes(result.error.code); attempt++) {
        const { callId, name, arguments: args, agent, token, signal } = exec
        result = await tools.execute({ callId: `${callId}/attempt-${attempt}`, name, arguments: args, agent, parent: token, signal })
      }
    } finally {
      retrying.delete(exec.token)
    }
    return result
  })
}

/** A tool whose first `failures` calls take `ms` and fail; later calls take `ms` and succeed. */
function flaky(name: string, options: { timeoutMs: number; ms: number; failures: number }) {
  let calls = 0
  const started: number[] = []
  return {
    started,
    definition: {
      name,
      description: 'Fails a few times, then works.',
      parameters: { type: 'object' as const },
      timeoutMs: options.timeoutMs,
      execute(_args: unknown, exec: { signal: AbortSignal }) {
        calls += 1
        const failing = calls <= options.failures
        started.push(performance.now())
        return new Promise<[{ type: 'text'; text: string }]>((resolve, reject) => {
          const timer = setTimeout(() => {
            exec.signal.removeEventListener('abort', stop)
            if (failing) reject(new Error(`attempt ${calls} failed`))
            else resolve([{ type: 'text', text: `worked on attempt ${calls}` }])
          }, options.ms)
          function stop(): void {
            clearTimeout(timer)
            reject(exec.signal.reason)
          }
          exec.signal.addEventListener('abort', stop, { once: true })
        })
      },
    },
  }
}

describe('a retry wrapper and the timeout policy', () => {
  it('policy registered first: one budget covers every attempt', async () => {
    const { ctx, tools } = await createHarness({ policy: false })
    await ctx.plugin(TimeoutPolicy)
    retry(ctx, 3, ['TOOL_FAILED', 'TOOL_TIMEOUT'])
    const job = flaky('job', { timeoutMs: 100, ms: 80, failures: 2 })
    tools.register(job.definition)
    const running = track(tools.execute(call('job')))
    await vi.advanceTimersByTimeAsync(99)
    expect(running.settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(running.value?.error?.code).toBe('TOOL_TIMEOUT')
    expect(textOf(running.value!)).toBe('Tool call timed out after 100ms: "job" was cancelled at its deadline.')
    expect(job.started).toEqual([0, 80])
  })

  it('retry registered first: each attempt gets the whole budget', async () => {
    const { ctx, tools } = await createHarness({ policy: false })
    retry(ctx, 3, ['TOOL_FAILED', 'TOOL_TIMEOUT'])
    await ctx.plugin(TimeoutPolicy)
    const job = flaky('job', { timeoutMs: 100, ms: 80, failures: 2 })
    tools.register(job.definition)
    const running = track(tools.execute(call('job')))
    await vi.advanceTimersByTimeAsync(240)
    expect(running.value).toMatchObject({ isError: false, content: [{ type: 'text', text: 'worked on attempt 3' }] })
    expect(job.started).toEqual([0, 80, 160])
  })

  it('retry registered first: attempts that each run out of time are each timed out, then retried', async () => {
    const { ctx, tools, delivered } = await createHarness({ policy: false })
    retry(ctx, 3, ['TOOL_TIMEOUT'])
    await ctx.plugin(TimeoutPolicy)
    const job = flaky('job', { timeoutMs: 100, ms: 150, failures: 0 })
    tools.register(job.definition)
    const running = track(tools.execute(call('job')))
    await vi.advanceTimersByTimeAsync(300)
    expect(running.value?.error?.code).toBe('TOOL_TIMEOUT')
    expect(job.started).toEqual([0, 100, 200])
    // the two nested attempts were delivered as calls of their own, then the outer call
    expect(delivered.map(({ exec, result }) => `${exec.callId.replace(/^call_\d+/, 'c')}: ${result.error?.code}`)).toEqual([
      'c/attempt-2: TOOL_TIMEOUT',
      'c/attempt-3: TOOL_TIMEOUT',
      'c: TOOL_TIMEOUT',
    ])
  })
})

describe('other wrappers', () => {
  /** A wrapper that spends `ms` before dispatching (a sandbox warming up, a rate limiter). */
  function slowStart(ctx: Context, ms: number): void {
    ctx.tools.on('tools/execute', async (_exec, next) => {
      await new Promise((resolve) => setTimeout(resolve, ms))
      return next()
    })
  }

  it('time an outer wrapper spends before next() is not charged to the call; an inner wrapper\'s is', async () => {
    const outer = await createHarness({ policy: false })
    slowStart(outer.ctx, 50)
    await outer.ctx.plugin(TimeoutPolicy)
    outer.tools.register(timedTool('job', { timeoutMs: 100, runsFor: 80 }))
    const inner = await createHarness({ policy: false })
    await inner.ctx.plugin(TimeoutPolicy)
    slowStart(inner.ctx, 50)
    inner.tools.register(timedTool('job', { timeoutMs: 100, runsFor: 80 }))
    const [outerCall, innerCall] = [track(outer.tools.execute(call('job'))), track(inner.tools.execute(call('job')))]
    await vi.advanceTimersByTimeAsync(130)
    expect(outerCall.value?.isError).toBe(false)
    expect(innerCall.value?.error?.code).toBe('TOOL_TIMEOUT')
  })

  it('an outer wrapper\'s deadline is not mistaken for this one: the policy passes the abort through', async () => {
    const { ctx, tools } = await createHarness({ policy: false })
    const outerReason = new Error('outer budget spent')
    let seenByOuter: ToolExecutionResult | undefined
    ctx.tools.on('tools/execute', async (exec, next) => {
      const controller = new AbortController()
      const timer = setTimeout(() => controller.abort(outerReason), 300)
      exec.signal = controller.signal
      try {
        seenByOuter = await next()
      } finally {
        clearTimeout(timer)
      }
      return seenByOuter
    })
    await ctx.plugin(TimeoutPolicy)
    const job = timedTool('job', { timeoutMs: 1000, runsFor: 5000 })
    tools.register(job)
    const running = track(tools.execute(call('job')))
    await vi.advanceTimersByTimeAsync(300)
    expect(job.signals[0]?.reason).toBe(outerReason)
    expect(seenByOuter?.error).toEqual({ name: 'ToolAbortedError', code: 'ABORTED' })
    expect(running.value?.error?.code).toBe('ABORTED')
  })

  it('two policies: whichever deadline fires first names the timeout, and the other passes it through', async () => {
    for (const order of ['strict outside', 'strict inside'] as const) {
      const { ctx, tools } = await createHarness({ policy: false })
      const strict = { maxTimeoutMs: 200 }
      if (order === 'strict outside') {
        await ctx.plugin(TimeoutPolicy, strict)
        await ctx.plugin(TimeoutPolicy, {})
      } else {
        await ctx.plugin(TimeoutPolicy, {})
        await ctx.plugin(TimeoutPolicy, strict)
      }
      tools.register(timedTool('job', { timeoutMs: 1000, runsFor: 5000 }))
      const running = track(tools.execute(call('job')))
      await vi.advanceTimersByTimeAsync(200)
      expect(textOf(running.value!)).toBe('Tool call timed out after 200ms: "job" was cancelled at its deadline.')
    }
  })

  it('after an abandonment, a late inner wrapper does not hand its signal back to an outer wrapper still running', async () => {
    const { ctx, tools } = await createHarness({ policy: false })
    const outerSignal = new AbortController().signal
    let afterLateSettlement: AbortSignal | undefined
    ctx.tools.on('tools/execute', async (exec, next) => {
      exec.signal = outerSignal
      const result = await next() // abandoned at 150
      await new Promise((resolve) => setTimeout(resolve, 1000)) // the tool settles at 400 meanwhile
      afterLateSettlement = exec.signal
      return result
    })
    await ctx.plugin(TimeoutPolicy, { graceMs: 50 })
    ctx.tools.on('tools/execute', (_exec, next) => next())
    tools.register(timedTool('deaf', { timeoutMs: 100, runsFor: 400, honoursSignal: false }))
    const running = track(tools.execute(call('deaf')))
    await vi.advanceTimersByTimeAsync(1150)
    expect(running.value?.error?.code).toBe('TOOL_TIMEOUT_ABANDONED')
    expect(afterLateSettlement).toBe(outerSignal)
  })
})

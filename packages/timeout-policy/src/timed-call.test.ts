// TimedCall on its own, for what the registry never produces: a dispatch that rejects or throws.
import type { ToolExecution, ToolExecutionResult } from '@dsh/tools-core'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { LateSettlement } from './events.js'
import { TimedCall, type TimedCallHost } from './timed-call.js'

beforeEach(() => {
  vi.useFakeTimers()
})

afterEach(() => {
  expect(vi.getTimerCount()).toBe(0)
  vi.useRealTimers()
})

function setUp(graceMs = 50) {
  const parent = new AbortController()
  const exec = { callId: 'c1', name: 'job', arguments: {}, token: Symbol('t'), signal: parent.signal } as unknown as ToolExecution
  const released: TimedCall[] = []
  const late: LateSettlement[] = []
  const host: TimedCallHost = {
    graceMs,
    release: (call) => void released.push(call),
    reportLate: (settlement) => void late.push(settlement),
    reportListener: () => undefined,
  }
  return { parent, exec, released, late, call: new TimedCall(exec, parent.signal, 100, host) }
}

function deferred() {
  let resolve: (result: ToolExecutionResult) => void = () => undefined
  let reject: (reason: unknown) => void = () => undefined
  const promise = new Promise<ToolExecutionResult>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

describe('TimedCall', () => {
  it('a dispatch that rejects before the deadline rejects the wrapper (the registry makes it a result)', async () => {
    const { call, released } = setUp()
    const inner = deferred()
    const outcome = call.run(() => inner.promise)
    const failure = new Error('broken inner level')
    inner.reject(failure)
    await expect(outcome).rejects.toBe(failure)
    expect(released).toEqual([call])
  })

  it('a dispatch that rejects after the deadline is TOOL_TIMEOUT', async () => {
    const { call } = setUp()
    const inner = deferred()
    const outcome = call.run(() => inner.promise)
    await vi.advanceTimersByTimeAsync(100)
    inner.reject(new Error('broken'))
    expect((await outcome).error).toEqual({ name: 'ToolTimeoutError', code: 'TOOL_TIMEOUT' })
  })

  it('a dispatch that rejects after abandonment is reported as rejected', async () => {
    const { call, late, exec } = setUp()
    const inner = deferred()
    const outcome = call.run(() => inner.promise)
    await vi.advanceTimersByTimeAsync(150)
    expect((await outcome).error?.code).toBe('TOOL_TIMEOUT_ABANDONED')
    const failure = new Error('late and broken')
    await vi.advanceTimersByTimeAsync(25)
    inner.reject(failure)
    await Promise.resolve()
    expect(late).toEqual([{ callId: 'c1', name: 'job', execution: exec, timeoutMs: 100, graceMs: 50, lateByMs: 75, status: 'rejected', reason: failure }])
  })

  it('next() throwing synchronously cleans up and rethrows', () => {
    const { call, released, parent } = setUp()
    const failure = new Error('next() called multiple times')
    expect(() =>
      call.run(() => {
        throw failure
      }),
    ).toThrow(failure)
    expect(released).toEqual([call])
    expect(vi.getTimerCount()).toBe(0)
    parent.abort()
  })

  it('swaps exec.signal to its own, which follows the parent', async () => {
    const { call, exec, parent } = setUp()
    const inner = deferred()
    const received = exec.signal
    void call.run(() => inner.promise)
    expect(exec.signal).not.toBe(received)
    const reason = new Error('stop')
    parent.abort(reason)
    expect(exec.signal.aborted).toBe(true)
    expect(exec.signal.reason).toBe(reason)
    inner.resolve({ callId: 'c1', content: [], isError: true, error: { name: 'ToolAbortedError', code: 'ABORTED' } })
  })

  it('is released as soon as its parent aborts, so a body that never settles afterwards is not kept by the policy', () => {
    const { call, released, parent } = setUp()
    void call.run(() => new Promise<ToolExecutionResult>(() => undefined))
    expect(released).toEqual([])
    parent.abort()
    expect(released).toEqual([call])
    expect(vi.getTimerCount()).toBe(0)
  })
})

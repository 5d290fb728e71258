// The listen stream's supervision on its own, against scripted streams and fake timers: reopen after a close or a
// failed open, backoff with jitter, one stream at a time, "method not found" is final, stop leaves nothing.
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { backoffDelay } from './backoff.js'
import { ListenSupervisor, type ListenTransition } from './listen-supervisor.js'
import type { McpRestartPolicy } from './server-config.js'
import type { ListenCloseCause, McpListenStream } from './session-types.js'
import { SessionFailure } from './session-types.js'

const policy: McpRestartPolicy = { maxRestarts: 5, windowMs: 60_000, initialDelayMs: 200, maxDelayMs: 3_200 }

/** A scripted stream: `end(cause)` ends it as the server or the network would. */
function scriptedStream(toolsListChanged = true): McpListenStream & { end(cause: ListenCloseCause): void; readonly ended: boolean } {
  let resolve!: (cause: ListenCloseCause) => void
  let ended = false
  const closed = new Promise<ListenCloseCause>((done) => (resolve = done))
  const end = (cause: ListenCloseCause): void => {
    if (ended) return
    ended = true
    resolve(cause)
  }
  return {
    toolsListChanged,
    closed,
    close: async () => end('local'),
    end,
    get ended() {
      return ended
    },
  }
}

type Outcome = 'open' | 'fail' | 'not-found' | 'no-tools'

/** A supervisor whose opens follow `outcomes` (then always open), recording every stream and transition. */
function supervised(outcomes: Outcome[] = [], random: () => number = () => 0.5) {
  const streams: ReturnType<typeof scriptedStream>[] = []
  const transitions: ListenTransition[] = []
  let inFlight = 0
  let mostAtOnce = 0
  const live = (): number => inFlight + streams.filter((stream) => !stream.ended).length
  const supervisor = new ListenSupervisor({
    policy,
    random,
    onTransition: (transition) => void transitions.push(transition),
    open: async () => {
      inFlight += 1
      mostAtOnce = Math.max(mostAtOnce, live())
      await Promise.resolve()
      inFlight -= 1
      const outcome = outcomes.shift() ?? 'open'
      if (outcome === 'fail') throw new SessionFailure('other', 'fetch failed')
      if (outcome === 'not-found') throw new SessionFailure('protocol', 'Method not found', -32601)
      const stream = scriptedStream(outcome !== 'no-tools')
      streams.push(stream)
      mostAtOnce = Math.max(mostAtOnce, live())
      return stream
    },
  })
  return { supervisor, streams, transitions, mostAtOnce: () => mostAtOnce, live }
}

const flush = async (): Promise<void> => {
  for (let round = 0; round < 5; round += 1) await Promise.resolve()
}

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

describe('ListenSupervisor', () => {
  it('reopens a stream the server dropped after the backoff, and tells it as reopened', async () => {
    const { supervisor, streams, transitions } = supervised()
    await supervisor.start()
    expect(transitions).toEqual([{ kind: 'opened' }])
    streams[0]!.end('remote')
    await flush()
    expect(transitions[1]).toEqual({ kind: 'closed', cause: 'remote', retryInMs: 150, failures: 1 })
    expect(streams).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(149)
    expect(streams).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(streams).toHaveLength(2)
    expect(transitions[2]).toEqual({ kind: 'reopened' })
    supervisor.stop()
  })

  it('reopens after a graceful close too (a server restarting ends its streams gracefully)', async () => {
    const { supervisor, streams, transitions } = supervised()
    await supervisor.start()
    streams[0]!.end('graceful')
    await flush()
    expect(transitions[1]).toMatchObject({ kind: 'closed', cause: 'graceful' })
    await vi.runOnlyPendingTimersAsync()
    expect(transitions[2]).toEqual({ kind: 'reopened' })
    supervisor.stop()
  })

  it('keeps retrying a failing open with doubling delays capped at maxDelayMs, and the first success is a reopen', async () => {
    const { supervisor, transitions } = supervised(['fail', 'fail', 'fail', 'fail', 'fail', 'fail'], () => 1)
    await supervisor.start()
    for (let attempt = 0; attempt < 6; attempt += 1) await vi.runOnlyPendingTimersAsync()
    const delays = transitions.filter((transition) => transition.kind === 'failed').map((transition) => transition.retryInMs)
    expect(delays).toEqual([200, 400, 800, 1_600, 3_200, 3_200])
    expect(transitions.at(-1)).toEqual({ kind: 'reopened' })
    supervisor.stop()
  })

  it('records "method not found" as unsupported and never tries again', async () => {
    const { supervisor, transitions } = supervised(['not-found'])
    await supervisor.start()
    expect(transitions).toEqual([{ kind: 'unsupported', message: 'the server does not offer subscriptions/listen (Method not found)' }])
    expect(vi.getTimerCount()).toBe(0)
    supervisor.stop()
  })

  it('treats an acknowledged stream without tool changes as unsupported and closes it', async () => {
    const { supervisor, streams, transitions } = supervised(['no-tools'])
    await supervisor.start()
    expect(transitions.map((transition) => transition.kind)).toEqual(['unsupported'])
    expect(streams[0]!.ended).toBe(true)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('leaves no timer when stopped during the backoff, and never opens afterwards', async () => {
    const { supervisor, streams, transitions } = supervised()
    await supervisor.start()
    streams[0]!.end('remote')
    await flush()
    expect(supervisor.waiting).toBe(true)
    expect(vi.getTimerCount()).toBe(1)
    supervisor.stop()
    expect(vi.getTimerCount()).toBe(0)
    await vi.advanceTimersByTimeAsync(60_000)
    expect(streams).toHaveLength(1)
    expect(transitions.map((transition) => transition.kind)).toEqual(['opened', 'closed'])
  })

  it('closes a stream whose open completes after stop, and tells nothing', async () => {
    let release!: () => void
    const stream = scriptedStream()
    const transitions: ListenTransition[] = []
    const supervisor = new ListenSupervisor({
      policy,
      onTransition: (transition) => void transitions.push(transition),
      open: () => new Promise((resolve) => (release = () => resolve(stream))),
    })
    const started = supervisor.start()
    supervisor.stop()
    release()
    await started
    expect(stream.ended).toBe(true)
    expect(transitions).toEqual([])
  })

  it('never has two streams open or opening, and stop always leaves no timer and no open stream (any sequence of drops, failures and waits)', async () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('drop' as const), cause: fc.constantFrom<ListenCloseCause>('remote', 'graceful') }),
      fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 4_000 }) }),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom<Outcome>('open', 'fail'), { maxLength: 12 }), fc.array(step, { maxLength: 20 }), fc.double({ min: 0, max: 1, noNaN: true }), async (outcomes, steps, jitter) => {
        const { supervisor, streams, mostAtOnce, live } = supervised([...outcomes], () => jitter)
        await supervisor.start()
        for (const action of steps) {
          if (action.kind === 'drop') streams.at(-1)?.end(action.cause)
          else await vi.advanceTimersByTimeAsync(action.ms)
          await flush()
        }
        supervisor.stop()
        await flush()
        expect(mostAtOnce()).toBeLessThanOrEqual(1)
        expect(vi.getTimerCount()).toBe(0)
        expect(live()).toBe(0)
      }),
      { numRuns: 60 },
    )
  })
})

describe('backoffDelay', () => {
  it('stays between half and all of the doubled delay, never above maxDelayMs, for every failure count and jitter', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 100_000 }), (failures, jitter, initialDelayMs, maxDelayMs) => {
        const base = Math.min(maxDelayMs, initialDelayMs * 2 ** Math.min(failures - 1, 30))
        const delay = backoffDelay({ initialDelayMs, maxDelayMs }, failures, () => jitter)
        expect(delay).toBeGreaterThanOrEqual(Math.floor(base / 2))
        expect(delay).toBeLessThanOrEqual(Math.min(base, maxDelayMs))
        expect(backoffDelay({ initialDelayMs, maxDelayMs }, failures)).toBe(base)
      }),
    )
  })
})

// Property: for every order of deadline, grace, caller abort, the registry's abort grace and tool behaviour, a call
// ends in exactly the outcome the rules give, at the time they give, and leaves no timer behind.
import type { ToolExecutionResult } from '@dsh/tools-core'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { call, createHarness, timedTool } from './test-kit.js'

beforeEach(() => {
  vi.useFakeTimers()
})

afterEach(() => {
  vi.useRealTimers()
})

interface Scenario {
  /** The tool's budget. */
  readonly timeoutMs: number
  readonly graceMs: number
  /** The registry's abort grace: after the caller's abort, how long the dispatch may take before it is abandoned. */
  readonly abortGraceMs: number
  /** When the caller aborts (its timer is created before the call starts), or never. */
  readonly abortAt: number | undefined
  /** When the tool finishes on its own, or never (`Infinity`). */
  readonly runsFor: number
  /** Whether it finishes by throwing. */
  readonly fails: boolean
  readonly honoursSignal: boolean
  /** How long it takes to stop once its signal fired (0: at once, from the abort listener). */
  readonly stopsAfter: number
}

type Outcome = 'success' | 'TOOL_FAILED' | 'ABORTED' | 'TOOL_TIMEOUT' | 'TOOL_TIMEOUT_ABANDONED'

interface Expected {
  readonly outcome: Outcome
  /** When `execute()` resolves. */
  readonly at: number
  /** How long after the deadline a late settlement is reported, when there is one. */
  readonly lateBy: number | undefined
}

/**
 * The rules, written independently of the implementation. Timers due at the same time fire in the order they were
 * created: the caller's abort, then the deadline, then the tool's own finish; a stop delay starts when the signal
 * fires, and the grace timer right after it. A 0 ms grace fires after 1 ms, as in Node.
 */
function expected(scenario: Scenario): Expected {
  const policy = policyExpected(scenario)
  // The registry's own rule on top: once the caller aborted, a call still unsettled when its abort grace ends is
  // abandoned as ABORTED (a settlement due at that very time comes first: its timer was created earlier).
  if (scenario.abortAt === undefined) return policy
  const cutAt = scenario.abortAt + Math.max(1, scenario.abortGraceMs)
  if (policy.at <= cutAt) return policy
  return { outcome: 'ABORTED', at: cutAt, lateBy: policy.lateBy }
}

/** The policy's rules alone (`at` is `Infinity` for a call the policy would leave running). */
function policyExpected(scenario: Scenario): Expected {
  const { timeoutMs: deadline, abortAt, runsFor, fails, honoursSignal, stopsAfter } = scenario
  const grace = Math.max(1, scenario.graceMs)
  const callerFirst = abortAt !== undefined && abortAt <= deadline
  const signalAt = callerFirst ? abortAt : deadline
  // When the tool settles, and whether it stopped because of its signal.
  let settleAt = runsFor
  let stopped = false
  if (honoursSignal) {
    const stopAt = signalAt + stopsAfter
    const stopsFirst = stopsAfter === 0 ? stopAt <= runsFor : stopAt < runsFor
    if (stopsFirst) {
      settleAt = stopAt
      stopped = true
    }
  }
  const own: Outcome = fails ? 'TOOL_FAILED' : 'success'
  // A settlement at the very time the signal fires comes after it (the signal's timer was created first).
  if (settleAt < signalAt) return { outcome: own, at: settleAt, lateBy: undefined }
  if (callerFirst) {
    if (settleAt === Infinity) return { outcome: 'ABORTED', at: Infinity, lateBy: undefined }
    return { outcome: stopped || fails ? 'ABORTED' : 'success', at: settleAt, lateBy: undefined }
  }
  const abandonAt = deadline + grace
  if (settleAt <= abandonAt) return { outcome: 'TOOL_TIMEOUT', at: settleAt, lateBy: undefined }
  return { outcome: 'TOOL_TIMEOUT_ABANDONED', at: abandonAt, lateBy: settleAt === Infinity ? undefined : settleAt - deadline }
}

function outcomeOf(result: ToolExecutionResult | undefined): Outcome | 'pending' {
  if (result === undefined) return 'pending'
  if (!result.isError) return 'success'
  return result.error?.code as Outcome
}

const scenarios: fc.Arbitrary<Scenario> = fc.record({
  timeoutMs: fc.integer({ min: 1, max: 100 }),
  graceMs: fc.integer({ min: 0, max: 60 }),
  abortGraceMs: fc.integer({ min: 0, max: 60 }),
  abortAt: fc.option(fc.integer({ min: 0, max: 200 }), { nil: undefined }),
  runsFor: fc.oneof(fc.integer({ min: 1, max: 300 }), fc.constant(Number.POSITIVE_INFINITY)),
  fails: fc.boolean(),
  honoursSignal: fc.boolean(),
  stopsAfter: fc.integer({ min: 0, max: 80 }),
})

describe('outcomes by the rules', () => {
  it('every call ends as exactly one of success, its own failure, ABORTED, TOOL_TIMEOUT, TOOL_TIMEOUT_ABANDONED, when the rules say', async () => {
    await fc.assert(
      fc.asyncProperty(scenarios, async (scenario) => {
        vi.setSystemTime(0)
        const { tools, delivered, late } = await createHarness({
          policy: { graceMs: scenario.graceMs },
          registry: { abortGraceMs: scenario.abortGraceMs },
        })
        const start = performance.now()
        tools.register(timedTool('job', { ...scenario }))
        const caller = new AbortController()
        if (scenario.abortAt !== undefined) setTimeout(() => caller.abort(), scenario.abortAt)
        let settledAt = Infinity
        let result: ToolExecutionResult | undefined
        void tools.execute(call('job', { signal: caller.signal })).then((value) => {
          result = value
          settledAt = performance.now() - start
        })
        await vi.advanceTimersByTimeAsync(1000)
        const want = expected(scenario)
        expect({ outcome: outcomeOf(result), at: settledAt }).toEqual({ outcome: want.outcome, at: want.at })
        expect(delivered.map((entry) => outcomeOf(entry.result))).toEqual([want.outcome])
        expect(late.map((settlement) => settlement.lateByMs)).toEqual(want.lateBy === undefined ? [] : [want.lateBy])
        expect(vi.getTimerCount()).toBe(0)
      }),
      { numRuns: 400 },
    )
  })
})

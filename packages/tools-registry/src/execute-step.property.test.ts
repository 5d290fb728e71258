// Property tests of executeStep: for random steps of parallel-safe, serial, unknown and pre-answered calls with random
// durations, failures, concurrency limits and abort points, the step's rules hold.
import type { ToolErrorCode, ToolExecutionResult } from '@dsh/tools-core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createHarness, text } from './test-kit.js'
import type { StepCall } from './index.js'

type Kind = 'safe' | 'serial' | 'unknown' | 'answered'

interface PlannedCall {
  kind: Kind
  delayMs: number
  fails: boolean
  context: boolean
}

const plannedCall = fc.record({
  kind: fc.constantFrom<Kind>('safe', 'safe', 'serial', 'unknown', 'answered'),
  delayMs: fc.integer({ min: 0, max: 2 }),
  fails: fc.boolean(),
  context: fc.boolean(),
})

const scenario = fc.record({
  calls: fc.array(plannedCall, { maxLength: 9 }),
  concurrency: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
  abortAt: fc.option(fc.nat({ max: 8 }), { nil: undefined }),
  failFast: fc.boolean(),
})

/** The batches the rules give: consecutive parallel-safe calls together, every other runnable call alone. */
function expectedBatches(calls: readonly PlannedCall[]): number[][] {
  const batches: { parallel: boolean; calls: number[] }[] = []
  calls.forEach((planned, index) => {
    if (planned.kind === 'answered') return
    const parallel = planned.kind === 'safe'
    const last = batches.at(-1)
    if (parallel && last?.parallel === true) last.calls.push(index)
    else batches.push({ parallel, calls: [index] })
  })
  return batches.map((batch) => batch.calls)
}

describe('executeStep, for every step', () => {
  it('keeps model order, batching, the concurrency limit, abort semantics and context order', async () => {
    const { tools } = await createHarness()
    let active = { parallel: 0, serial: 0 }
    let violations: string[] = []
    let policyRan = new Set<string>()
    let notified = new Map<string, ToolExecutionResult>()
    let answerOrder: string[] = []
    let bodies = new Map<string, number>()
    let limit = Infinity
    let abortAt: string | undefined
    let caller = new AbortController()

    const body = (mode: 'parallel' | 'serial') => async (args: unknown, exec: { callId: string }) => {
      const { delayMs, fails } = args as { delayMs: number; fails: boolean }
      bodies.set(exec.callId, (bodies.get(exec.callId) ?? 0) + 1)
      if (active.serial > 0) violations.push(`${exec.callId} started while a serial call ran`)
      if (mode === 'serial' && active.parallel > 0) violations.push(`serial ${exec.callId} started while a parallel batch ran`)
      active[mode]++
      if (active.parallel > limit) violations.push(`${active.parallel} parallel calls ran at once (limit ${limit})`)
      if (exec.callId === abortAt) caller.abort(new Error('the user pressed Esc'))
      await new Promise((resolve) => setTimeout(resolve, delayMs))
      active[mode]--
      if (fails) throw new Error('the tool failed')
      return [text(exec.callId)]
    }
    tools.register({ name: 'safe', description: '', parameters: { type: 'object' }, concurrencySafe: true, execute: body('parallel') })
    tools.register({ name: 'serial', description: '', parameters: { type: 'object' }, execute: body('serial') })
    tools.on('tools/pre-execute', (exec, next) => (policyRan.add(exec.callId), next()))
    tools.on('tools/post-execute', (exec, _result, next) =>
      (exec.arguments as { context: boolean }).context
        ? { kind: 'accept', additionalContext: { content: [text(`context of ${exec.callId}`)] } }
        : next(),
    )
    tools.on('tools/result', (exec, result) => {
      if (notified.has(exec.callId)) violations.push(`${exec.callId} was answered twice`)
      notified.set(exec.callId, result)
      answerOrder.push(exec.callId)
    })

    await fc.assert(
      fc.asyncProperty(scenario, async (sample) => {
        active = { parallel: 0, serial: 0 }
        violations = []
        policyRan = new Set()
        notified = new Map()
        answerOrder = []
        bodies = new Map()
        limit = sample.concurrency ?? Infinity
        caller = new AbortController()
        const ids = sample.calls.map((_planned, index) => `c${index}`)
        abortAt = sample.abortAt === undefined ? undefined : ids[sample.abortAt]
        const calls: StepCall[] = sample.calls.map((planned, index) => {
          const callId = ids[index]!
          if (planned.kind === 'answered') {
            const result: ToolExecutionResult = { callId, content: [text('malformed')], isError: true, error: { name: 'X', code: 'PROVIDER_MALFORMED_CALL' as ToolErrorCode } }
            return { ok: false, result }
          }
          const name = planned.kind === 'unknown' ? 'nothing_here' : planned.kind
          return { ok: true, input: { callId, name, arguments: { delayMs: planned.delayMs, fails: planned.fails, context: planned.context } } }
        })
        const reported: number[] = []
        const step = await tools.executeStep(calls, {
          signal: caller.signal,
          failFast: sample.failFast,
          ...(sample.concurrency === undefined ? {} : { concurrency: sample.concurrency }),
          onResult: (_result, index) => reported.push(index),
        })

        expect(violations).toEqual([])
        // Model order, every call answered exactly once.
        expect(step.results.map((result) => result.callId)).toEqual(ids)
        expect(reported).toEqual(ids.map((_id, index) => index))
        for (const count of bodies.values()) expect(count).toBe(1)
        // Batching.
        const batches = expectedBatches(sample.calls)
        expect(step.batches.map((batch) => batch.calls)).toEqual(batches)
        // Pre-answered calls are returned in their place; nothing ran for them.
        sample.calls.forEach((planned, index) => {
          if (planned.kind !== 'answered') return
          expect(step.results[index]!.error?.code).toBe('PROVIDER_MALFORMED_CALL')
          expect(notified.has(ids[index]!)).toBe(false)
        })
        // Abort: every call of a batch after the one that aborted was never started, and no policy saw it.
        const abortBatch = abortAt === undefined ? -1 : batches.findIndex((batch) => batch.includes(ids.indexOf(abortAt!)))
        const aborted = abortAt !== undefined && sample.calls[ids.indexOf(abortAt)]!.kind !== 'unknown' && abortBatch >= 0
        batches.forEach((batch, batchIndex) => {
          for (const index of batch) {
            const id = ids[index]!
            const result = step.results[index]!
            if (aborted && batchIndex > abortBatch) {
              expect(result.error?.code).toBe('ABORTED_BEFORE_DISPATCH')
              expect(policyRan.has(id)).toBe(false)
              expect(notified.has(id)).toBe(false)
              expect(bodies.has(id)).toBe(false)
            }
            // A call the pipeline answered: the caller gets the very object the observers got.
            if (notified.has(id)) expect(notified.get(id)).toBe(result)
            else {
              expect(result.error?.code).toBe('ABORTED_BEFORE_DISPATCH')
              expect(policyRan.has(id)).toBe(false)
            }
            // Without an abort or failFast, siblings never cancel each other.
            if (!aborted && !sample.failFast) expect(result.error?.code ?? 'ok').not.toMatch(/^ABORTED/)
          }
        })
        // failFast: no call of a batch after the one whose call failed first was started (an answered call fails at once).
        if (sample.failFast) {
          const hasAnswered = sample.calls.some((planned) => planned.kind === 'answered')
          const firstFailed = answerOrder.find((id) => notified.get(id)!.isError)
          const failedAt = hasAnswered
            ? -1
            : firstFailed === undefined
              ? Infinity
              : batches.findIndex((batch) => batch.some((index) => ids[index] === firstFailed))
          batches.forEach((batch, batchIndex) => {
            if (batchIndex <= failedAt) return
            for (const index of batch) {
              expect(step.results[index]!.error?.code).toBe('ABORTED_BEFORE_DISPATCH')
              expect(policyRan.has(ids[index]!)).toBe(false)
            }
          })
        }
        // additionalContext: in model order, for exactly the calls that got one.
        const withContext = step.results.filter((result) => result.additionalContext !== undefined).map((result) => result.callId)
        expect(step.additionalContext.map((entry) => entry.callId)).toEqual(withContext)
        for (const entry of step.additionalContext) expect(entry.content).toEqual([text(`context of ${entry.callId}`)])
      }),
      { numRuns: 150 },
    )
  }, 120_000)
})

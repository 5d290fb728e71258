import type { ToolExecutionInput, ToolExecutionResult } from '@dsh/tools-core'
import type { StepBatch } from '@dsh/tools-registry'
import { InvalidTestOptionError } from './invalid-test-option-error.js'
import { replayableResult } from './replayable-result.js'
import { ScriptedModelError } from './scripted-model-error.js'
import type {
  ContextMessageEvent,
  ScriptedToolCall,
  SessionEvent,
  SessionStep,
  ToolStepOptions,
  ToolStepTarget,
} from './session-log.js'

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value)
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`
}

/**
 * Checks that `calls` is a list of well-formed tool calls with ids unique among themselves and not in `usedIds`.
 * Returns detached copies, so a script that mutates its objects later changes nothing recorded.
 */
export function checkCalls(calls: unknown, step: number, usedIds: ReadonlySet<string> = new Set()): ScriptedToolCall[] {
  if (!Array.isArray(calls)) throw new ScriptedModelError(step, `a turn must be a list of tool calls, got ${describe(calls)}`)
  const seen = new Set<string>()
  return calls.map((call: unknown, index) => {
    if (typeof call !== 'object' || call === null || Array.isArray(call)) {
      throw new ScriptedModelError(step, `call ${index} must be an object { id, name, arguments }, got ${describe(call)}`)
    }
    const { id, name } = call as Record<string, unknown>
    if (typeof id !== 'string' || id === '') {
      throw new ScriptedModelError(step, `call ${index} needs a non-empty string id, got ${describe(id)}`)
    }
    if (typeof name !== 'string') throw new ScriptedModelError(step, `call ${index} (${id}) needs a string name, got ${describe(name)}`)
    if (seen.has(id) || usedIds.has(id)) {
      throw new ScriptedModelError(step, `call id "${id}" is used twice; a model's call ids are unique within a session`)
    }
    seen.add(id)
    return Object.freeze({ id, name, arguments: (call as Record<string, unknown>).arguments })
  })
}

function checkStepNumber(step: unknown): number {
  if (step === undefined) return 1
  if (typeof step !== 'number' || !Number.isSafeInteger(step) || step < 1) {
    throw new InvalidTestOptionError('step', `expected a positive integer, got ${describe(step)}`)
  }
  return step
}

/**
 * Runs one model turn's tool calls with the registry's `executeStep` (the production step runner), as an agent
 * loop does, and records the step.
 *
 * - **Batches.** As `executeStep` forms them: a maximal run of consecutive `parallel` calls runs together; a
 *   `serial` call runs alone; batches run one after another in model order.
 * - **Events.** For each batch, when the step reaches it: a `tool/call` event per call (model order); then a
 *   `tool/result` event per call in model order, each appended as soon as its result and every earlier result of
 *   the step are in. The log is therefore the same whatever order parallel calls finish in.
 * - **Context.** The step's `additionalContext` (handed back by `executeStep` separately) is appended after every
 *   result of the step as `context/message` events, in model order.
 * - **Abort.** Once `signal` fires, calls not started yet end as `ABORTED_BEFORE_DISPATCH` without any policy
 *   being asked (they still get their `tool/call` and `tool/result` events).
 *
 * Throws {@link ScriptedModelError} when `calls` are malformed (nothing runs then). Rejects only if the target's
 * `executeStep` does (the registry's never does).
 */
export async function runToolStep(
  tools: ToolStepTarget,
  calls: readonly ScriptedToolCall[],
  options: ToolStepOptions = {},
): Promise<SessionStep> {
  const step = checkStepNumber(options.step)
  const checked = checkCalls(calls, step)
  const { agent, signal, onEvent } = options
  const events: SessionEvent[] = []
  const append = (event: SessionEvent): void => {
    Object.freeze(event)
    events.push(event)
    onEvent?.(event)
  }
  let batchNumber = 0
  const onBatch = (batch: StepBatch): void => {
    batchNumber++
    for (const index of batch.calls) {
      const call = checked[index]!
      append({ type: 'tool/call', step, batch: batchNumber, mode: batch.mode, callId: call.id, name: call.name, arguments: call.arguments })
    }
  }
  const onResult = (result: ToolExecutionResult, index: number): void => {
    const call = checked[index]!
    // The log holds what replay needs; the canonical value stays in the step's results for programmatic callers.
    append({ type: 'tool/result', step, callId: call.id, name: call.name, result: replayableResult(result) })
  }
  const inputs = checked.map((call): ToolExecutionInput => ({ callId: call.id, name: call.name, arguments: call.arguments }))
  const done = await tools.executeStep(inputs, {
    ...(agent === undefined ? {} : { agent }),
    ...(signal === undefined ? {} : { signal }),
    onBatch,
    onResult,
  })

  const context: ContextMessageEvent[] = []
  for (const attached of done.additionalContext) {
    const event: ContextMessageEvent = {
      type: 'context/message',
      step,
      callId: attached.callId,
      content: attached.content,
      ...(attached.source === undefined ? {} : { source: attached.source }),
    }
    append(event)
    context.push(event)
  }

  return Object.freeze({
    step,
    calls: Object.freeze(checked),
    batches: Object.freeze(done.batches.map((batch) => Object.freeze({ mode: batch.mode, callIds: Object.freeze(batch.calls.map((index) => checked[index]!.id)) }))),
    results: Object.freeze([...done.results]),
    context: Object.freeze(context),
    events: Object.freeze(events),
  })
}

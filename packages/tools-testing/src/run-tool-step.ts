import type { Agent, ToolExecutionInput, ToolExecutionResult } from '@dsh/tools-core'
import type { ToolExecutionMode } from '@dsh/tools-registry'
import { InvalidTestOptionError } from './invalid-test-option-error.js'
import { ScriptedModelError } from './scripted-model-error.js'
import type {
  ContextMessageEvent,
  ScriptedToolCall,
  SessionEvent,
  SessionStep,
  ToolCallBatch,
  ToolStepOptions,
  ToolStepTarget,
} from './session-log.js'

interface PlannedBatch {
  readonly mode: ToolExecutionMode
  readonly calls: ScriptedToolCall[]
}

type Settled = { readonly ok: true; readonly value: ToolExecutionResult } | { readonly ok: false; readonly error: unknown }

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

/**
 * Groups a step's calls the way the loop runs them: a maximal run of consecutive `parallel` calls is one batch;
 * every `serial` call is a batch of its own. Modes are read once, before anything runs.
 */
export function planBatches(
  calls: readonly ScriptedToolCall[],
  modeOf: (call: ScriptedToolCall) => ToolExecutionMode,
): PlannedBatch[] {
  const batches: PlannedBatch[] = []
  for (const call of calls) {
    const mode = modeOf(call)
    const last = batches.at(-1)
    if (mode === 'parallel' && last?.mode === 'parallel') last.calls.push(call)
    else batches.push({ mode, calls: [call] })
  }
  return batches
}

function start(target: ToolStepTarget, input: ToolExecutionInput): Promise<Settled> {
  let pending: Promise<ToolExecutionResult>
  try {
    pending = target.execute(input)
  } catch (error) {
    pending = Promise.reject(error)
  }
  return Promise.resolve(pending).then(
    (value): Settled => ({ ok: true, value }),
    (error: unknown): Settled => ({ ok: false, error }),
  )
}

function checkStepNumber(step: unknown): number {
  if (step === undefined) return 1
  if (typeof step !== 'number' || !Number.isSafeInteger(step) || step < 1) {
    throw new InvalidTestOptionError('step', `expected a positive integer, got ${describe(step)}`)
  }
  return step
}

/**
 * Runs one model turn's tool calls through `tools.execute` as an agent loop does, and records the step.
 *
 * - **Batches.** Each call's mode is read with `tools.executionMode({ name, agent })` before anything runs. A
 *   maximal run of consecutive `parallel` calls forms one batch whose calls run concurrently; a `serial` call runs
 *   alone. Batches run one after another in model order: a serial call starts only after everything before it has
 *   finished, and nothing after it starts before it has finished.
 * - **Events.** For each batch: a `tool/call` event per call (model order), then a `tool/result` event per call in
 *   model order, each appended as soon as its result and every earlier result of the batch are in. The log is
 *   therefore the same whatever order parallel calls finish in.
 * - **Context.** A result's `additionalContext` is held back until every result of the step is in, then appended as
 *   `context/message` events in model order.
 *
 * Throws {@link ScriptedModelError} when `calls` are malformed (nothing runs then). Rejects only if `tools.execute`
 * does (a real registry never does), after the calls already started have settled.
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

  const planned = planBatches(checked, (call) => tools.executionMode(target(call.name, agent)))
  const results: ToolExecutionResult[] = []
  const batches: ToolCallBatch[] = []
  for (const [index, batch] of planned.entries()) {
    batches.push(Object.freeze({ mode: batch.mode, callIds: Object.freeze(batch.calls.map((call) => call.id)) }))
    for (const call of batch.calls) {
      append({ type: 'tool/call', step, batch: index + 1, mode: batch.mode, callId: call.id, name: call.name, arguments: call.arguments })
    }
    const running = batch.calls.map((call) => start(tools, input(call, agent, signal)))
    for (const [position, pending] of running.entries()) {
      const settled = await pending
      if (!settled.ok) {
        await Promise.all(running)
        throw settled.error
      }
      const call = batch.calls[position]!
      results.push(settled.value)
      append({ type: 'tool/result', step, callId: call.id, name: call.name, result: settled.value })
    }
  }

  const context: ContextMessageEvent[] = []
  for (const [index, result] of results.entries()) {
    const attached = result.additionalContext
    if (attached === undefined) continue
    const event: ContextMessageEvent = {
      type: 'context/message',
      step,
      callId: checked[index]!.id,
      content: attached.content,
      ...(attached.source === undefined ? {} : { source: attached.source }),
    }
    append(event)
    context.push(event)
  }

  return Object.freeze({
    step,
    calls: Object.freeze(checked),
    batches: Object.freeze(batches),
    results: Object.freeze(results),
    context: Object.freeze(context),
    events: Object.freeze(events),
  })
}

function target(name: string, agent: Agent | undefined): { name: string; agent?: Agent } {
  return agent === undefined ? { name } : { name, agent }
}

function input(call: ScriptedToolCall, agent: Agent | undefined, signal: AbortSignal | undefined): ToolExecutionInput {
  return {
    callId: call.id,
    name: call.name,
    arguments: call.arguments,
    ...(agent === undefined ? {} : { agent }),
    ...(signal === undefined ? {} : { signal }),
  }
}

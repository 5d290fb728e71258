import type { Agent } from '@dsh/tools-core'
import { InvalidTestOptionError } from './invalid-test-option-error.js'
import { checkCalls, runToolStep } from './run-tool-step.js'
import { ScriptedModelError } from './scripted-model-error.js'
import type { ScriptedToolCall, SessionEvent, SessionStep, ToolStepTarget } from './session-log.js'

/** What a scripted model sees when it is asked for its next turn. */
export interface ModelTurnContext {
  /** The number of the step the turn is for (1-based). */
  readonly step: number
  /** The step before, with its calls, results and appended context; `undefined` for the first turn. */
  readonly previous: SessionStep | undefined
  /** Every step so far. */
  readonly steps: readonly SessionStep[]
  /** The session log so far. */
  readonly log: readonly SessionEvent[]
  /** The agent the session runs for, if any. */
  readonly agent: Agent | undefined
}

/**
 * A model that answers each turn with tool calls. Returning `undefined` or no calls ends the session, as a real
 * model's final answer does.
 */
export type ScriptedModel = (
  context: ModelTurnContext,
) => readonly ScriptedToolCall[] | undefined | PromiseLike<readonly ScriptedToolCall[] | undefined>

/** One turn of a {@link ModelScript}: fixed calls, or a function of what happened so far (to react to results). */
export type ModelTurn = readonly ScriptedToolCall[] | ScriptedModel

/** The turns of a scripted model, played in order: turn `i` answers step `i + 1`. */
export type ModelScript = readonly ModelTurn[]

/** Options of {@link runScriptedSession}. */
export interface ScriptedSessionOptions {
  /** The agent every call runs for (its scope's tools, restrictions and guards apply). */
  readonly agent?: Agent | undefined
  /** Handed to every call; once it has fired, the model is not asked for another turn. */
  readonly signal?: AbortSignal | undefined
  /**
   * The most steps the model may take (default 50). A model that still calls tools after that many steps makes
   * the session throw {@link ScriptedModelError} instead of looping forever.
   */
  readonly maxSteps?: number | undefined
  /** Called synchronously with each event as it is appended. */
  readonly onEvent?: ((event: SessionEvent) => void) | undefined
}

/** Why a session ended. */
export type SessionStopReason = 'done' | 'aborted'

/** A finished session: its steps and its log, frozen. */
export interface ScriptedSession {
  /** Every step, in order. */
  readonly steps: readonly SessionStep[]
  /** The session log: `tool/call`, `tool/result` and `context/message` events in the order they were appended. */
  readonly log: readonly SessionEvent[]
  /** `done` when the model had no more calls; `aborted` when the signal fired. */
  readonly stopReason: SessionStopReason
}

const DEFAULT_MAX_STEPS = 50

/**
 * Turns a list of turns into a {@link ScriptedModel}: turn `i` answers step `i + 1`, and the model is done after the
 * last turn. A function turn gets the {@link ModelTurnContext}; returning no calls from it ends the session early.
 * The model keeps no state, so it can drive several sessions.
 */
export function scriptedModel(script: ModelScript): ScriptedModel {
  if (!Array.isArray(script)) throw new InvalidTestOptionError('script', 'expected an array of turns')
  const turns = [...script] as ModelTurn[]
  for (const [index, turn] of turns.entries()) {
    if (typeof turn !== 'function' && !Array.isArray(turn)) {
      throw new InvalidTestOptionError(`script[${index}]`, 'a turn is a list of tool calls or a function returning one')
    }
  }
  return (context) => {
    const turn = turns[context.step - 1]
    if (turn === undefined) return undefined
    return typeof turn === 'function' ? turn(context) : turn
  }
}

function checkMaxSteps(value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_STEPS
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new InvalidTestOptionError('maxSteps', `expected a positive integer, got ${String(value)}`)
  }
  return value
}

/**
 * Drives `tools` with a scripted model, as an agent loop would: asks the model for a turn, runs its calls with
 * {@link runToolStep} (concurrency-safe calls together, the rest alone and in order, results in model order,
 * `additionalContext` appended after the step's results), hands the step to the model's next turn, and repeats
 * until the model has no more calls or `signal` fires.
 *
 * ```ts
 * const session = await runScriptedSession(t.tools, [
 *   [{ id: 'call_1', name: 'read', arguments: { path: 42 } }],
 *   ({ previous }) =>
 *     previous?.results[0]?.error?.code === 'INVALID_ARGS' ? [{ id: 'call_2', name: 'read', arguments: { path: 'a' } }] : [],
 * ])
 * ```
 *
 * Throws {@link ScriptedModelError} when the model's output is not a list of well-formed calls with session-unique
 * ids, or when it is still calling tools after `maxSteps` steps. An error thrown by a model turn propagates.
 */
export async function runScriptedSession(
  tools: ToolStepTarget,
  model: ScriptedModel | ModelScript,
  options: ScriptedSessionOptions = {},
): Promise<ScriptedSession> {
  const play = typeof model === 'function' ? model : scriptedModel(model)
  const maxSteps = checkMaxSteps(options.maxSteps)
  const { agent, signal, onEvent } = options
  const steps: SessionStep[] = []
  const log: SessionEvent[] = []
  const usedIds = new Set<string>()
  let stopReason: SessionStopReason = 'done'

  for (let step = 1; ; step++) {
    if (signal?.aborted === true) {
      stopReason = 'aborted'
      break
    }
    const turn = await play({ step, previous: steps.at(-1), steps: [...steps], log: [...log], agent })
    if (turn === undefined) break
    const calls = checkCalls(turn, step, usedIds)
    if (calls.length === 0) break
    if (step > maxSteps) {
      throw new ScriptedModelError(step, `the model is still calling tools after maxSteps (${maxSteps}) steps`)
    }
    for (const call of calls) usedIds.add(call.id)
    const done = await runToolStep(tools, calls, {
      agent,
      signal,
      step,
      onEvent(event) {
        log.push(event)
        onEvent?.(event)
      },
    })
    steps.push(done)
  }

  return Object.freeze({ steps: Object.freeze(steps), log: Object.freeze(log), stopReason })
}

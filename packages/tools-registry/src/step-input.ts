// Reading what executeStep is given: the options (a harness fault throws) and each call (a bad call becomes its own
// error result). Everything is read once, own fields only, before anything runs, so a getter cannot show the
// batching one call and the pipeline another.
import type { Agent, ToolExecutionResult, ToolExecutionToken } from '@dsh/tools-core'
import { describeThrown, describeValue } from './describe-value.js'
import { InvalidStepOptionsError } from './invalid-step-options-error.js'
import { FieldReadError, isArray, ownLength, readOwn } from './own-field.js'
import { invalidCall, materialize, readResult } from './results.js'
import { isAbortSignal } from '@dsh/tools-core'
import type { StepBatch } from './step-types.js'

/** The options, checked. */
export interface StepSettings {
  readonly agent: Agent | undefined
  readonly signal: AbortSignal | undefined
  readonly concurrency: number
  readonly failFast: boolean
  readonly onBatch: ((batch: StepBatch) => void) | undefined
  readonly onResult: ((result: ToolExecutionResult, index: number) => void) | undefined
}

/** One call of the step, read: the detached input to run, or the result it is already answered with. */
export type StepEntry =
  | {
      readonly kind: 'run'
      /** The fields the pipeline gets (no agent and no signal: the step supplies both). */
      readonly callId: unknown
      readonly name: unknown
      readonly arguments: unknown
      readonly parent: unknown
    }
  | { readonly kind: 'answered'; readonly result: ToolExecutionResult }
  | { readonly kind: 'raw'; readonly value: unknown }

const optionNames = ['agent', 'signal', 'concurrency', 'failFast', 'onBatch', 'onResult'] as const

function readOption(options: object, key: string): unknown {
  try {
    return readOwn(options, key)
  } catch (error) {
    const cause = error instanceof FieldReadError ? error.cause : error
    throw new InvalidStepOptionsError(key, `Reading executeStep's option ${key} threw: ${describeThrown(cause)}`, { cause })
  }
}

/**
 * Checks the options of a step. `forcedAgent` is a scope's agent: an `agent` option must then be absent or that
 * agent. Throws {@link InvalidStepOptionsError}.
 */
export function readStepOptions(options: unknown, forcedAgent: Agent | undefined): StepSettings {
  if (options === undefined || options === null) {
    return { agent: forcedAgent, signal: undefined, concurrency: Infinity, failFast: false, onBatch: undefined, onResult: undefined }
  }
  if (typeof options !== 'object' || isArray(options, 'options')) {
    throw new InvalidStepOptionsError('options', `executeStep's options must be an object { ${optionNames.join('?, ')}? }, got ${describeValue(options)}`)
  }
  const [agent, signal, concurrency, failFast, onBatch, onResult] = optionNames.map((key) => readOption(options, key))
  const bad = (field: string, expected: string, value: unknown): never => {
    throw new InvalidStepOptionsError(field, `executeStep's option ${field} must be ${expected}, got ${describeValue(value)}`)
  }
  if (agent !== undefined && (typeof agent !== 'object' || agent === null)) bad('agent', 'an agent object', agent)
  if (forcedAgent !== undefined && agent !== undefined && agent !== forcedAgent) {
    bad('agent', "absent or the scope's own agent (a scope's step runs for its agent)", agent)
  }
  if (signal !== undefined && !isAbortSignal(signal)) bad('signal', 'an AbortSignal (the platform\'s own)', signal)
  if (concurrency !== undefined && (typeof concurrency !== 'number' || !Number.isSafeInteger(concurrency) || concurrency < 1)) {
    bad('concurrency', 'a positive integer (the most parallel-safe calls running at once)', concurrency)
  }
  if (failFast !== undefined && typeof failFast !== 'boolean') bad('failFast', 'a boolean', failFast)
  if (onBatch !== undefined && typeof onBatch !== 'function') bad('onBatch', 'a function', onBatch)
  if (onResult !== undefined && typeof onResult !== 'function') bad('onResult', 'a function', onResult)
  return {
    agent: forcedAgent ?? (agent as Agent | undefined),
    signal: signal as AbortSignal | undefined,
    concurrency: (concurrency as number | undefined) ?? Infinity,
    failFast: failFast === true,
    onBatch: onBatch as StepSettings['onBatch'],
    onResult: onResult as StepSettings['onResult'],
  }
}

/** The step's calls, each read once. Throws {@link InvalidStepOptionsError} when `calls` is not a readable array. */
export function readStepCalls(calls: unknown, settings: StepSettings): StepEntry[] {
  let length: number
  try {
    if (!isArray(calls, 'calls')) throw new InvalidStepOptionsError('calls', `executeStep needs an array of calls, got ${describeValue(calls)}`)
    length = ownLength(calls, 'calls')
  } catch (error) {
    if (error instanceof InvalidStepOptionsError) throw error
    throw new InvalidStepOptionsError('calls', `executeStep cannot read its calls: ${describeThrown(error)}`, { cause: error })
  }
  const entries: StepEntry[] = []
  for (let index = 0; index < length; index++) entries.push(readEntry(calls as unknown[], index, settings))
  return entries
}

function problem(index: number, callId: unknown, text: string): StepEntry {
  const id = typeof callId === 'string' ? callId : ''
  return { kind: 'answered', result: materialize(invalidCall(id, `The tool call is malformed: call ${index} of the step ${text}.`)) }
}

/**
 * One entry: a `ToolExecutionInput`, a parsed call `{ ok: true, input }`, or an answered one `{ ok: false, result }`
 * (a provider parser's malformed-call result). Never throws.
 */
function readEntry(calls: unknown[], index: number, settings: StepSettings): StepEntry {
  try {
    const value = readOwn(calls, index, `calls[${index}]`)
    if (typeof value !== 'object' || value === null || isArray(value, `calls[${index}]`)) return { kind: 'raw', value }
    const ok = readOwn(value, 'ok')
    if (ok === false) return answered(index, readOwn(value, 'result'))
    if (ok === true) {
      const input = readOwn(value, 'input')
      if (typeof input !== 'object' || input === null || isArray(input, `calls[${index}].input`)) return { kind: 'raw', value: input }
      return readInput(index, input, settings)
    }
    if (ok !== undefined) return problem(index, readOwn(value, 'callId'), `has ok = ${describeValue(ok)}: a parsed call has ok true (with input) or false (with result)`)
    return readInput(index, value, settings)
  } catch (error) {
    return problem(index, undefined, `cannot be read (${describeThrown(error instanceof FieldReadError ? error.cause : error)})`)
  }
}

function answered(index: number, result: unknown): StepEntry {
  if (typeof result !== 'object' || result === null) return problem(index, undefined, `is answered (ok: false) but its result is ${describeValue(result)}`)
  const callId = readOwn(result, 'callId')
  if (typeof callId !== 'string') return problem(index, undefined, `is answered (ok: false) but its result's callId is ${describeValue(callId)}`)
  const read = readResult(callId, result)
  if (typeof read === 'string') return problem(index, callId, `is answered (ok: false) with ${read}, not a tool result`)
  if (!read.isError) return problem(index, callId, 'is answered (ok: false) with a result that is not an error; a call that can run is passed as its input')
  return { kind: 'answered', result: materialize(read) }
}

function readInput(index: number, input: object, settings: StepSettings): StepEntry {
  const callId = readOwn(input, 'callId')
  const agent = readOwn(input, 'agent')
  const signal = readOwn(input, 'signal')
  if (agent !== undefined && agent !== settings.agent) {
    return problem(index, callId, "carries an agent that is not the step's: a step runs for one agent, given as executeStep's agent option")
  }
  if (signal !== undefined && signal !== settings.signal) {
    return problem(index, callId, "carries a signal that is not the step's: a step runs under one signal, given as executeStep's signal option")
  }
  return {
    kind: 'run',
    callId,
    name: readOwn(input, 'name'),
    arguments: readOwn(input, 'arguments'),
    parent: readOwn(input, 'parent') as ToolExecutionToken | undefined,
  }
}

import type { Agent, ToolExecutionInput, ToolExecutionResult } from '@dsh/tools-core'
import { PROVIDER_ERROR_CODES } from './error-codes.js'

/**
 * One provider tool call, converted: an execution input for `ctx.tools.execute` (or a step runner), or, when the
 * call cannot run, the error result to send back instead (code `PROVIDER_MALFORMED_CALL`; no policy ran). Order and
 * ids are the model's.
 */
export type ParsedToolCall =
  | {
      /** The call can run. */
      readonly ok: true
      /** The call's id: the provider's, or (Gemini without one) a generated one. */
      readonly callId: string
      /** The tool the model called. */
      readonly name: string
      /** The provider's own id for the call, `undefined` when it sent none (Gemini). */
      readonly providerCallId: string | undefined
      /** What to hand to `ctx.tools.execute`. */
      readonly input: ToolExecutionInput
    }
  | {
      /** The call cannot run. */
      readonly ok: false
      /** The call's id: the provider's, or a generated one. */
      readonly callId: string
      /** The name the model sent (`''` when it sent none). */
      readonly name: string
      /** The provider's own id for the call, `undefined` when it sent none. */
      readonly providerCallId: string | undefined
      /** The error result to send back for this call, frozen. */
      readonly result: ToolExecutionResult
    }

/** What every call parser adds to the inputs it makes. */
export interface ParseCallsOptions {
  /** The agent on whose behalf the calls run. */
  readonly agent?: Agent | undefined
  /** Cancels the calls (one signal for the step). */
  readonly signal?: AbortSignal | undefined
}

/** The fields of one call a parser read from a provider object. */
export interface RawCall {
  readonly callId: string
  readonly providerCallId: string | undefined
  readonly name: unknown
}

/** An input for the call, or the malformed-call result. */
export function acceptedCall(raw: RawCall, name: string, args: unknown, options: ParseCallsOptions): ParsedToolCall {
  const input: ToolExecutionInput = {
    callId: raw.callId,
    name,
    arguments: args,
    ...(options.agent !== undefined ? { agent: options.agent } : {}),
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  }
  return Object.freeze({ ok: true, callId: raw.callId, name, providerCallId: raw.providerCallId, input })
}

const resendArguments = "send the call again with its arguments as one JSON object that matches the tool's parameters"

/**
 * The `PROVIDER_MALFORMED_CALL` result for a call, with a text that says what was wrong and what to send instead
 * (by default: the arguments as one JSON object).
 */
export function malformedCall(raw: RawCall, problem: string, advice: string = resendArguments): ParsedToolCall {
  const name = typeof raw.name === 'string' ? raw.name : ''
  const which = name === '' ? 'Your tool call' : `Your call to "${name}"`
  const text = `${which} did not run: ${problem}. Nothing was executed; ${advice}.`
  const result: ToolExecutionResult = Object.freeze({
    callId: raw.callId,
    content: Object.freeze([Object.freeze({ type: 'text' as const, text })]) as unknown as ToolExecutionResult['content'],
    isError: true,
    error: Object.freeze({ name: 'MalformedToolCallError', code: PROVIDER_ERROR_CODES.MALFORMED_CALL }),
  })
  return Object.freeze({ ok: false, callId: raw.callId, name, providerCallId: raw.providerCallId, result })
}

/** The model-controlled name of a call, or the problem with it. */
export function nameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return 'it has no tool name'
  if (name === '') return 'its tool name is empty'
  return undefined
}

/** A short description of a value's JSON type, for messages: `an array`, `the string "x"`, `null`. */
export function describeJsonType(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'string') return `a string`
  if (typeof value === 'object') return 'an object'
  return `a ${typeof value}`
}

/**
 * The error result of a call whose provider id repeats the id of an earlier call of the same step: it does not run
 * (no policy, no listener sees it). Two calls under one id could not be told apart by the registry's events, by an
 * approval or by the model reading the answers, so only the first one runs.
 */
export function repeatedIdCall(raw: RawCall, id: string): ParsedToolCall {
  return malformedCall(raw, `its id ${JSON.stringify(id)} is the id of an earlier call in the same turn, so their results could not be told apart`, 'if it is still needed, send it again in your next turn')
}

/**
 * Applies {@link repeatedIdCall} to every call whose id repeats an earlier one's (for providers that answer by id:
 * the repeated call keeps the shared id, and the result converters put every answer to one id into one reply).
 */
export function refuseRepeatedIds(calls: ParsedToolCall[]): ParsedToolCall[] {
  const seen = new Set<string>()
  return calls.map((call) => {
    if (!seen.has(call.callId)) {
      seen.add(call.callId)
      return call
    }
    return repeatedIdCall({ callId: call.callId, providerCallId: call.providerCallId, name: call.name }, call.callId)
  })
}

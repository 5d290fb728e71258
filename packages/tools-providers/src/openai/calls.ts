import { ProviderInputError } from '../input-error.js'
import { isRecord } from '../json-equal.js'
import { parseArgumentsJson } from '../lossless-json.js'
import { acceptedCall, describeJsonType, malformedCall, nameProblem, refuseRepeatedIds, type ParseCallsOptions, type ParsedToolCall, type RawCall } from '../parsed-call.js'
import { removeOmittedNulls } from '../remove-omitted-nulls.js'
import type { BuiltTool } from '../tool-list.js'

/** Parses one call's argument text and applies the inverse mapping of the profile its tool was sent with. */
export function parseTextCall(raw: RawCall, argumentsText: unknown, tools: ReadonlyMap<string, BuiltTool>, options: ParseCallsOptions): ParsedToolCall {
  const badName = nameProblem(raw.name)
  if (badName !== undefined) return malformedCall(raw, badName)
  const name = raw.name as string
  if (typeof argumentsText !== 'string') return malformedCall(raw, `its arguments are ${describeJsonType(argumentsText)}, not a JSON text`)
  const parsed = parseArgumentsJson(argumentsText)
  if (!parsed.ok) return malformedCall(raw, `its arguments are not valid JSON (${parsed.problem})`)
  if (!isRecord(parsed.value)) return malformedCall(raw, `its arguments are ${describeJsonType(parsed.value)}, not a JSON object`)
  const tool = tools.get(name)
  const args = tool?.profile === 'openai-strict' ? removeOmittedNulls(tool.original, parsed.value) : parsed.value
  return acceptedCall(raw, name, args, options)
}

function checkOptions(options: unknown, what: string): ParseCallsOptions {
  if (!isRecord(options)) throw new ProviderInputError(`${what}: options must be an object`)
  return options as ParseCallsOptions
}

/** See `OpenAITools.parseChatCalls`. */
export function parseChatCalls(toolCalls: unknown, tools: ReadonlyMap<string, BuiltTool>, options: ParseCallsOptions): ParsedToolCall[] {
  const what = 'parseChatCalls'
  checkOptions(options, what)
  if (toolCalls === null || toolCalls === undefined) return []
  if (!Array.isArray(toolCalls)) throw new ProviderInputError(`${what} expects the message's tool_calls array`)
  return refuseRepeatedIds(toolCalls.map((call: unknown, index) => {
    if (!isRecord(call) || typeof call['id'] !== 'string') throw new ProviderInputError(`${what}: tool call ${index} is not a tool call with a string id`)
    const fn = call['function']
    const raw: RawCall = { callId: call['id'], providerCallId: call['id'], name: isRecord(fn) ? fn['name'] : undefined }
    if (call['type'] !== 'function' || !isRecord(fn)) {
      const custom = isRecord(call['custom']) ? call['custom']['name'] : undefined
      return malformedCall({ ...raw, name: custom }, `it is a ${JSON.stringify(call['type'])} tool call, and only function tools are defined here`)
    }
    return parseTextCall(raw, fn['arguments'], tools, options)
  }))
}

/** See `OpenAITools.parseResponsesCalls`. */
export function parseResponsesCalls(output: unknown, tools: ReadonlyMap<string, BuiltTool>, options: ParseCallsOptions): ParsedToolCall[] {
  const what = 'parseResponsesCalls'
  checkOptions(options, what)
  if (!Array.isArray(output)) throw new ProviderInputError(`${what} expects the response's output array`)
  const calls: ParsedToolCall[] = []
  output.forEach((item: unknown, index) => {
    if (!isRecord(item)) throw new ProviderInputError(`${what}: output item ${index} is not an object`)
    if (item['type'] !== 'function_call') return
    if (typeof item['call_id'] !== 'string') throw new ProviderInputError(`${what}: function_call item ${index} has no string call_id`)
    const raw: RawCall = { callId: item['call_id'], providerCallId: item['call_id'], name: item['name'] }
    calls.push(parseTextCall(raw, item['arguments'], tools, options))
  })
  return refuseRepeatedIds(calls)
}

import type { ToolSchema } from '@dsh/tools-core'
import { assertOptionsObject, ProviderInputError, readingInput } from '../input-error.js'
import { copyJson, isRecord } from '../json-equal.js'
import { acceptedCall, describeJsonType, malformedCall, nameProblem, refuseRepeatedIds, type ParseCallsOptions, type ParsedToolCall, type RawCall } from '../parsed-call.js'
import type { SchemaIssue } from '../schema-issue.js'
import { buildToolList, type ProfileFallback } from '../tool-list.js'
import { ANTHROPIC_TOOL_NAME } from '../tool-names.js'
import type { AnthropicContentBlockLike, AnthropicTool } from './types.js'

/** Options of {@link anthropicTools}. */
export interface AnthropicToolsOptions {
  /** `anthropic` (default): the schemas as they are. `anthropic-strict`: the strict projection, `strict: true`. */
  readonly profile?: 'anthropic' | 'anthropic-strict' | undefined
  /** What a tool `anthropic-strict` cannot express does: `error` (default) or `non-strict` (sent as `anthropic`). */
  readonly fallback?: ProfileFallback | undefined
}

/** A tool list for Anthropic Messages, and the call parser that belongs to it. */
export interface AnthropicTools {
  /** The list for `messages.create({ tools })` (a fresh copy on each read). */
  readonly tools: AnthropicTool[]
  /** The definition-time lint: what the profile could not send as it is. */
  readonly issues: readonly SchemaIssue[]
  /**
   * Converts the `tool_use` blocks of an assistant message's `content` into execution inputs, in order (other
   * blocks are skipped); the block's `id` is the call id. A call whose `input` is not a JSON object, or that has no
   * name, is an error result instead; no policy ran.
   *
   * @throws {@link ProviderInputError} when `content` is not an array of blocks, or a `tool_use` has no string id.
   */
  parseCalls(content: readonly AnthropicContentBlockLike[], options?: ParseCallsOptions): ParsedToolCall[]
}

/**
 * Builds an Anthropic Messages tool list from tool schemas, checking each name against Anthropic's rule and
 * projecting each schema with the profile.
 *
 * @param schemas - the tools, as `ctx.tools.schemas(agent)` returns them
 * @param options - the profile and its fallback
 * @throws {@link ProviderToolNameError}, {@link ProviderSchemaError} or {@link ProviderInputError}, as `openaiTools`.
 */
export function anthropicTools(schemas: readonly ToolSchema[], options: AnthropicToolsOptions = {}): AnthropicTools {
  assertOptionsObject(options, 'anthropicTools')
  const profile = options.profile ?? 'anthropic'
  if (profile !== 'anthropic' && profile !== 'anthropic-strict') {
    throw new ProviderInputError(`anthropicTools: profile must be 'anthropic' or 'anthropic-strict', got ${JSON.stringify(profile)}`)
  }
  const built = buildToolList({ schemas, what: 'anthropicTools', rule: ANTHROPIC_TOOL_NAME, profile, nonStrict: 'anthropic', fallback: options.fallback })
  return Object.freeze({
    get tools(): AnthropicTool[] {
      return built.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        input_schema: copyJson(tool.parameters) as AnthropicTool['input_schema'],
        ...(tool.profile === 'anthropic-strict' ? { strict: true as const } : {}),
      }))
    },
    issues: built.issues,
    parseCalls: (content: readonly AnthropicContentBlockLike[], parseOptions: ParseCallsOptions = {}) => readingInput('parseCalls', () => parseToolUse(content, parseOptions)),
  })
}

function parseToolUse(content: unknown, options: unknown): ParsedToolCall[] {
  const what = 'parseCalls'
  if (!isRecord(options)) throw new ProviderInputError(`${what}: options must be an object`)
  if (!Array.isArray(content)) throw new ProviderInputError(`${what} expects the assistant message's content array`)
  const calls: ParsedToolCall[] = []
  content.forEach((block: unknown, index) => {
    if (!isRecord(block)) throw new ProviderInputError(`${what}: content block ${index} is not an object`)
    if (block['type'] !== 'tool_use') return
    if (typeof block['id'] !== 'string') throw new ProviderInputError(`${what}: tool_use block ${index} has no string id`)
    const raw: RawCall = { callId: block['id'], providerCallId: block['id'], name: block['name'] }
    const badName = nameProblem(raw.name)
    const input = block['input']
    if (badName !== undefined) calls.push(malformedCall(raw, badName))
    else if (!isRecord(input)) calls.push(malformedCall(raw, `its input is ${describeJsonType(input)}, not a JSON object`))
    else calls.push(acceptedCall(raw, raw.name as string, input, options as ParseCallsOptions))
  })
  return refuseRepeatedIds(calls)
}

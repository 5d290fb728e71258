import type { ToolSchema } from '@dsh/tools-core'
import { copyJson } from '../json-equal.js'
import { assertOptionsObject, ProviderInputError, readingInput } from '../input-error.js'
import type { ParsedToolCall, ParseCallsOptions } from '../parsed-call.js'
import type { SchemaIssue } from '../schema-issue.js'
import { buildToolList, type ProfileFallback } from '../tool-list.js'
import { OPENAI_TOOL_NAME } from '../tool-names.js'
import { parseChatCalls, parseResponsesCalls } from './calls.js'
import type { OpenAIChatFunctionTool, OpenAIChatToolCallLike, OpenAIResponsesFunctionTool, OpenAIResponsesItemLike } from './types.js'

/** Options of {@link openaiTools}. */
export interface OpenAIToolsOptions {
  /** `openai` (default): the schemas as they are, `strict: false`. `openai-strict`: the strict projection, `strict: true`. */
  readonly profile?: 'openai' | 'openai-strict' | undefined
  /** What a tool `openai-strict` cannot express does: `error` (default) or `non-strict` (that tool is sent as `openai`). */
  readonly fallback?: ProfileFallback | undefined
}

/** A tool list for OpenAI, and the call parsers that belong to it (they know which tools were sent strict). */
export interface OpenAITools {
  /** The list for Chat Completions' `tools` (a fresh copy on each read). */
  readonly chat: OpenAIChatFunctionTool[]
  /** The list for the Responses API's `tools` (a fresh copy on each read). */
  readonly responses: OpenAIResponsesFunctionTool[]
  /** The definition-time lint: what each profile could not send as it is. */
  readonly issues: readonly SchemaIssue[]
  /**
   * Converts an assistant message's `tool_calls` into execution inputs, in order: each call's `arguments` text
   * parsed losslessly, the strict profile's nulls for omitted optional properties removed. A call that cannot run
   * (arguments not JSON or not one object, no name, a custom tool call) is an error result instead; no policy ran.
   *
   * @throws {@link ProviderInputError} when `toolCalls` is not an array of tool call objects with string ids.
   */
  parseChatCalls(toolCalls: readonly OpenAIChatToolCallLike[] | null | undefined, options?: ParseCallsOptions): ParsedToolCall[]
  /**
   * Converts the `function_call` items of a response's `output` into execution inputs, in order (other items are
   * skipped), by the same rules as {@link OpenAITools.parseChatCalls}; `call_id` is the call id.
   *
   * @throws {@link ProviderInputError} when `output` is not an array of items, or a `function_call` has no `call_id`.
   */
  parseResponsesCalls(output: readonly OpenAIResponsesItemLike[], options?: ParseCallsOptions): ParsedToolCall[]
}

/**
 * Builds an OpenAI tool list (Chat Completions and Responses) from tool schemas, checking each name against
 * OpenAI's rule and projecting each schema with the profile.
 *
 * @param schemas - the tools, as `ctx.tools.schemas(agent)` returns them
 * @param options - the profile and its fallback
 * @throws {@link ProviderToolNameError} for names OpenAI rejects; {@link ProviderSchemaError} for schemas the strict
 * profile cannot express (without `fallback: 'non-strict'`); {@link ProviderInputError} for a malformed list.
 */
export function openaiTools(schemas: readonly ToolSchema[], options: OpenAIToolsOptions = {}): OpenAITools {
  assertOptionsObject(options, 'openaiTools')
  const profile = options.profile ?? 'openai'
  if (profile !== 'openai' && profile !== 'openai-strict') {
    throw new ProviderInputError(`openaiTools: profile must be 'openai' or 'openai-strict', got ${JSON.stringify(profile)}`)
  }
  const built = buildToolList({ schemas, what: 'openaiTools', rule: OPENAI_TOOL_NAME, profile, nonStrict: 'openai', fallback: options.fallback })
  const byName = new Map(built.tools.map((tool) => [tool.name, tool]))
  return Object.freeze({
    get chat(): OpenAIChatFunctionTool[] {
      return built.tools.map((tool) => ({
        type: 'function' as const,
        function: {
          name: tool.name,
          description: tool.description,
          parameters: copyJson(tool.parameters) as Record<string, unknown>,
          strict: tool.profile === 'openai-strict',
        },
      }))
    },
    get responses(): OpenAIResponsesFunctionTool[] {
      return built.tools.map((tool) => ({
        type: 'function' as const,
        name: tool.name,
        description: tool.description,
        parameters: copyJson(tool.parameters) as Record<string, unknown>,
        strict: tool.profile === 'openai-strict',
      }))
    },
    issues: built.issues,
    parseChatCalls: (toolCalls: readonly OpenAIChatToolCallLike[] | null | undefined, parseOptions: ParseCallsOptions = {}) =>
      readingInput('parseChatCalls', () => parseChatCalls(toolCalls, byName, parseOptions)),
    parseResponsesCalls: (output: readonly OpenAIResponsesItemLike[], parseOptions: ParseCallsOptions = {}) =>
      readingInput('parseResponsesCalls', () => parseResponsesCalls(output, byName, parseOptions)),
  })
}

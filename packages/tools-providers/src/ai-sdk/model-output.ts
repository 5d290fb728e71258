import type { ContentBlock, ToolExecutionResult } from '@dsh/tools-core'
import type { Tool } from 'ai'
import { isRecord } from '../json-equal.js'
import { blockAsText, checkContent, readStep, resourceBlob, resultContent } from '../step-results.js'

/**
 * What a tool's `toModelOutput` returns in the AI SDK (its `ToolResultOutput`, which `ai` does not export by name):
 * `text`, `json`, `error-text`, `error-json`, `execution-denied` or `content` parts.
 */
export type AiSdkModelOutput = Awaited<ReturnType<NonNullable<Tool<unknown, unknown>['toModelOutput']>>>

type ContentPart = Extract<AiSdkModelOutput, { type: 'content' }>['value'][number]

/** A block as an AI SDK content part: images as `image-data`, audio and binary resources as `file-data`, the rest as text. */
function contentPart(block: ContentBlock): ContentPart {
  if (block.type === 'image') return { type: 'image-data', data: block.data, mediaType: block.mimeType }
  if (block.type === 'audio') return { type: 'file-data', data: block.data, mediaType: block.mimeType }
  const blob = resourceBlob(block)
  if (blob !== undefined && block.type === 'resource') {
    const filename = block.resource.uri.split(/[/\\]/).pop()
    return {
      type: 'file-data',
      data: blob.data,
      mediaType: blob.mimeType ?? 'application/octet-stream',
      ...(filename === undefined || filename === '' ? {} : { filename }),
    }
  }
  return { type: 'text', text: blockAsText(block) }
}

/**
 * A tool execution result as the AI SDK's model output (what a tool's `toModelOutput` returns): an error result is
 * `error-text` (its text starts with `Error (CODE): the tool call failed.`; the SDK's providers send it with their
 * error flag, e.g. Anthropic's `is_error`), a text-only result is `text`, a result with images, audio or binary
 * resources is `content` with `image-data` / `file-data` parts. The result's `additionalContext`, if any, follows
 * its content (the SDK's loop has no place after the step's results; see the reference docs). Blank text blocks are
 * dropped and a result left with nothing says `(no output)`, the rule of every converter of this package, so no
 * provider behind the SDK receives an empty text.
 *
 * @param result - a result of `ctx.tools.execute`
 * @throws {@link ProviderInputError} when `result` is not a tool execution result.
 */
export function toAiSdkModelOutput(result: ToolExecutionResult): AiSdkModelOutput {
  const step = readStep([result], undefined, 'toAiSdkModelOutput')
  const checked = step.results[0] as ToolExecutionResult
  const blocks = [...resultContent(checked, 'first'), ...step.context]
  if (checked.isError) return { type: 'error-text', value: blocks.map(blockAsText).join('\n') }
  const parts = blocks.map(contentPart)
  if (parts.every((part): part is Extract<ContentPart, { type: 'text' }> => part.type === 'text')) {
    return { type: 'text', value: parts.map((part) => part.text).join('\n') }
  }
  return { type: 'content', value: parts }
}

/**
 * True when `value` is a tool execution result: what every tool of an `aiSdkTools` set returns, so an
 * AI SDK tool result's `output` (typed `unknown` for dynamic tools) narrows to {@link ToolExecutionResult}, with
 * `isError`, `error.code`, `meta` and `structuredContent` typed:
 *
 * ```ts
 * for (const { output } of step.toolResults) if (isAiSdkToolOutput(output) && output.isError) console.log(output.error?.code)
 * ```
 *
 * It checks the shape (a string `callId`, a boolean `isError`, well-formed content blocks, an `error` of string
 * `name` and `code` when present) and never throws, whatever `value` is.
 *
 * @param value - a tool result's `output`, or anything else
 */
export function isAiSdkToolOutput(value: unknown): value is ToolExecutionResult {
  try {
    if (!isRecord(value) || typeof value['callId'] !== 'string' || typeof value['isError'] !== 'boolean') return false
    const error = value['error']
    if (error !== undefined && !(isRecord(error) && typeof error['name'] === 'string' && typeof error['code'] === 'string')) return false
    checkContent(value['content'], 'output.content')
    return true
  } catch {
    // A malformed block, a throwing getter or a revoked proxy: not a result.
    return false
  }
}

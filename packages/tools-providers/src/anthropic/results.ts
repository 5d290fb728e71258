import type { ContentBlock, ToolExecutionResult } from '@dsh/tools-core'
import { blockAsText, readStep, resourceBlob, resultContent, type StepResultsOptions } from '../step-results.js'
import type { AnthropicDocumentBlock, AnthropicImageBlock, AnthropicTextBlock, AnthropicToolResultBlock, AnthropicToolResultMessage } from './types.js'

type Block = AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock
const imageTypes: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp'])

/** A block as an Anthropic block: images (four types) and PDFs natively, everything else as text. */
function anthropicBlock(block: ContentBlock): Block {
  const blob = resourceBlob(block)
  const media = block.type === 'image' ? { mimeType: block.mimeType, data: block.data } : blob
  if (media?.mimeType !== undefined && imageTypes.has(media.mimeType)) {
    return { type: 'image', source: { type: 'base64', media_type: media.mimeType as AnthropicImageBlock['source']['media_type'], data: media.data } }
  }
  if (blob?.mimeType === 'application/pdf') return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: blob.data } }
  return { type: 'text', text: blockAsText(block) }
}

/**
 * A step's results as the one Anthropic user message that answers it: a `tool_result` block per result, in the
 * results' order and before anything else (as the API requires), `is_error: true` on error results, text, image
 * and PDF document blocks inside (other blocks as text), then the step's additional context as text, image and
 * document blocks. No text block is ever empty (the API rejects one with a 400): blank text blocks are dropped, and
 * a result left with nothing says `(no output)` (an error result: its `Error (CODE): the tool call failed.` line).
 *
 * @param results - the step's results, in the model's order
 * @param options - the additional context, when a step runner handed it back separately
 * When two results answer one call id (the model gave two calls one id, and the call parsers refused the later
 * one), they go into one answer for that id, each under its own heading.
 * @throws {@link ProviderInputError} when a result is not a tool execution result.
 */
export function toAnthropicMessage(results: readonly ToolExecutionResult[], options?: StepResultsOptions): AnthropicToolResultMessage {
  const step = readStep(results, options, 'toAnthropicMessage')
  const content: AnthropicToolResultMessage['content'] = step.results.map((result): AnthropicToolResultBlock => {
    return {
      type: 'tool_result',
      tool_use_id: result.callId,
      content: resultContent(result, 'when-empty').map(anthropicBlock),
      ...(result.isError ? { is_error: true as const } : {}),
    }
  })
  content.push(...step.context.map(anthropicBlock))
  return { role: 'user', content }
}

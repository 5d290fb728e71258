import type { ContentBlock, ToolExecutionResult } from '@dsh/tools-core'
import { blockAsText, readStep, resourceBlob, resultContent, type StepResultsOptions } from '../step-results.js'
import type {
  OpenAIChatAudioPart,
  OpenAIChatImagePart,
  OpenAIChatMessage,
  OpenAIChatTextPart,
  OpenAIFunctionCallOutput,
  OpenAIResponsesFilePart,
  OpenAIResponsesImagePart,
  OpenAIResponsesInputItem,
  OpenAIResponsesTextPart,
} from './types.js'

const imageTypes: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])
const audioFormats: Readonly<Record<string, 'wav' | 'mp3'>> = { 'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/wave': 'wav', 'audio/mpeg': 'mp3', 'audio/mp3': 'mp3' }

type ChatMediaPart = OpenAIChatImagePart | OpenAIChatAudioPart

/** A block as a Chat Completions user-message part, when it is media Chat can carry there. */
function chatMedia(block: ContentBlock): ChatMediaPart | undefined {
  const blob = resourceBlob(block)
  const media = block.type === 'image' || block.type === 'audio' ? { mimeType: block.mimeType, data: block.data } : blob
  if (media === undefined || media.mimeType === undefined) return undefined
  if (imageTypes.has(media.mimeType)) return { type: 'image_url', image_url: { url: `data:${media.mimeType};base64,${media.data}` } }
  const format = Object.hasOwn(audioFormats, media.mimeType) ? audioFormats[media.mimeType] : undefined
  return format === undefined ? undefined : { type: 'input_audio', input_audio: { data: media.data, format } }
}

/**
 * A step's results as Chat Completions messages: one `role: 'tool'` message per result, in the results' order
 * (text only: an error result's text starts with `Error (CODE): the tool call failed.`, as tool messages have no
 * error flag; blank text blocks are dropped, and a result left with nothing says `(no output)`), then, when there is any, ONE user message with the images and audio the tool messages cannot carry
 * (each announced in its tool message and labelled with its call id) followed by the step's additional context.
 * Other blocks (resource links, embedded resources, media Chat cannot take) become text.
 *
 * @param results - the step's results, in the model's order
 * @param options - the additional context, when a step runner handed it back separately
 * When two results answer one call id (the model gave two calls one id, and the call parsers refused the later
 * one), they go into one answer for that id, each under its own heading.
 * @throws {@link ProviderInputError} when a result is not a tool execution result.
 */
export function toOpenAIChatMessages(results: readonly ToolExecutionResult[], options?: StepResultsOptions): OpenAIChatMessage[] {
  const step = readStep(results, options, 'toOpenAIChatMessages')
  const messages: OpenAIChatMessage[] = []
  const attachments: (OpenAIChatTextPart | ChatMediaPart)[] = []
  for (const result of step.results) {
    const lines: string[] = []
    const media: ChatMediaPart[] = []
    for (const block of resultContent(result, 'first')) {
      const part = chatMedia(block)
      if (part === undefined) lines.push(blockAsText(block))
      else {
        media.push(part)
        lines.push(`[${part.type === 'image_url' ? 'image' : 'audio'} ${media.length}: attached in the next user message]`)
      }
    }
    messages.push({ role: 'tool', tool_call_id: result.callId, content: lines.join('\n') })
    if (media.length > 0) attachments.push({ type: 'text', text: `Attachments of tool call ${result.callId}:` }, ...media)
  }
  for (const block of step.context) attachments.push(chatMedia(block) ?? { type: 'text', text: blockAsText(block) })
  if (attachments.length > 0) messages.push({ role: 'user', content: attachments })
  return messages
}

type ResponsesPart = OpenAIResponsesTextPart | OpenAIResponsesImagePart | OpenAIResponsesFilePart

/** A block as a Responses input part: images and PDFs natively, everything else as text. */
function responsesPart(block: ContentBlock): ResponsesPart {
  const blob = resourceBlob(block)
  const media = block.type === 'image' ? { mimeType: block.mimeType, data: block.data } : blob
  if (media?.mimeType !== undefined && imageTypes.has(media.mimeType)) {
    return { type: 'input_image', image_url: `data:${media.mimeType};base64,${media.data}`, detail: 'auto' }
  }
  if (blob !== undefined && blob.mimeType === 'application/pdf' && block.type === 'resource') {
    const filename = block.resource.uri.split(/[/\\]/).pop() || 'document.pdf'
    return { type: 'input_file', file_data: `data:application/pdf;base64,${blob.data}`, filename }
  }
  return { type: 'input_text', text: blockAsText(block) }
}

/**
 * A step's results as Responses API input items: one `function_call_output` per result, in the results' order (a
 * string when the result is text only, else `input_text` / `input_image` / `input_file` parts; an error result
 * starts with `Error (CODE): the tool call failed.`; blank text blocks are dropped, and a result left with nothing
 * says `(no output)`), then, when there is any, one user message with the step's
 * additional context.
 *
 * @param results - the step's results, in the model's order
 * @param options - the additional context, when a step runner handed it back separately
 * When two results answer one call id (the model gave two calls one id, and the call parsers refused the later
 * one), they go into one answer for that id, each under its own heading.
 * @throws {@link ProviderInputError} when a result is not a tool execution result.
 */
export function toOpenAIResponsesInput(results: readonly ToolExecutionResult[], options?: StepResultsOptions): OpenAIResponsesInputItem[] {
  const step = readStep(results, options, 'toOpenAIResponsesInput')
  const items: OpenAIResponsesInputItem[] = step.results.map((result): OpenAIFunctionCallOutput => {
    const parts = resultContent(result, 'first').map(responsesPart)
    const textOnly = parts.every((part): part is OpenAIResponsesTextPart => part.type === 'input_text')
    const output = textOnly ? parts.map((part) => part.text).join('\n') : parts
    return { type: 'function_call_output', call_id: result.callId, output }
  })
  if (step.context.length > 0) items.push({ type: 'message', role: 'user', content: step.context.map(responsesPart) })
  return items
}

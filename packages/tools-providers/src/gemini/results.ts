import type { ContentBlock, ToolExecutionResult } from '@dsh/tools-core'
import { ProviderInputError, readingInput } from '../input-error.js'
import type { ParsedToolCall } from '../parsed-call.js'
import { blockAsText, errorHeading, readStep, resourceBlob, type StepResultsOptions } from '../step-results.js'
import type { GeminiContent, GeminiFunctionResponse, GeminiInlineData, GeminiPart } from './types.js'

/** Media Gemini takes inline: images, audio, video and PDFs. */
function inlineData(block: ContentBlock): GeminiInlineData | undefined {
  const blob = resourceBlob(block)
  const media = block.type === 'image' || block.type === 'audio' ? { mimeType: block.mimeType, data: block.data } : blob
  if (media?.mimeType === undefined || !/^(?:image|audio|video)\/|^application\/pdf$/.test(media.mimeType)) return undefined
  return { mimeType: media.mimeType, data: media.data }
}

/**
 * A step's results as the one Gemini content that answers it: a `functionResponse` part per result, in the
 * results' order and before anything else, each with the call's name and (when Gemini sent one) its id;
 * `response.output` holds the text of a result, `response.error` that of an error result (starting with
 * `Error (CODE): the tool call failed.`); images, audio, video and PDFs go into the response's `parts` (announced
 * in the text), other blocks become text. Then the step's additional context as text and inline-data parts.
 *
 * @param results - the step's results, in the model's order
 * @param calls - the parsed calls of the step (from `parseCalls`): each result is matched to its call by `callId`
 * @param options - the additional context, when a step runner handed it back separately
 * @throws {@link ProviderInputError} when a result is malformed or answers no call given.
 */
export function toGeminiContent(results: readonly ToolExecutionResult[], calls: readonly ParsedToolCall[], options?: StepResultsOptions): GeminiContent {
  return readingInput('toGeminiContent', () => geminiContent(results, calls, options))
}

function geminiContent(results: readonly ToolExecutionResult[], calls: readonly ParsedToolCall[], options: StepResultsOptions | undefined): GeminiContent {
  const what = 'toGeminiContent'
  // Gemini answers calls by position: one functionResponse per result, never merged.
  const step = readStep(results, options, what, 'one per result')
  if (!Array.isArray(calls)) throw new ProviderInputError(`${what} expects the step's parsed calls as its second argument`)
  // The calls under each id, in order: the n-th result for an id answers the n-th call with it.
  const byId = new Map<string, ParsedToolCall[]>()
  for (const call of calls as unknown[]) {
    if (typeof call !== 'object' || call === null || typeof (call as ParsedToolCall).callId !== 'string') throw new ProviderInputError(`${what}: a call is not a parsed call`)
    const id = (call as ParsedToolCall).callId
    byId.set(id, [...(byId.get(id) ?? []), call as ParsedToolCall])
  }
  const parts: GeminiPart[] = step.results.map((result): GeminiPart => {
    const call = byId.get(result.callId)?.shift()
    if (call === undefined) throw new ProviderInputError(`${what}: the result for ${JSON.stringify(result.callId)} answers none of the calls given (or more results than calls have that id)`)
    const lines = result.isError ? [errorHeading(result)] : []
    const media: { inlineData: GeminiInlineData }[] = []
    for (const block of result.content) {
      const data = inlineData(block)
      if (data === undefined) lines.push(blockAsText(block))
      else {
        media.push({ inlineData: data })
        lines.push(`[${data.mimeType} ${media.length}: attached to this response]`)
      }
    }
    const text = lines.length === 0 ? '(no output)' : lines.join('\n')
    const functionResponse: GeminiFunctionResponse = {
      ...(call.providerCallId !== undefined ? { id: call.providerCallId } : {}),
      name: call.name,
      response: result.isError ? { error: text } : { output: text },
      ...(media.length > 0 ? { parts: media } : {}),
    }
    return { functionResponse }
  })
  for (const block of step.context) {
    const data = inlineData(block)
    parts.push(data === undefined ? { text: blockAsText(block) } : { inlineData: data })
  }
  return { role: 'user', parts }
}

import type { ContentBlock, ToolExecutionResult } from '@dsh/tools-core'
import { assertOptionsObject, ProviderInputError, readingInput } from '../input-error.js'
import type { ParsedToolCall } from '../parsed-call.js'
import { blockAsText, readStep, resourceBlob, resultContent, type StepResultsOptions } from '../step-results.js'
import type { GeminiContent, GeminiFunctionResponse, GeminiInlineData, GeminiPart } from './types.js'

/** Media Gemini takes inline: images, audio, video and PDFs. */
function inlineData(block: ContentBlock): GeminiInlineData | undefined {
  const blob = resourceBlob(block)
  const media = block.type === 'image' || block.type === 'audio' ? { mimeType: block.mimeType, data: block.data } : blob
  if (media?.mimeType === undefined || !/^(?:image|audio|video)\/|^application\/pdf$/.test(media.mimeType)) return undefined
  return { mimeType: media.mimeType, data: media.data }
}

/**
 * Where {@link toGeminiContent} puts a result's images, audio, video and PDFs:
 * - `'function-response-parts'`: inside the result's own `functionResponse.parts` (Gemini's multimodal function
 *   responses, which Google documents for Gemini 3 models; earlier models answer such a request with a 400);
 * - `'separate-parts'`: as `inlineData` parts of the same user content, after every `functionResponse` and before the
 *   step's additional context, each result's media under a text line naming its response (the way a prompt carries
 *   images, which every Gemini model that takes images accepts).
 *
 * The default is `'separate-parts'`; {@link geminiMediaPlacement} picks by model name.
 */
export type GeminiMediaPlacement = 'function-response-parts' | 'separate-parts'

/** Options of {@link toGeminiContent}. */
export interface GeminiContentOptions extends StepResultsOptions {
  /**
   * Where the results' media go ({@link GeminiMediaPlacement}); `'separate-parts'` when omitted. Pass
   * `geminiMediaPlacement(model)` to choose by the model the content is sent to.
   */
  readonly media?: GeminiMediaPlacement | undefined
}

const placements: ReadonlySet<unknown> = new Set<GeminiMediaPlacement>(['function-response-parts', 'separate-parts'])

/**
 * The media placement for a Gemini model name: `'function-response-parts'` for Gemini 3 and later
 * (`gemini-3-pro-preview`, `gemini-3.1-flash`, `models/gemini-3-…`), whose function responses may carry media;
 * `'separate-parts'` for every other name, earlier models and aliases such as `gemini-flash-latest` included (their
 * generation cannot be read off the name, and separate parts are accepted by every model that takes images).
 *
 * @param model - the model name of the request, e.g. `'gemini-2.5-flash'`
 */
export function geminiMediaPlacement(model: string): GeminiMediaPlacement {
  const major = typeof model === 'string' ? /(?:^|\/)gemini-(\d+)(?=[.-]|$)/.exec(model)?.[1] : undefined
  return major !== undefined && Number(major) >= 3 ? 'function-response-parts' : 'separate-parts'
}

/**
 * A step's results as the one Gemini content that answers it: a `functionResponse` part per result, in the
 * results' order and before anything else, each with the call's name and (when Gemini sent one) its id;
 * `response.output` holds the text of a result, `response.error` that of an error result (starting with
 * `Error (CODE): the tool call failed.`); blank text blocks are dropped, and a result left with nothing says
 * `(no output)`. Images, audio, video and PDFs go where `options.media` says ({@link GeminiMediaPlacement}: by
 * default as `inlineData` parts after the responses; with `'function-response-parts'` into each response's
 * `parts`), announced in the response's text; other blocks become text. Then the step's additional context as text
 * and inline-data parts.
 *
 * @param results - the step's results, in the model's order
 * @param calls - the parsed calls of the step (from `parseCalls`): each result is matched to its call by `callId`
 * @param options - where media go, and the additional context when a step runner handed it back separately
 * @throws {@link ProviderInputError} when a result is malformed, answers no call given, or `options.media` is not
 * a placement.
 */
export function toGeminiContent(results: readonly ToolExecutionResult[], calls: readonly ParsedToolCall[], options?: GeminiContentOptions): GeminiContent {
  return readingInput('toGeminiContent', () => geminiContent(results, calls, options))
}

function geminiContent(results: readonly ToolExecutionResult[], calls: readonly ParsedToolCall[], options: GeminiContentOptions | undefined): GeminiContent {
  const what = 'toGeminiContent'
  if (options !== undefined) assertOptionsObject(options, what)
  const placement: unknown = options?.media ?? 'separate-parts'
  if (!placements.has(placement)) {
    throw new ProviderInputError(`${what}: options.media must be 'function-response-parts' or 'separate-parts', not ${JSON.stringify(placement)}`)
  }
  const nested = placement === 'function-response-parts'
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
  const attachments: GeminiPart[] = []
  const parts: GeminiPart[] = step.results.map((result, index): GeminiPart => {
    const call = byId.get(result.callId)?.shift()
    if (call === undefined) throw new ProviderInputError(`${what}: the result for ${JSON.stringify(result.callId)} answers none of the calls given (or more results than calls have that id)`)
    const lines: string[] = []
    const media: { inlineData: GeminiInlineData }[] = []
    for (const block of resultContent(result, 'first')) {
      const data = inlineData(block)
      if (data === undefined) lines.push(blockAsText(block))
      else {
        media.push({ inlineData: data })
        lines.push(`[${data.mimeType} ${media.length}: ${nested ? 'attached to this response' : 'attached after the function responses'}]`)
      }
    }
    const text = lines.join('\n')
    if (!nested && media.length > 0) attachments.push({ text: `Attachments of function response ${index + 1} (${call.name}):` }, ...media)
    const functionResponse: GeminiFunctionResponse = {
      ...(call.providerCallId !== undefined ? { id: call.providerCallId } : {}),
      name: call.name,
      response: result.isError ? { error: text } : { output: text },
      ...(nested && media.length > 0 ? { parts: media } : {}),
    }
    return { functionResponse }
  })
  parts.push(...attachments)
  for (const block of step.context) {
    const data = inlineData(block)
    parts.push(data === undefined ? { text: blockAsText(block) } : { inlineData: data })
  }
  return { role: 'user', parts }
}

import type { ContentBlock, ToolExecutionResult } from '@dsh/tools-core'
import { ProviderInputError, readingInput } from './input-error.js'
import { copyJson, isRecord } from './json-equal.js'

/**
 * One piece of context to place after a step's results: a `HookContext`, or a `StepContext` of the registry's
 * `executeStep` (whose `content` is read-only), so `step.additionalContext` goes in as it is.
 */
export interface StepContextLike {
  /** The blocks to place. */
  readonly content: readonly ContentBlock[]
  /** Who attached it (not sent to the provider). */
  readonly source?: string | undefined
}

/** What every result converter takes besides the results. */
export interface StepResultsOptions {
  /**
   * The context to place after all of the step's results (each entry's content, in order): `executeStep`'s
   * `additionalContext` as it is, or `HookContext`s. Omitted: the `additionalContext` of each result, in the
   * results' order. Pass it when a step runner handed it back separately (then the results' own fields are not
   * read, so nothing is placed twice).
   */
  readonly additionalContext?: readonly StepContextLike[] | undefined
}

const isString = (value: unknown): value is string => typeof value === 'string'

/** Checks one content block's shape; throws {@link ProviderInputError} naming the place. */
function checkBlock(block: unknown, where: string): ContentBlock {
  if (!isRecord(block)) throw new ProviderInputError(`${where} is not a content block object`)
  const ok = (() => {
    switch (block['type']) {
      case 'text':
        return isString(block['text'])
      case 'image':
      case 'audio':
        return isString(block['data']) && isString(block['mimeType'])
      case 'resource_link':
        return isString(block['uri']) && isString(block['name'])
      case 'resource': {
        const resource = block['resource']
        return isRecord(resource) && isString(resource['uri']) && (isString(resource['text']) || isString(resource['blob']))
      }
      default:
        return false
    }
  })()
  if (!ok) throw new ProviderInputError(`${where} is not a well-formed content block (type ${JSON.stringify(block['type'])})`)
  return block as unknown as ContentBlock
}

/** Checks a content list. */
export function checkContent(content: unknown, where: string): readonly ContentBlock[] {
  if (!Array.isArray(content)) throw new ProviderInputError(`${where} is not an array of content blocks`)
  return content.map((block, index) => checkBlock(block, `${where}[${index}]`))
}

/** Reads the step's results and the context to append, checking their shapes (a caller's error is typed). */
export function readStep(
  results: unknown,
  options: StepResultsOptions | undefined,
  what: string,
  answers: 'one per call id' | 'one per result' = 'one per call id',
): { results: readonly ToolExecutionResult[]; context: readonly ContentBlock[] } {
  return readingInput(what, () => {
    const step = readStepUnguarded(results, options, what)
    return answers === 'one per result' ? step : { results: oneAnswerPerId(step.results), context: step.context }
  })
}

/**
 * One result per call id, in the order of each id's first result. A provider that answers calls by id takes one
 * answer per id, so when the model gave two calls one id (the later one is refused by the call parsers), their
 * results go into one answer: a line saying so, then each result under its own heading, in order. The answer is an
 * error only when every result in it is one.
 */
function oneAnswerPerId(results: readonly ToolExecutionResult[]): readonly ToolExecutionResult[] {
  const byId = new Map<string, ToolExecutionResult[]>()
  for (const result of results) {
    const group = byId.get(result.callId)
    if (group === undefined) byId.set(result.callId, [result])
    else group.push(result)
  }
  if (byId.size === results.length) return results
  return [...byId.values()].map((group) => (group.length === 1 ? group[0]! : mergedAnswer(group)))
}

function mergedAnswer(group: readonly ToolExecutionResult[]): ToolExecutionResult {
  const callId = group[0]!.callId
  const content: ContentBlock[] = [{ type: 'text', text: `${group.length} calls in this turn had the id ${JSON.stringify(callId)}; their results follow, in the order of the calls.` }]
  group.forEach((result, index) => {
    const heading = `Call ${index + 1} of ${group.length}${result.isError ? `: ${errorHeading(result)}` : ':'}`
    content.push({ type: 'text', text: heading }, ...resultContent(result, 'given'))
  })
  return { callId, isError: group.every((result) => result.isError), content }
}

function readStepUnguarded(
  results: unknown,
  options: StepResultsOptions | undefined,
  what: string,
): { results: readonly ToolExecutionResult[]; context: readonly ContentBlock[] } {
  if (!Array.isArray(results)) throw new ProviderInputError(`${what} expects an array of tool execution results`)
  if (options !== undefined && !isRecord(options)) throw new ProviderInputError(`${what}: options must be an object`)
  // Each field is read once into a detached copy, then checked: a getter cannot pass the check and hand the
  // conversion something else afterwards.
  const checked = results.map((result: unknown, index): ToolExecutionResult => {
    if (!isRecord(result)) throw new ProviderInputError(`${what}: result ${index} is not a tool execution result ({ callId, content, isError })`)
    const { callId, isError, content, error, additionalContext } = result
    if (!isString(callId) || typeof isError !== 'boolean') {
      throw new ProviderInputError(`${what}: result ${index} is not a tool execution result ({ callId, content, isError })`)
    }
    const copy: ToolExecutionResult = { callId, isError, content: [...checkContent(copyJson(content), `${what}: result ${index} content`)] }
    if (isRecord(error)) copy.error = copyJson(error) as NonNullable<ToolExecutionResult['error']>
    if (additionalContext !== undefined) copy.additionalContext = copyJson(additionalContext) as NonNullable<ToolExecutionResult['additionalContext']>
    return copy
  })
  const given = options?.additionalContext
  const contexts: unknown = given === undefined ? checked.flatMap((result) => (result.additionalContext === undefined ? [] : [result.additionalContext])) : copyJson(given)
  if (!Array.isArray(contexts)) throw new ProviderInputError(`${what}: additionalContext must be an array of { content } objects`)
  const context = contexts.flatMap((entry: unknown, index) => {
    if (!isRecord(entry)) throw new ProviderInputError(`${what}: additionalContext[${index}] is not a { content } object`)
    return checkContent(entry['content'], `${what}: additionalContext[${index}].content`)
  })
  // A blank text block of the context is dropped here, once, for every converter (see sendableBlocks).
  return { results: checked, context: sendableBlocks(context) }
}

/** How many bytes a base64 text holds (for notes about data a provider cannot take). */
export function base64Bytes(data: string): number {
  const clean = data.replace(/\s+/g, '')
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding)
}

/**
 * The text form of a block for a provider that cannot carry it natively: a resource link as its name, URI and
 * facts; an embedded text resource with its URI and text; binary data (audio, a blob, an image a provider cannot
 * take) as a note that it exists and was not shown, so the model never mistakes a missing attachment for an empty one.
 */
export function blockAsText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text
    case 'resource_link': {
      const facts = [block.title, block.mimeType, block.size === undefined ? undefined : `${block.size} bytes`].filter(isString)
      const head = `[resource link: ${block.name} <${block.uri}>${facts.length > 0 ? ` (${facts.join(', ')})` : ''}]`
      return block.description === undefined ? head : `${head}\n${block.description}`
    }
    case 'resource': {
      const { resource } = block
      const mime = resource.mimeType === undefined ? '' : ` (${resource.mimeType})`
      if ('text' in resource && isString(resource.text)) return `[resource <${resource.uri}>${mime}]\n${resource.text}`
      return `[resource <${resource.uri}>${mime}: ${base64Bytes((resource as { blob: string }).blob)} bytes of binary data, not shown]`
    }
    case 'image':
    case 'audio':
      return `[${block.type} (${block.mimeType}), ${base64Bytes(block.data)} bytes, not shown: this provider cannot take it here]`
  }
}

/** What a result with nothing left to send says: no provider gets an empty answer (Anthropic rejects one). */
export const NO_OUTPUT = '(no output)'

/** True for a text block whose text is empty or only whitespace: such a block is never sent. */
function isBlankText(block: ContentBlock): boolean {
  return block.type === 'text' && block.text.trim() === ''
}

/**
 * The blocks worth sending: every text block that is empty or only whitespace dropped (Anthropic answers an empty
 * text block with a 400, "text content blocks must be non-empty", inside a `tool_result` too), everything else
 * kept in order. Used for the step's additional context, and by {@link resultContent} for each result.
 */
export function sendableBlocks(blocks: readonly ContentBlock[]): ContentBlock[] {
  return blocks.filter((block) => !isBlankText(block))
}

/**
 * Where a converter puts an error result's `Error (CODE): the tool call failed.` line: `'first'` for a provider
 * with no error flag of its own (OpenAI, Gemini's `response.error` text, the AI SDK's `error-text`), `'when-empty'`
 * for one that flags the error itself (Anthropic's `is_error`: the line stands in only for an empty error), and
 * `'given'` when the caller wrote it already (a merged answer's `Call i of N:` heading).
 */
export type ErrorHeadingPlace = 'first' | 'when-empty' | 'given'

/**
 * The one rule every converter (OpenAI Chat and Responses, Anthropic, Gemini, the AI SDK's model output) follows
 * for what a result says: its blocks without blank text ({@link sendableBlocks}), the error line placed as `heading`
 * says, and, when nothing at all is left, `(no output)` for a success (or for an error whose line was given) and
 * the error line for an error. The list is never empty, and no text block in it is empty or whitespace.
 */
export function resultContent(result: ToolExecutionResult, heading: ErrorHeadingPlace): ContentBlock[] {
  const blocks = sendableBlocks(result.content)
  if (result.isError && heading === 'first') return [{ type: 'text', text: errorHeading(result) }, ...blocks]
  if (blocks.length > 0) return blocks
  return [{ type: 'text', text: result.isError && heading === 'when-empty' ? errorHeading(result) : NO_OUTPUT }]
}

/** The first line an error result gets where the provider has no error flag: `Error (CODE):`. */
export function errorHeading(result: ToolExecutionResult): string {
  const code = isRecord(result.error) && isString(result.error['code']) ? ` (${result.error['code']})` : ''
  return `Error${code}: the tool call failed.`
}

/** An embedded resource's blob as `{ mimeType, data }`, or `undefined` for a text resource. */
export function resourceBlob(block: ContentBlock): { mimeType: string | undefined; data: string } | undefined {
  if (block.type !== 'resource' || !('blob' in block.resource) || !isString(block.resource.blob)) return undefined
  return { mimeType: block.resource.mimeType, data: block.resource.blob }
}

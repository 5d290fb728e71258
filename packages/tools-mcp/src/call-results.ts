import type { ContentAnnotations, ContentBlock, JsonObject, JsonValue } from '@dsh/tools-core'
import { McpCallError } from './mcp-call-error.js'
import { MCP_ERROR_CODES } from './mcp-error-codes.js'
import { checkOutput } from './output-check.js'
import { cutUtf8, DEFAULT_RESULT_BOUNDS, nestsDeeperThan, type ResultBounds } from './result-bounds.js'
import { quoteBounded } from './schema-gate.js'
import type { McpCallResult, McpContentBlock } from './session-types.js'

/** What a successful call hands the registry: the bounded content, `meta`, and the structured value. */
export interface MappedResult {
  content: ContentBlock[]
  meta: { mcp: McpResultMeta }
  structuredContent?: JsonValue
}

/** The `meta.mcp` of an MCP tool's result: where it came from and what bounding removed. */
export interface McpResultMeta {
  /** The configured server id. */
  readonly server: string
  /** The tool's name on the wire. */
  readonly tool: string
  /**
   * Present when bounding changed the content: text bytes cut (every string of every block counts), blocks
   * dropped past `maxBlocks`, binary blocks replaced, and whether `structuredContent` was left out (over
   * `maxStructuredBytes` or `maxStructuredDepth`, or its check over `maxCheckCost`).
   */
  readonly truncated?: { readonly textBytes: number; readonly blocks: number; readonly binaryBlocks: number; readonly structuredContent: boolean } | undefined
}

const str = (value: unknown): value is string => typeof value === 'string'

/** The longest MIME type kept (RFC 6838: 127 characters each for type and subtype). */
const maxMimeType = 255
/** The longest `lastModified` kept: an ISO 8601 timestamp is about 30 characters. */
const maxTimestamp = 64
/** Characters of a server's string quoted inside one of this client's placeholders. */
const maxQuoted = 100

function annotationsOf(block: McpContentBlock): ContentAnnotations | undefined {
  const raw = block.annotations
  if (typeof raw !== 'object' || raw === null) return undefined
  const source = raw as Record<string, unknown>
  const out: ContentAnnotations = {}
  if (Array.isArray(source.audience)) {
    // At most the two roles, each once, whatever the server repeats.
    const audience = (['user', 'assistant'] as const).filter((role) => (source.audience as unknown[]).includes(role))
    if (audience.length > 0 || source.audience.length === 0) out.audience = audience
  }
  if (typeof source.priority === 'number' && Number.isFinite(source.priority)) out.priority = source.priority
  if (str(source.lastModified) && source.lastModified.length <= maxTimestamp) out.lastModified = source.lastModified
  return Object.keys(out).length > 0 ? out : undefined
}

function withAnnotations<T extends ContentBlock>(target: T, block: McpContentBlock): T {
  const annotations = annotationsOf(block)
  if (annotations !== undefined) target.annotations = annotations
  return target
}

/** The result-wide budget of model-facing text, and what bounding removed. */
class Bounder {
  textLeft: number
  omittedText = 0
  droppedBinary = 0
  constructor(readonly bounds: ResultBounds) {
    this.textLeft = bounds.maxTextBytes
  }

  #take(text: string): { text: string; omitted: number } {
    const cut = cutUtf8(text, Math.max(0, this.textLeft))
    this.textLeft -= Buffer.byteLength(cut.text, 'utf8')
    this.omittedText += cut.omitted
    return cut
  }

  /** Text the model reads (a text block, an embedded text resource, a description): cut with a marker line. */
  text(text: string): string {
    const cut = this.#take(text)
    return cut.omitted === 0 ? text : `${cut.text}\n[${cut.omitted} bytes of this output were cut by the MCP client]`
  }

  /** A one-line field (a name, a title): cut with a short marker. */
  field(text: string): string {
    const cut = this.#take(text)
    return cut.omitted === 0 ? text : `${cut.text}… [${cut.omitted} bytes cut by the MCP client]`
  }

  /**
   * An identifier (a URI), which a cut would make wrong: kept whole when it fits the budget left, else `undefined`
   * (the caller replaces the block with a placeholder) and its bytes counted as cut.
   */
  identifier(text: string): string | undefined {
    // A UTF-16 unit is at least one UTF-8 byte: a text longer than the budget in units is over it in bytes.
    const bytes = text.length <= this.textLeft ? Buffer.byteLength(text, 'utf8') : Number.POSITIVE_INFINITY
    if (bytes <= this.textLeft) {
      this.textLeft -= bytes
      return text
    }
    this.omittedText += Buffer.byteLength(text, 'utf8')
    return undefined
  }

  binary(data: unknown): string | undefined {
    if (!str(data)) return undefined
    if (data.length <= this.bounds.maxBinaryBytes) return data
    this.droppedBinary += 1
    return undefined
  }

  placeholder(what: string, size: number): ContentBlock {
    return { type: 'text', text: `[${what} of ${size} bytes omitted: over the MCP client's limit of ${this.bounds.maxBinaryBytes}]` }
  }
}

/** A server's string inside one of this client's own placeholders: short, whatever its size. */
const quoted = (text: string): string => quoteBounded(text, maxQuoted)

/** A MIME type as the model sees it: short (not counted against the text budget, so media never vanish for text), or none. */
const mimeTypeOf = (value: unknown): string | undefined => (str(value) && value.length <= maxMimeType ? value : undefined)

function mapBlock(block: McpContentBlock, bounder: Bounder): ContentBlock {
  switch (block.type) {
    case 'text':
      return withAnnotations({ type: 'text', text: bounder.text(str(block.text) ? block.text : '') }, block)
    case 'image':
    case 'audio': {
      if (!str(block.mimeType) || !str(block.data)) return { type: 'text', text: `[malformed ${block.type} block from the MCP server]` }
      const mimeType = mimeTypeOf(block.mimeType)
      if (mimeType === undefined) return { type: 'text', text: `[${block.type} block omitted: its MIME type ${quoted(block.mimeType)} is longer than ${maxMimeType} characters]` }
      const data = bounder.binary(block.data)
      if (data === undefined) return bounder.placeholder(`${block.type} (${mimeType})`, block.data.length)
      return withAnnotations({ type: block.type, data, mimeType }, block)
    }
    case 'resource_link': {
      if (!str(block.uri) || !str(block.name)) return { type: 'text', text: '[malformed resource_link block from the MCP server]' }
      const uri = bounder.identifier(block.uri)
      if (uri === undefined) {
        return { type: 'text', text: `[resource_link ${quoted(block.name)} omitted: its URI of ${block.uri.length} characters is over the MCP client's text limit (maxTextBytes)]` }
      }
      const link: ContentBlock = { type: 'resource_link', uri, name: bounder.field(block.name) }
      if (str(block.title)) link.title = bounder.field(block.title)
      if (str(block.description)) link.description = bounder.text(block.description)
      const mimeType = mimeTypeOf(block.mimeType)
      if (mimeType !== undefined) link.mimeType = mimeType
      if (typeof block.size === 'number' && Number.isFinite(block.size)) link.size = block.size
      return withAnnotations(link, block)
    }
    case 'resource': {
      const resource = block.resource as Record<string, unknown> | undefined
      if (typeof resource !== 'object' || resource === null || !str(resource.uri)) {
        return { type: 'text', text: '[malformed resource block from the MCP server]' }
      }
      const uri = bounder.identifier(resource.uri)
      if (uri === undefined) return { type: 'text', text: `[resource omitted: its URI of ${resource.uri.length} characters is over the MCP client's text limit (maxTextBytes)]` }
      const type = mimeTypeOf(resource.mimeType)
      const mimeType = type === undefined ? {} : { mimeType: type }
      if (str(resource.text)) {
        return withAnnotations({ type: 'resource', resource: { uri, ...mimeType, text: bounder.text(resource.text) } }, block)
      }
      const blob = bounder.binary(resource.blob)
      if (blob === undefined) return bounder.placeholder(`resource ${quoted(uri)}`, str(resource.blob) ? resource.blob.length : 0)
      return withAnnotations({ type: 'resource', resource: { uri, ...mimeType, blob } }, block)
    }
    default:
      return { type: 'text', text: `[MCP content block of type ${quoted(String(block.type))} is not supported by this client]` }
  }
}

function boundsWithDefaults(bounds: ResultBounds): ResultBounds {
  return { ...DEFAULT_RESULT_BOUNDS, ...bounds }
}

/**
 * Maps the server's content 1:1 onto dsh blocks within `bounds` (the blocks past `maxBlocks` become one marker).
 * Every string of every block counts against `maxTextBytes`: text is cut with a marker, an identifier (a URI, a
 * MIME type) is kept whole or its block replaced by a placeholder, never cut into a wrong one.
 */
export function mapContent(blocks: readonly McpContentBlock[], bounds: ResultBounds): { content: ContentBlock[]; bounder: Bounder; droppedBlocks: number } {
  const bounder = new Bounder(boundsWithDefaults(bounds))
  const list = Array.isArray(blocks) ? blocks : []
  const kept = list.slice(0, bounds.maxBlocks)
  const content = kept.map((block) => (typeof block === 'object' && block !== null ? mapBlock(block, bounder) : { type: 'text' as const, text: '[malformed MCP content block]' }))
  const droppedBlocks = list.length - kept.length
  if (droppedBlocks > 0) content.push({ type: 'text', text: `[${droppedBlocks} more content blocks were dropped by the MCP client]` })
  return { content, bounder, droppedBlocks }
}

function errorText(content: readonly ContentBlock[]): string {
  const text = content.map((block) => (block.type === 'text' ? block.text : `[${block.type} block]`)).join('\n')
  return text === '' ? 'The MCP server reported an error without details.' : text
}

/** Where a result came from, its bounds, and the gated `outputSchema` (its `check` form) its value is held to. */
export interface MapCallResultContext {
  readonly server: string
  readonly tool: string
  readonly bounds: ResultBounds
  /** The schema `structuredContent` is checked against (`gateOutputSchema(…).check`); none: no check. */
  readonly outputSchema?: JsonObject | undefined
}

/**
 * Turns a server's `tools/call` result into what the tool body returns. `isError: true` throws
 * {@link McpCallError} `MCP_SERVER_ERROR` carrying the server's own content, every block mapped and bounded as for
 * a success (its `structuredContent` is not validated and not carried); a `resultType` other than `complete` (an
 * MRTR `input_required`) throws `MCP_INPUT_REQUIRED`. With an `outputSchema`, a success must carry a
 * `structuredContent` that matches it (`MCP_INVALID_OUTPUT` otherwise, also when it nests deeper than
 * `maxStructuredDepth`); the check runs on the linear-time pattern engine within `maxCheckCost`. A value over
 * `maxStructuredBytes` (or `maxStructuredDepth` without a schema, or whose check would cost more than
 * `maxCheckCost`) is left out, unchecked, and `meta.mcp.truncated.structuredContent` says so.
 */
export function mapCallResult(result: McpCallResult, context: MapCallResultContext): MappedResult {
  const bounds = boundsWithDefaults(context.bounds)
  const { content, bounder, droppedBlocks } = mapContent(result.content, bounds)
  const where = `The MCP tool ${quoteBounded(context.tool)} of server ${JSON.stringify(context.server)}`
  if (result.resultType !== undefined && result.resultType !== 'complete') {
    throw new McpCallError(
      MCP_ERROR_CODES.INPUT_REQUIRED,
      `${where} asked for user input (resultType ${quoteBounded(String(result.resultType))}), which this client cannot provide.`,
      context.server,
    )
  }
  // The server's own blocks (images too, bounded like a success's) are what the model reads; its structuredContent
  // is neither validated nor carried, since an error has no value.
  if (result.isError === true) throw new McpCallError(MCP_ERROR_CODES.SERVER_ERROR, errorText(content), context.server, { content })
  const invalid = (why: string): McpCallError => new McpCallError(MCP_ERROR_CODES.INVALID_OUTPUT, `${where} returned ${why}`, context.server)
  const schema = context.outputSchema
  let structured: JsonValue | undefined = result.structuredContent
  let omitted: string | undefined
  if (structured === undefined) {
    if (schema !== undefined) throw invalid('no structuredContent, although its outputSchema says every result carries one.')
  } else if (nestsDeeperThan(structured, bounds.maxStructuredDepth)) {
    // Never walked further: no recursion, no serialization, no check on a value this deep.
    if (schema !== undefined) throw invalid(`structuredContent nested deeper than ${bounds.maxStructuredDepth} levels (output.maxStructuredDepth); it was not read.`)
    omitted = `it nests deeper than ${bounds.maxStructuredDepth} levels (output.maxStructuredDepth)`
  } else {
    const size = JSON.stringify(structured).length
    if (size > bounds.maxStructuredBytes) {
      omitted = `it is ${size} bytes, over the MCP client's limit of ${bounds.maxStructuredBytes} (output.maxStructuredBytes)`
    } else if (schema !== undefined) {
      const outcome = checkOutput(schema, structured, bounds.maxCheckCost)
      if (outcome.kind === 'invalid') throw invalid(`structuredContent that does not match its outputSchema: ${outcome.message}`)
      if (outcome.kind === 'too-costly') omitted = `checking it against the outputSchema took more than the MCP client's limit of ${bounds.maxCheckCost} units of work (output.maxCheckCost), so it was not checked`
    }
  }
  if (omitted !== undefined) structured = undefined
  const truncated =
    bounder.omittedText > 0 || droppedBlocks > 0 || bounder.droppedBinary > 0 || omitted !== undefined
      ? { textBytes: bounder.omittedText, blocks: droppedBlocks, binaryBlocks: bounder.droppedBinary, structuredContent: omitted !== undefined }
      : undefined
  const mcp: McpResultMeta = truncated === undefined ? { server: context.server, tool: context.tool } : { server: context.server, tool: context.tool, truncated }
  if (content.length === 0) {
    // A server that answers only with structuredContent still tells the model something.
    if (structured !== undefined) content.push({ type: 'text', text: bounder.text(JSON.stringify(structured)) })
    else if (omitted !== undefined) content.push({ type: 'text', text: `[the result's structuredContent was left out by the MCP client: ${omitted}]` })
  }
  const mapped: MappedResult = { content, meta: { mcp } }
  if (structured !== undefined) {
    // The canonical value travels as structuredContent only: `meta` is a replayable projection a session log
    // keeps, and the value must not be persisted with it.
    mapped.structuredContent = structured
  }
  return mapped
}

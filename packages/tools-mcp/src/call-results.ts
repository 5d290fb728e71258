import type { ContentAnnotations, ContentBlock, JsonValue } from '@dsh/tools-core'
import { McpCallError } from './mcp-call-error.js'
import { MCP_ERROR_CODES } from './mcp-error-codes.js'
import { cutUtf8, type ResultBounds } from './result-bounds.js'
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
  /** Present when bounding changed the content. */
  readonly truncated?: { readonly textBytes: number; readonly blocks: number; readonly binaryBlocks: number; readonly structuredContent: boolean } | undefined
}

const str = (value: unknown): value is string => typeof value === 'string'

function annotationsOf(block: McpContentBlock): ContentAnnotations | undefined {
  const raw = block.annotations
  if (typeof raw !== 'object' || raw === null) return undefined
  const source = raw as Record<string, unknown>
  const out: ContentAnnotations = {}
  if (Array.isArray(source.audience)) out.audience = source.audience.filter((item): item is 'user' | 'assistant' => item === 'user' || item === 'assistant')
  if (typeof source.priority === 'number' && Number.isFinite(source.priority)) out.priority = source.priority
  if (str(source.lastModified)) out.lastModified = source.lastModified
  return Object.keys(out).length > 0 ? out : undefined
}

function withAnnotations<T extends ContentBlock>(target: T, block: McpContentBlock): T {
  const annotations = annotationsOf(block)
  if (annotations !== undefined) target.annotations = annotations
  return target
}

class Bounder {
  textLeft: number
  omittedText = 0
  droppedBinary = 0
  constructor(readonly bounds: ResultBounds) {
    this.textLeft = bounds.maxTextBytes
  }

  text(text: string): string {
    const cut = cutUtf8(text, this.textLeft)
    this.textLeft -= Buffer.byteLength(cut.text, 'utf8')
    if (cut.omitted === 0) return text
    this.omittedText += cut.omitted
    return `${cut.text}\n[${cut.omitted} bytes of this output were cut by the MCP client]`
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

function mapBlock(block: McpContentBlock, bounder: Bounder): ContentBlock {
  switch (block.type) {
    case 'text':
      return withAnnotations({ type: 'text', text: bounder.text(str(block.text) ? block.text : '') }, block)
    case 'image':
    case 'audio': {
      if (!str(block.mimeType) || !str(block.data)) return { type: 'text', text: `[malformed ${block.type} block from the MCP server]` }
      const data = bounder.binary(block.data)
      if (data === undefined) return bounder.placeholder(`${block.type} (${block.mimeType})`, block.data.length)
      return withAnnotations({ type: block.type, data, mimeType: block.mimeType }, block)
    }
    case 'resource_link': {
      if (!str(block.uri) || !str(block.name)) return { type: 'text', text: '[malformed resource_link block from the MCP server]' }
      const link: ContentBlock = { type: 'resource_link', uri: block.uri, name: block.name }
      if (str(block.title)) link.title = block.title
      if (str(block.description)) link.description = bounder.text(block.description)
      if (str(block.mimeType)) link.mimeType = block.mimeType
      if (typeof block.size === 'number' && Number.isFinite(block.size)) link.size = block.size
      return withAnnotations(link, block)
    }
    case 'resource': {
      const resource = block.resource as Record<string, unknown> | undefined
      if (typeof resource !== 'object' || resource === null || !str(resource.uri)) {
        return { type: 'text', text: '[malformed resource block from the MCP server]' }
      }
      const mimeType = str(resource.mimeType) ? { mimeType: resource.mimeType } : {}
      if (str(resource.text)) {
        return withAnnotations({ type: 'resource', resource: { uri: resource.uri, ...mimeType, text: bounder.text(resource.text) } }, block)
      }
      const blob = bounder.binary(resource.blob)
      if (blob === undefined) return bounder.placeholder(`resource ${resource.uri}`, str(resource.blob) ? resource.blob.length : 0)
      return withAnnotations({ type: 'resource', resource: { uri: resource.uri, ...mimeType, blob } }, block)
    }
    default:
      return { type: 'text', text: `[MCP content block of type ${JSON.stringify(String(block.type))} is not supported by this client]` }
  }
}

/** Maps the server's content 1:1 onto dsh blocks within `bounds` (the blocks past `maxBlocks` become one marker). */
export function mapContent(blocks: readonly McpContentBlock[], bounds: ResultBounds): { content: ContentBlock[]; bounder: Bounder; droppedBlocks: number } {
  const bounder = new Bounder(bounds)
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

/**
 * Turns a server's `tools/call` result into what the tool body returns. `isError: true` throws
 * {@link McpCallError} `MCP_SERVER_ERROR` carrying the server's own content, every block mapped and bounded as for
 * a success (its `structuredContent` is not validated and not carried); a `resultType` other than `complete` (an MRTR `input_required`) throws `MCP_INPUT_REQUIRED`.
 */
export function mapCallResult(result: McpCallResult, context: { server: string; tool: string; bounds: ResultBounds }): MappedResult {
  const { content, bounder, droppedBlocks } = mapContent(result.content, context.bounds)
  if (result.resultType !== undefined && result.resultType !== 'complete') {
    throw new McpCallError(
      MCP_ERROR_CODES.INPUT_REQUIRED,
      `The MCP tool ${JSON.stringify(context.tool)} of server ${JSON.stringify(context.server)} asked for user input (resultType ${JSON.stringify(result.resultType)}), which this client cannot provide.`,
      context.server,
    )
  }
  // The server's own blocks (images too, bounded like a success's) are what the model reads; its structuredContent
  // is neither validated nor carried, since an error has no value.
  if (result.isError === true) throw new McpCallError(MCP_ERROR_CODES.SERVER_ERROR, errorText(content), context.server, { content })
  let structured: JsonValue | undefined = result.structuredContent
  let structuredDropped = false
  if (structured !== undefined && JSON.stringify(structured).length > context.bounds.maxStructuredBytes) {
    structured = undefined
    structuredDropped = true
  }
  const truncated =
    bounder.omittedText > 0 || droppedBlocks > 0 || bounder.droppedBinary > 0 || structuredDropped
      ? { textBytes: bounder.omittedText, blocks: droppedBlocks, binaryBlocks: bounder.droppedBinary, structuredContent: structuredDropped }
      : undefined
  const mcp: McpResultMeta = truncated === undefined ? { server: context.server, tool: context.tool } : { server: context.server, tool: context.tool, truncated }
  if (content.length === 0 && structured !== undefined) {
    // A server that answers only with structuredContent still tells the model something.
    content.push({ type: 'text', text: bounder.text(JSON.stringify(structured)) })
  }
  const mapped: MappedResult = { content, meta: { mcp } }
  if (structured !== undefined) {
    // The canonical value travels as structuredContent only: `meta` is a replayable projection a session log
    // keeps, and the value must not be persisted with it.
    mapped.structuredContent = structured
  }
  return mapped
}

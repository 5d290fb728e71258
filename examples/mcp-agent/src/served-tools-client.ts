import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

/** Where a served registry listens, and the bearer token it wants. */
export interface ServedToolsEndpoint {
  readonly url: string
  readonly token: string
}

/** What a `tools/call` came back with, read the way any MCP client reads it. */
export interface ServedCallResult {
  /** The text blocks, joined. */
  readonly text: string
  readonly isError: boolean
  /** `_meta['dsh/error']` of an error result: the registry's error, as data. */
  readonly error: { readonly name: string; readonly code: string } | undefined
}

/** A connected client of a served registry. Close it (or `await using` it) to end its session. */
export interface ServedToolsClient extends AsyncDisposable {
  /** The names `tools/list` announced, sorted. */
  toolNames(): Promise<string[]>
  call(name: string, args: Record<string, unknown>): Promise<ServedCallResult>
  close(): Promise<void>
}

function readError(meta: unknown): ServedCallResult['error'] {
  if (typeof meta !== 'object' || meta === null) return undefined
  const error: unknown = (meta as Record<string, unknown>)['dsh/error']
  if (typeof error !== 'object' || error === null) return undefined
  const { name, code } = error as Record<string, unknown>
  return typeof name === 'string' && typeof code === 'string' ? { name, code } : undefined
}

/**
 * Connects the official MCP SDK's client (`@modelcontextprotocol/sdk`, the v1 line most hosts embed) to a registry
 * served with `serveToolsHttp`: Streamable HTTP, a 2025-era session (`initialize`, `Mcp-Session-Id`), the token as
 * `Authorization: Bearer …`. Nothing here knows about dsh: it is what Claude Desktop, an IDE or another agent does.
 */
export async function openServedToolsClient(endpoint: ServedToolsEndpoint): Promise<ServedToolsClient> {
  const transport = new StreamableHTTPClientTransport(new URL(endpoint.url), {
    requestInit: { headers: { authorization: `Bearer ${endpoint.token}` } },
  })
  const client = new Client({ name: 'mcp-agent-client', version: '0.0.0' })
  await client.connect(transport)
  let closed = false
  const close = async (): Promise<void> => {
    if (closed) return
    closed = true
    // DELETE ends the session on the server; close() then aborts the client's GET stream.
    await transport.terminateSession().catch(() => {})
    await client.close()
  }
  return {
    async toolNames() {
      const { tools } = await client.listTools()
      return tools.map((tool) => tool.name).sort()
    },
    async call(name, args) {
      const result = await client.callTool({ name, arguments: args })
      const content = Array.isArray(result.content) ? (result.content as { type: string; text?: unknown }[]) : []
      const text = content.flatMap((block) => (block.type === 'text' && typeof block.text === 'string' ? [block.text] : [])).join('\n')
      return { text, isError: result.isError === true, error: readError(result._meta) }
    },
    close,
    [Symbol.asyncDispose]: close,
  }
}

import { randomUUID } from 'node:crypto'
import { createServer, type Server as HttpServer } from 'node:http'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { CallToolRequestSchema, isInitializeRequest, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

/** What {@link startLegacyHttpServer} returns. */
export interface LegacyHttpServer {
  readonly url: string
  /** The method of every JSON-RPC message POSTed so far, in order (`server/discover` included). */
  readonly methods: readonly string[]
  close(): Promise<void>
}

/**
 * A 2025-era-only Streamable HTTP MCP server on 127.0.0.1, as every npm reference server is: SDK v1, stateful, one
 * `ping` tool. Like the SDK v1 examples, a request without a session that is not `initialize` (the 2026-07-28
 * `server/discover` probe) gets HTTP 400 with JSON-RPC -32000. With `failFirstInitialize`, the first `initialize`
 * gets HTTP 500 (a flaky first connect), so the client connects again. With `hangOnDelete`, a `DELETE` (the end of
 * a session) is never answered.
 */
export async function startLegacyHttpServer(options: { readonly failFirstInitialize?: boolean; readonly hangOnDelete?: boolean } = {}): Promise<LegacyHttpServer> {
  const methods: string[] = []
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  let failedOnce = false
  const http: HttpServer = createServer((request, response) => {
    void (async () => {
      const chunks: Buffer[] = []
      for await (const chunk of request) chunks.push(chunk as Buffer)
      const text = Buffer.concat(chunks).toString('utf8')
      let body: unknown
      try {
        body = text === '' ? undefined : JSON.parse(text)
      } catch {}
      const method = (body as { method?: unknown } | undefined)?.method
      if (request.method === 'POST' && typeof method === 'string') methods.push(method)
      if (request.method === 'DELETE' && options.hangOnDelete === true) return
      const sessionId = request.headers['mcp-session-id']
      let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined
      if (transport === undefined) {
        if (request.method !== 'POST' || !isInitializeRequest(body)) {
          const id = (body as { id?: unknown } | undefined)?.id ?? null
          response.writeHead(400, { 'content-type': 'application/json' })
          response.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message: 'Bad Request: No valid session ID provided' } }))
          return
        }
        if (options.failFirstInitialize === true && !failedOnce) {
          failedOnce = true
          response.writeHead(500).end('flaky')
          return
        }
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void sessions.set(id, created),
        })
        transport = created
        const server = new Server({ name: 'legacy-only', version: '1.0.0' }, { capabilities: { tools: {} } })
        server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'ping', inputSchema: { type: 'object' as const, properties: {} } }] }))
        server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: 'text' as const, text: 'pong' }] }))
        await server.connect(transport)
      }
      await transport.handleRequest(request, response, body)
    })().catch(() => response.destroy())
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const address = http.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    methods,
    close: async () => {
      await Promise.all([...sessions.values()].map((transport) => transport.close().catch(() => {})))
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
}

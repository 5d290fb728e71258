import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http'
import { createMcpHandler, fromJsonSchema, McpServer } from '@modelcontextprotocol/server'

/** A Streamable HTTP MCP server on 127.0.0.1 (both protocol eras), with one `add` tool; requests need the bearer token. */
export async function startHttpServer(token: string): Promise<{ url: string; close(): Promise<void>; requests: number }> {
  const build = (): McpServer => {
    const server = new McpServer({ name: 'http-fixture', version: '1.0.0' })
    server.registerTool(
      'add',
      {
        description: 'Adds two numbers.',
        inputSchema: fromJsonSchema({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] }),
        outputSchema: fromJsonSchema({ type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] }),
        annotations: { readOnlyHint: true, destructiveHint: false },
      },
      async (args: unknown) => {
        const { a, b } = args as { a: number; b: number }
        return { content: [{ type: 'text' as const, text: String(a + b) }], structuredContent: { sum: a + b } }
      },
    )
    return server
  }
  const handler = createMcpHandler(() => build())
  const state = { requests: 0 }
  const http: HttpServer = createServer((request: IncomingMessage, response) => {
    state.requests += 1
    if (request.headers.authorization !== `Bearer ${token}`) {
      response.writeHead(401).end()
      return
    }
    void (async () => {
      const chunks: Buffer[] = []
      for await (const chunk of request) chunks.push(chunk as Buffer)
      const headers = new Headers()
      for (const [key, value] of Object.entries(request.headers)) if (typeof value === 'string') headers.set(key, value)
      const method = request.method ?? 'GET'
      const init: RequestInit = method === 'GET' || method === 'HEAD' ? { method, headers } : { method, headers, body: Buffer.concat(chunks) }
      const answer = await handler.fetch(new Request(`http://127.0.0.1${request.url ?? '/'}`, init))
      response.writeHead(answer.status, Object.fromEntries(answer.headers))
      if (answer.body === null) {
        response.end()
        return
      }
      const reader = answer.body.getReader()
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        response.write(value)
      }
      response.end()
    })().catch(() => response.destroy())
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const address = http.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    get requests() {
      return state.requests
    },
    close: async () => {
      await handler.close?.()
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
}

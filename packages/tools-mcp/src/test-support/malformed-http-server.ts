import { createServer, type Server as HttpServer } from 'node:http'

/**
 * A hand-written 2025-era Streamable HTTP MCP server on 127.0.0.1 (no SDK, no sessions) whose `tools/call` answers
 * are malformed on purpose: `null_json` answers `"result": null` in a JSON body, `null_sse` in an event stream
 * (after a notification, with CRLF line ends), `array_sse` answers `"result": []` across several `data:` lines;
 * `ok_sse` answers properly in an event stream.
 */
export async function startMalformedHttpServer(): Promise<{ url: string; close(): Promise<void> }> {
  const tools = ['null_json', 'null_sse', 'array_sse', 'ok_sse'].map((name) => ({ name, description: `The ${name} tool`, inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true } }))
  const http: HttpServer = createServer((request, response) => {
    if (request.method !== 'POST') {
      response.writeHead(405).end()
      return
    }
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: number | string; method: string; params?: { name?: string; protocolVersion?: string } }
      if (message.id === undefined) {
        response.writeHead(202).end()
        return
      }
      const json = (body: unknown): void => {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...(body as object) }))
      }
      const sse = (text: string): void => {
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
        response.end(text)
      }
      const data = (body: unknown): string => JSON.stringify({ jsonrpc: '2.0', id: message.id, ...(body as object) })
      switch (message.method) {
        case 'initialize':
          return json({ result: { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'malformed-http', version: '1.0.0' } } })
        case 'tools/list':
          return json({ result: { tools } })
        case 'tools/call':
          switch (message.params?.name) {
            case 'null_json':
              return json({ result: null })
            case 'null_sse':
              return sse(
                `event: message\r\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'working' } })}\r\n\r\n` +
                  `: a comment\r\nid: 7\r\nevent: message\r\ndata: ${data({ result: null })}\r\n\r\n`,
              )
            case 'array_sse': {
              const [head, tail] = [data({ result: [] }).slice(0, 10), data({ result: [] }).slice(10)]
              return sse(`data: ${head}\ndata:${tail}\n\n`)
            }
            default:
              return sse(`event: message\ndata: ${data({ result: { content: [{ type: 'text', text: 'fine' }] } })}\n\n`)
          }
        default:
          return json({ error: { code: -32601, message: `Method not found: ${message.method}` } })
      }
    })
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const address = http.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections()
        http.close(() => resolve())
      }),
  }
}

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'

/** What {@link startListenProxy} returns. */
export interface ListenProxy {
  readonly url: string
  /** `subscriptions/listen` requests seen so far. */
  readonly listenRequests: number
  /** Listen streams open right now, and the most ever open at once. */
  readonly openListenStreams: number
  readonly maxOpenListenStreams: number
  /** Ends every open listen stream from the server side, without a response: a dropped stream (`remote`). */
  dropListenStreams(): void
  close(): Promise<void>
}

const hopByHop = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host'])

function isListen(body: Buffer): { id: unknown } | undefined {
  try {
    const message = JSON.parse(body.toString('utf8')) as { method?: unknown; id?: unknown }
    return message.method === 'subscriptions/listen' ? { id: message.id } : undefined
  } catch {
    return undefined
  }
}

/**
 * A Streamable HTTP proxy on 127.0.0.1 in front of an MCP endpoint (`upstream`), which sees the listen streams:
 * it counts them, can drop them from the server side, and with `listen: 'method-not-found'` answers every
 * `subscriptions/listen` with JSON-RPC -32601 itself, as a server that does not offer it would.
 */
export async function startListenProxy(upstream: string, options: { listen?: 'pass' | 'method-not-found' } = {}): Promise<ListenProxy> {
  const streams = new Set<ServerResponse>()
  const state = { listenRequests: 0, max: 0 }
  const upstreamAborts = new Set<AbortController>()
  const forward = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks)
    const listen = request.method === 'POST' ? isListen(body) : undefined
    if (listen !== undefined) {
      state.listenRequests += 1
      if (options.listen === 'method-not-found') {
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(JSON.stringify({ jsonrpc: '2.0', id: listen.id, error: { code: -32601, message: 'Method not found' } }))
        return
      }
    }
    const headers = new Headers()
    for (const [key, value] of Object.entries(request.headers)) if (typeof value === 'string' && !hopByHop.has(key)) headers.set(key, value)
    const abort = new AbortController()
    upstreamAborts.add(abort)
    try {
      const method = request.method ?? 'GET'
      const answer = await fetch(upstream, { method, headers, signal: abort.signal, ...(method === 'GET' || method === 'HEAD' ? {} : { body }) })
      const out: Record<string, string> = {}
      answer.headers.forEach((value, key) => {
        if (!hopByHop.has(key)) out[key] = value
      })
      response.writeHead(answer.status, out)
      if (listen !== undefined) {
        streams.add(response)
        state.max = Math.max(state.max, streams.size)
        response.on('close', () => {
          streams.delete(response)
          abort.abort()
        })
      }
      if (answer.body === null) return void response.end()
      const reader = answer.body.getReader()
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        response.write(value)
      }
      response.end()
    } finally {
      upstreamAborts.delete(abort)
    }
  }
  const http = createServer((request, response) => {
    void forward(request, response).catch(() => response.destroy())
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()))
  const address = http.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    get listenRequests() {
      return state.listenRequests
    },
    get openListenStreams() {
      return streams.size
    },
    get maxOpenListenStreams() {
      return state.max
    },
    dropListenStreams() {
      for (const response of streams) response.destroy()
    },
    close: async () => {
      for (const abort of upstreamAborts) abort.abort()
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
}

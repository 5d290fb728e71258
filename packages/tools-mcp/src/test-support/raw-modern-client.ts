// A 2026-07-28 client in raw JSON-RPC over Streamable HTTP, for what no official client speaks yet: the SDK v2 2.4
// client refuses a `resultType: 'task'` answer (UNSUPPORTED_RESULT_TYPE) and has no tasks methods. Sends what the SDK
// v2 client sends (the `Mcp-*` headers and the `_meta` envelope), plus the tasks extension when asked.

/** A JSON-RPC answer: `result` or `error`. */
export interface RawAnswer {
  readonly result?: Record<string, unknown>
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown }
}

export interface RawModernClient {
  request(method: string, params: Record<string, unknown>): Promise<RawAnswer>
}

let nextId = 1

/** The `data:` message answering `id` in an SSE body, or the JSON body itself. */
function answerOf(text: string, contentType: string | null, id: number): RawAnswer {
  if (contentType?.includes('text/event-stream') === true) {
    for (const line of text.split('\n')) {
      if (!line.startsWith('data:')) continue
      const message = JSON.parse(line.slice(5)) as RawAnswer & { id?: unknown }
      if (message.id === id) return message
    }
    throw new Error(`no answer to request ${id} in the event stream: ${text.slice(0, 500)}`)
  }
  return JSON.parse(text) as RawAnswer
}

/**
 * A raw 2026-07-28 client of `url`. `tasks: true` declares `io.modelcontextprotocol/tasks` on every request;
 * `authorization` is sent as the `Authorization` header.
 */
export function rawModernClient(url: string, options: { readonly tasks: boolean; readonly authorization?: string | undefined }): RawModernClient {
  const capabilities = options.tasks ? { extensions: { 'io.modelcontextprotocol/tasks': {} } } : {}
  return {
    async request(method, params) {
      const id = nextId++
      const name = typeof params.name === 'string' ? params.name : typeof params.taskId === 'string' ? params.taskId : undefined
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...(name === undefined ? {} : { 'mcp-name': name }),
        ...(options.authorization === undefined ? {} : { authorization: options.authorization }),
      }
      const _meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'raw-modern', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': capabilities,
      }
      const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta } }) })
      const text = await response.text()
      if (text === '') throw new Error(`HTTP ${response.status} with no body for ${method}`)
      return answerOf(text, response.headers.get('content-type'), id)
    },
  }
}

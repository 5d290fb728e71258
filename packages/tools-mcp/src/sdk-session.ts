// The one file that imports the MCP SDK (`@modelcontextprotocol/client`, pinned). Everything else talks to the
// server through `McpSession` (session-types.ts), so an SDK upgrade or a swap touches this file alone.
import {
  Client,
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  type StandardSchemaV1,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client'
import type { JsonObject } from '@dsh/tools-core'
import type { McpCallOutcome, McpCallResult, McpListenStream, McpSession, McpTaskState, McpToolDefinition, McpToolPage, SessionCallOptions, SessionRequestOptions } from './session-types.js'
import { SessionFailure } from './session-types.js'
import type { HttpTokenSource } from './http-auth.js'
import type { MessageTransport } from './stdio-transport.js'

/** What opening a session needs: a transport (our stdio one) or an HTTP endpoint. */
export interface OpenSessionOptions {
  readonly transport: MessageTransport | { readonly url: string; readonly headers: Readonly<Record<string, string>>; readonly tokens?: HttpTokenSource | undefined }
  readonly clientInfo: { readonly name: string; readonly version: string }
  /** `legacy` (the initialize handshake), `auto` (probe `server/discover` first) or `modern` (2026-07-28 only). */
  readonly protocol: 'legacy' | 'auto' | 'modern'
  /**
   * The era this server answered with before (kept by the connection across reconnects). In `auto` mode a `legacy`
   * one skips the `server/discover` probe, which a 2025-era server answers with an error (HTTP 400) on every
   * connect, and runs the `initialize` handshake at once. A `modern` one changes nothing: the probe is that era's
   * handshake, and its answer (the server's capabilities) may have changed.
   */
  readonly knownEra?: 'legacy' | 'modern' | undefined
  /** Told the era as soon as the server's answer settles it: the probe's legacy verdict (before the handshake ends), or the connect's. */
  readonly onEra?: ((era: 'legacy' | 'modern') => void) | undefined
  readonly connectTimeoutMs: number
  /**
   * The longest `close()` waits for the polite part of a shutdown (ending listen streams, the `DELETE` that ends a
   * 2025-era HTTP session) before it closes the client, which aborts whatever is still in flight. Default 2,000.
   */
  readonly closeGraceMs?: number | undefined
  readonly signal?: AbortSignal | undefined
  /** A `notifications/tools/list_changed` arrived (advertised or not). */
  readonly onToolsChanged: () => void
  /** The connection closed (not by `close()`). */
  readonly onClose: () => void
}

const MODERN_PROTOCOL = '2026-07-28'

const blockFields: Record<string, readonly string[]> = {
  text: ['text'],
  image: ['data', 'mimeType'],
  audio: ['data', 'mimeType'],
  resource_link: ['uri', 'name'],
  resource: ['resource'],
}

/** A content block the SDK's result schema would reject (an unknown type, a missing field) becomes a text placeholder. */
function tolerantBlock(block: unknown): unknown {
  if (typeof block !== 'object' || block === null) return { type: 'text', text: '[malformed MCP content block]' }
  const { type } = block as { type?: unknown }
  const fields = typeof type === 'string' ? blockFields[type] : undefined
  if (fields === undefined) return { type: 'text', text: `[MCP content block of type ${JSON.stringify(String(type))} is not supported by this client]` }
  if (fields.every((field) => field in block)) return block
  return { type: 'text', text: `[malformed ${type} block from the MCP server]` }
}

/**
 * The tools of a `tools/list` page as the server sent them, by the empty stand-in array that takes their place in
 * the page the SDK parses: the SDK checks every tool against its schema, so one malformed tool (a non-string
 * description) or one deeply nested schema (its recursive JSON check overflows the stack) would fail the whole page.
 * `planTools` checks each tool on its own instead, and leaves out only the bad ones.
 */
const listedTools = new WeakMap<object, unknown[]>()

/** A result schema that takes the page as it is, so the stand-in above reaches `listToolsPage` unchanged. */
const unparsedPage: StandardSchemaV1<unknown, { tools?: unknown; nextCursor?: unknown; ttlMs?: unknown }> = {
  '~standard': { version: 1, vendor: 'dsh-tools-mcp', validate: (value) => ({ value: value as { tools?: unknown } }) },
}

/** Marks the JSON-RPC error this client puts in place of a malformed response (see {@link malformedResponse}). */
const MALFORMED = 'dsh/malformedResponse'

/** The 2026-07-28 tasks extension (SEP-2663), declared by this client on a session that may speak that era. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks'

/**
 * Carries a 2026-07-28 task answer (`resultType: 'task'`) to a `tools/call` past the SDK, which rejects any
 * `resultType` it has no runtime for and drops the answer: the answer is routed as a JSON-RPC error whose data holds
 * it under this key, and `callTool` reads the task back out of that error.
 */
const TASK_ANSWER = 'dsh/taskAnswer'

/** A result schema that takes any answer as it is (task methods, which the SDK has no schema for). */
const unparsed: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': { version: 1, vendor: 'dsh-tools-mcp', validate: (value) => ({ value: value as Record<string, unknown> }) },
}

/** Outgoing `tools/call` request ids whose answers are not in yet (at most this many remembered). */
const maxPendingCalls = 4_096

function describeJson(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'string' ? 'a string' : typeof value
}

/**
 * Why `message`, an answer to a request (an `id` and no `method`), is not a response the SDK can route, or
 * `undefined` when it is one (or is no answer at all). The SDK drops such a message as an unknown message type and
 * leaves the request waiting for its timeout: `"result": null` would stall a call for its whole idle budget.
 */
function malformedResponse(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined
  const record = message as Record<string, unknown>
  if (!Object.hasOwn(record, 'id') || Object.hasOwn(record, 'method')) return undefined
  if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) return undefined
  const hasResult = Object.hasOwn(record, 'result')
  const hasError = Object.hasOwn(record, 'error')
  if (hasResult && hasError) return 'it carries both "result" and "error"'
  if (hasResult) {
    const { result } = record
    if (typeof result !== 'object' || result === null || Array.isArray(result)) return `its "result" is ${describeJson(result)}, not an object`
  } else if (hasError) {
    return 'its "error" is not an object with an integer "code" and a string "message"'
  } else {
    return 'it carries neither "result" nor "error"'
  }
  return 'it is not a well-formed JSON-RPC 2.0 response ("jsonrpc" missing or not "2.0", or a member JSON-RPC does not define)'
}

/** The JSON-RPC error response this client routes in place of a malformed one, so its request fails at once. */
function malformedAnswer(id: string | number, why: string): unknown {
  return { jsonrpc: '2.0', id, error: { code: -32603, message: `The MCP server sent a malformed response: ${why}.`, data: { [MALFORMED]: true } } }
}

/** The answer to route instead of `message`: itself, or an error response when it is a malformed answer. */
function checkedMessage(message: unknown): unknown {
  const why = malformedResponse(message)
  if (why === undefined) return message
  const { id } = message as { id: unknown }
  // An id the SDK cannot match answers no request: nothing waits for it.
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? malformedAnswer(id, why) : message
}

/**
 * Wraps a transport so that the SDK sees only answers it can route and parse: a malformed answer to a request
 * (`"result": null`, an array, both or neither of `result` and `error`) becomes a JSON-RPC error for that request,
 * which fails it at once (`MCP_PROTOCOL_ERROR`), and the content of a result is made acceptable to the SDK's strict
 * result schema (one unknown block type would otherwise fail the whole call). The MCP mapping keeps every other
 * block 1:1.
 */
function tolerantTransport(inner: Transport, options: { readonly stripTasksExtension: boolean }): Transport {
  // Ids of this client's tools/call requests: only their answers may be tasks.
  const pendingCalls = new Set<unknown>()
  return new Proxy(inner, {
    get(target, key) {
      if (key === 'send') {
        return (message: { id?: unknown; method?: unknown; params?: unknown }, sendOptions?: unknown) => {
          if (message.method === 'tools/call' && message.id !== undefined) {
            pendingCalls.add(message.id)
            if (pendingCalls.size > maxPendingCalls) pendingCalls.delete(pendingCalls.values().next().value)
          }
          // The 2025 initialize handshake of an `auto` session: the 2026 extension means nothing there, and that era's
          // wire carries only what this client serves.
          if (options.stripTasksExtension && message.method === 'initialize') message = withoutTasksExtension(message)
          return target.send(message as never, sendOptions as never)
        }
      }
      const value: unknown = Reflect.get(target, key)
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
    },
    set(target, key, value) {
      if (key !== 'onmessage' || typeof value !== 'function') return Reflect.set(target, key, value)
      target.onmessage = ((raw: unknown, extra?: unknown) => {
        let message = checkedMessage(raw) as { id?: unknown; method?: unknown; result?: { content?: unknown; tools?: unknown; resultType?: unknown } }
        if (message.id !== undefined && message.method === undefined && pendingCalls.delete(message.id) && message.result?.resultType === 'task') {
          message = taskAnswer(message.id, message.result) as typeof message
        }
        // Only answers to this client's requests carry a result; only tools/call results carry content.
        if (message.id !== undefined && message.method === undefined && Array.isArray(message.result?.content)) {
          message = { ...message, result: { ...message.result, content: message.result.content.map(tolerantBlock) } }
        }
        // Only tools/list results carry tools: they bypass the SDK's per-tool schema (see listedTools).
        if (message.id !== undefined && message.method === undefined && Array.isArray(message.result?.tools)) {
          const standIn: unknown[] = []
          listedTools.set(standIn, message.result.tools)
          message = { ...message, result: { ...message.result, tools: standIn } }
        }
        ;(value as (message: unknown, extra?: unknown) => void)(message, extra)
      }) as Transport['onmessage']
      return true
    },
  })
}

/** `message` (an `initialize` request) without the tasks extension in its client capabilities. */
function withoutTasksExtension<T extends { params?: unknown }>(message: T): T {
  const params = message.params as { capabilities?: { extensions?: Record<string, unknown> } } | undefined
  const extensions = params?.capabilities?.extensions
  if (extensions === undefined || !Object.hasOwn(extensions, TASKS_EXTENSION)) return message
  const { [TASKS_EXTENSION]: _dropped, ...rest } = extensions
  const { extensions: _all, ...capabilities } = params?.capabilities ?? {}
  return { ...message, params: { ...params, capabilities: Object.keys(rest).length === 0 ? capabilities : { ...capabilities, extensions: rest } } }
}

/** The JSON-RPC error this client routes in place of a task answer to `tools/call` (see {@link TASK_ANSWER}). */
function taskAnswer(id: unknown, result: unknown): { readonly id: unknown } {
  return { jsonrpc: '2.0', id, error: { code: -32603, message: 'The MCP server answered with a task.', data: { [TASK_ANSWER]: result } } } as { readonly id: unknown }
}

const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value)

/**
 * A task as either generation sends it (a 2025 `Task`, a 2025 `CreateTaskResult`'s `task`, a 2026 `Task` with its
 * inlined `result` or `error`), or a {@link SessionFailure} (`protocol`) when it has no string `taskId` and `status`.
 */
function readTask(value: unknown, method: string): McpTaskState {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new SessionFailure('protocol', `${method} returned ${describeJson(value)} where a task was expected`)
  const task = value as Record<string, unknown>
  const own = (key: string): unknown => (Object.hasOwn(task, key) ? task[key] : undefined)
  const taskId = own('taskId')
  const status = own('status')
  if (typeof taskId !== 'string' || taskId === '' || typeof status !== 'string') throw new SessionFailure('protocol', `${method} returned a task without a string taskId and status`)
  const interval = finite(own('pollIntervalMs')) ? own('pollIntervalMs') : own('pollInterval')
  const message = own('statusMessage')
  return {
    taskId,
    status,
    ...(typeof message === 'string' ? { statusMessage: message } : {}),
    ...(finite(interval) ? { pollIntervalMs: interval } : {}),
    // A 2026 task's inlined result is checked as a tools/call result is.
    ...(Object.hasOwn(task, 'result') ? { result: readCallResult(own('result'), `${method} (the task's result)`) } : {}),
    ...(Object.hasOwn(task, 'error') ? { error: own('error') } : {}),
  }
}

/**
 * A `tools/call` result read without the SDK's result schema (a task-augmented call, `tasks/result`): the checks
 * that schema would make and the mapping needs, as a {@link SessionFailure} (`protocol`).
 */
function readCallResult(value: unknown, method: string): McpCallResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new SessionFailure('protocol', `${method} returned ${describeJson(value)}, not a tool result`)
  const result = value as Record<string, unknown>
  if (Object.hasOwn(result, 'content') && !Array.isArray(result.content)) throw new SessionFailure('protocol', `${method} returned a result whose content is not an array`)
  const structured = Object.hasOwn(result, 'structuredContent') ? result.structuredContent : undefined
  if (structured !== undefined && (typeof structured !== 'object' || structured === null || Array.isArray(structured))) {
    throw new SessionFailure('protocol', `${method} returned structuredContent that is ${describeJson(structured)}, not an object`)
  }
  if (Object.hasOwn(result, 'isError') && result.isError !== undefined && typeof result.isError !== 'boolean') throw new SessionFailure('protocol', `${method} returned an isError that is not a boolean`)
  return { ...result, content: Array.isArray(result.content) ? result.content : [] } as unknown as McpCallResult
}

/** An SSE event longer than this is passed on unchecked (the SDK buffers it whole either way). */
const maxCheckedEventChars = 16 * 1024 * 1024

/**
 * Checks the answers in a `text/event-stream` body event by event, as {@link tolerantTransport} does for stdio:
 * the Streamable HTTP transport parses each event with the SDK's JSON-RPC schema before anything sees it, drops
 * one that fails, and its request then waits for its timeout. An event is passed on when it is complete (as the
 * SDK's own parser dispatches it); one holding a malformed answer is passed on with that answer replaced.
 */
function checkedEventStream(): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder()
  const encoder = new TextEncoder()
  let buffer = ''
  let event = '' // the raw lines of the event being read
  let data: string[] = []
  let unchecked = false
  const endEvent = (controller: TransformStreamDefaultController<Uint8Array>, blank: string): void => {
    let text = event + blank
    if (!unchecked && data.length > 0) {
      let parsed: unknown
      try {
        parsed = JSON.parse(data.join('\n'))
      } catch {
        parsed = undefined
      }
      const checked = parsed === undefined ? undefined : checkedMessage(parsed)
      if (checked !== parsed) {
        const kept = event.split(/(?<=\r\n|\n|\r)/).filter((line) => !/^data(:|\r|\n|$)/.test(line))
        text = `${kept.join('')}data: ${JSON.stringify(checked)}\n${blank}`
      }
    }
    if (text !== '') controller.enqueue(encoder.encode(text))
    event = ''
    data = []
    unchecked = false
  }
  const readLines = (controller: TransformStreamDefaultController<Uint8Array>, final: boolean): void => {
    for (;;) {
      const end = buffer.search(/\r\n|\n|\r/)
      // A lone \r at the end may be the first half of \r\n: wait for the next chunk.
      if (end < 0 || (!final && end === buffer.length - 1 && buffer[end] === '\r')) break
      const size = buffer.startsWith('\r\n', end) ? 2 : 1
      const line = buffer.slice(0, end)
      const raw = buffer.slice(0, end + size)
      buffer = buffer.slice(end + size)
      if (line === '') {
        endEvent(controller, raw)
        continue
      }
      if (unchecked) {
        controller.enqueue(encoder.encode(raw))
        continue
      }
      event += raw
      if (line.startsWith('data')) {
        const value = line.slice(4)
        if (value === '' || value.startsWith(':')) data.push(value.startsWith(': ') ? value.slice(2) : value.slice(1))
      }
      if (event.length > maxCheckedEventChars) {
        controller.enqueue(encoder.encode(event))
        event = ''
        data = []
        unchecked = true
      }
    }
  }
  return new TransformStream({
    transform(chunk, controller) {
      buffer += decoder.decode(chunk, { stream: true })
      readLines(controller, false)
    },
    flush(controller) {
      buffer += decoder.decode()
      readLines(controller, true)
      const rest = event + buffer
      if (rest !== '') controller.enqueue(encoder.encode(rest))
    },
  })
}

/**
 * The Streamable HTTP transport's fetch: each answer in a response body is checked before the SDK parses it (see
 * {@link checkedMessage}). A JSON body that holds a malformed answer is re-encoded with it replaced, an event
 * stream is checked event by event; anything else is the response as it came.
 */
function checkingFetch(request: Request | string | URL, init?: RequestInit): Promise<Response> {
  return fetch(request, init).then(async (response) => {
    if (!response.ok || response.body === null) return response
    const type = (response.headers.get('content-type') ?? '').toLowerCase()
    const rebuilt = (body: ConstructorParameters<typeof Response>[0]): Response => new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
    if (type.startsWith('text/event-stream')) return rebuilt(response.body.pipeThrough(checkedEventStream()))
    if (!type.startsWith('application/json')) return response
    const text = await response.text()
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return rebuilt(text) // the SDK reports it
    }
    const checked = Array.isArray(parsed) ? parsed.map(checkedMessage) : checkedMessage(parsed)
    const changed = Array.isArray(parsed) ? (checked as unknown[]).some((item, index) => item !== parsed[index]) : checked !== parsed
    return rebuilt(changed ? JSON.stringify(checked) : text)
  })
}

/**
 * Tells `onLegacy` when the SDK sends `initialize`: in `auto` mode that is the probe's verdict (the server answered
 * `server/discover` as a 2025-era server does), known even when the rest of the connect then fails.
 */
function watchHandshake(inner: Transport, onLegacy: () => void): Transport {
  return new Proxy(inner, {
    get(target, key) {
      if (key === 'send') {
        return (message: { method?: unknown }, options?: unknown) => {
          if (message.method === 'initialize') onLegacy()
          return target.send(message as never, options as never)
        }
      }
      const value: unknown = Reflect.get(target, key)
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
    },
  })
}

/** Maps an error of the SDK onto a {@link SessionFailure}. */
export function classifySdkError(error: unknown): SessionFailure {
  if (error instanceof SessionFailure) return error
  const message = error instanceof Error ? error.message : String(error)
  if (SdkError.isInstance(error)) {
    switch (error.code) {
      case SdkErrorCode.RequestTimeout:
        return new SessionFailure('timeout', message, undefined, { cause: error })
      case SdkErrorCode.ConnectionClosed:
      case SdkErrorCode.NotConnected:
      case SdkErrorCode.SendFailed:
        return new SessionFailure('closed', message, undefined, { cause: error })
      case SdkErrorCode.UnsupportedResultType:
        return new SessionFailure('input-required', message, undefined, { cause: error })
      case SdkErrorCode.InvalidResult:
        // The result failed the protocol's own result schema for its method (a wrong shape, a 2025-era
        // structuredContent that is not an object): a protocol error, whatever field it names. A mismatch with the
        // tool's outputSchema is a ProtocolError (below).
        return new SessionFailure('protocol', message, undefined, { cause: error })
      default:
        return new SessionFailure('other', message, undefined, { cause: error })
    }
  }
  if (ProtocolError.isInstance(error)) {
    const { data } = error as { data?: unknown }
    // The error this client routed in place of a malformed answer: no JSON-RPC error code came from the server.
    if (typeof data === 'object' && data !== null && (data as Record<string, unknown>)[MALFORMED] === true) {
      return new SessionFailure('protocol', message, undefined, { cause: error })
    }
    const kind = /output schema|structured content/i.test(message) ? 'invalid-output' : 'protocol'
    return new SessionFailure(kind, message, error.code, { cause: error })
  }
  return new SessionFailure('other', message, undefined, { cause: error })
}

/** Connects to a server and returns the {@link McpSession} over it. The caller closes the transport on failure. */
export async function openSession(options: OpenSessionOptions): Promise<McpSession> {
  const client = new Client(
    { name: options.clientInfo.name, version: options.clientInfo.version },
    {
      // Advertise nothing this client does not serve (no roots, sampling, elicitation, 2025 tasks). The 2026 tasks
      // extension says this client follows a task a server makes of a call; an `auto` session strips it from a 2025
      // handshake (tolerantTransport).
      capabilities: options.protocol === 'legacy' ? {} : { extensions: { [TASKS_EXTENSION]: {} } },
      versionNegotiation: { mode: options.protocol === 'modern' ? { pin: MODERN_PROTOCOL } : options.protocol },
    },
  )
  // Installed by hand, so it also works when the server did not advertise `tools.listChanged`.
  client.setNotificationHandler('notifications/tools/list_changed', () => options.onToolsChanged())
  let closing = false
  const closed = new AbortController()
  client.onclose = () => {
    closed.abort()
    if (!closing) options.onClose()
  }
  client.onerror = () => {} // transport hiccups surface as failed requests or a close
  const isHttp = 'url' in options.transport
  const inner: Transport = isHttp
    ? new StreamableHTTPClientTransport(new URL(options.transport.url), {
        requestInit: { headers: { ...options.transport.headers } },
        fetch: checkingFetch,
        ...(options.transport.tokens === undefined ? {} : { authProvider: options.transport.tokens }),
      })
    : (options.transport as unknown as Transport)
  const onEra = options.onEra
  const transport = tolerantTransport(onEra === undefined ? inner : watchHandshake(inner, () => onEra('legacy')), { stripTasksExtension: options.protocol === 'auto' })
  const prior = options.protocol === 'auto' && options.knownEra === 'legacy' ? { prior: { kind: 'legacy' as const } } : {}
  try {
    await client.connect(transport, { timeout: options.connectTimeoutMs, ...prior, ...(options.signal === undefined ? {} : { signal: options.signal }) })
  } catch (error) {
    closing = true
    await client.close().catch(() => {})
    throw classifySdkError(error)
  }
  const era = client.getProtocolEra() ?? 'legacy'
  onEra?.(era)
  const capabilities = client.getServerCapabilities()
  const advertisesListChanged = capabilities?.tools?.listChanged === true
  // 2026-07-28: change notifications arrive only on subscriptions/listen streams, which the connection opens (and
  // reopens: the SDK never does) through listenToolsChanged. Tracked so close() ends whatever is still open.
  const streams = new Set<McpListenStream>()
  const listenToolsChanged =
    era === 'modern'
      ? async ({ timeoutMs, signal }: { readonly timeoutMs: number; readonly signal: AbortSignal }): Promise<McpListenStream> => {
          let subscription: Awaited<ReturnType<Client['listen']>>
          try {
            subscription = await client.listen({ toolsListChanged: true }, { timeout: timeoutMs, signal })
          } catch (error) {
            throw classifySdkError(error)
          }
          const stream: McpListenStream = {
            toolsListChanged: subscription.honoredFilter.toolsListChanged === true,
            closed: subscription.closed,
            close: () => subscription.close().catch(() => {}),
          }
          streams.add(stream)
          void subscription.closed.then(() => streams.delete(stream))
          return stream
        }
      : undefined
  const version = client.getServerVersion()
  const taskCalls =
    era === 'modern'
      ? typeof capabilities?.extensions?.[TASKS_EXTENSION] === 'object'
      : typeof (capabilities?.tasks as { requests?: { tools?: { call?: unknown } } } | undefined)?.requests?.tools?.call === 'object'
  const raw = async (method: string, params: Record<string, unknown>, request: SessionRequestOptions): Promise<Record<string, unknown>> => {
    try {
      return await client.request({ method, params }, unparsed, { timeout: request.timeoutMs, ...(request.signal === undefined ? {} : { signal: request.signal }) })
    } catch (error) {
      throw classifySdkError(error)
    }
  }
  return {
    era,
    tasks: { toolCalls: taskCalls },
    closed: closed.signal,
    advertisesListChanged,
    serverInfo: version === undefined ? undefined : { name: version.name, version: version.version },
    listenToolsChanged,
    async listToolsPage(cursor: string | undefined, timeoutMs: number): Promise<McpToolPage> {
      try {
        // A raw request: the SDK's listTools() walks pages itself when given no cursor, without our cap and checks.
        const page = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, unparsedPage, { timeout: timeoutMs })
        const { ttlMs, nextCursor } = page
        const tools = Array.isArray(page.tools) ? (listedTools.get(page.tools) ?? page.tools) : undefined
        if (tools === undefined) throw new SessionFailure('protocol', 'tools/list returned a result without a tools array')
        if (nextCursor !== undefined && typeof nextCursor !== 'string') throw new SessionFailure('protocol', 'tools/list returned a nextCursor that is not a string')
        return { tools: tools as McpToolDefinition[], nextCursor, ttlMs: typeof ttlMs === 'number' && Number.isFinite(ttlMs) && ttlMs >= 0 ? ttlMs : undefined }
      } catch (error) {
        throw classifySdkError(error)
      }
    },
    async callTool(tool: McpToolDefinition, args: JsonObject, call: SessionCallOptions): Promise<McpCallOutcome> {
      const progress = {
        signal: call.signal,
        timeout: call.idleTimeoutMs,
        maxTotalTimeout: call.totalTimeoutMs,
        resetTimeoutOnProgress: true,
        // Required for the SDK to send a progressToken at all; without one the deadline never resets.
        onprogress: (update: { progress: number; total?: number | undefined; message?: string | undefined }) => call.onProgress(update),
      }
      const meta = call.meta === undefined || Object.keys(call.meta).length === 0 ? {} : { _meta: { ...call.meta } }
      if (era === 'legacy' && call.task !== undefined) {
        // 2025-11-25 task augmentation, which the SDK has no runtime for: a raw request, its answer read here.
        let answer: Record<string, unknown>
        try {
          answer = await client.request({ method: 'tools/call', params: { name: tool.name, arguments: args, task: { ttl: call.task.ttlMs }, ...meta } }, unparsed, progress)
        } catch (error) {
          throw classifySdkError(error)
        }
        if (Object.hasOwn(answer, 'task')) return { kind: 'task', task: readTask(answer.task, 'tools/call') }
        return { kind: 'result', result: readCallResult(answer, 'tools/call') }
      }
      try {
        const result = await client.callTool(
          { name: tool.name, arguments: args, ...meta },
          {
            signal: call.signal,
            timeout: call.idleTimeoutMs,
            maxTotalTimeout: call.totalTimeoutMs,
            resetTimeoutOnProgress: true,
            // Required for the SDK to send a progressToken at all; without one the deadline never resets.
            onprogress: (progress) => call.onProgress(progress),
            // Without its outputSchema: the SDK would check structuredContent with RegExp (a backtracking engine) on
            // the server's patterns; this client checks it itself (output-check.ts).
            toolDefinition: { ...tool, outputSchema: undefined } as never,
          },
        )
        return { kind: 'result', result: result as unknown as McpCallResult }
      } catch (error) {
        const data = ProtocolError.isInstance(error) ? (error as { data?: unknown }).data : undefined
        if (typeof data === 'object' && data !== null && Object.hasOwn(data, TASK_ANSWER)) {
          return { kind: 'task', task: readTask((data as Record<string, unknown>)[TASK_ANSWER], 'tools/call') }
        }
        throw classifySdkError(error)
      }
    },
    async getTask(taskId: string, request: SessionRequestOptions): Promise<McpTaskState> {
      return readTask(await raw('tasks/get', { taskId }, request), 'tasks/get')
    },
    async taskResult(taskId: string, request: SessionRequestOptions): Promise<McpCallResult> {
      return readCallResult(await raw('tasks/result', { taskId }, request), 'tasks/result')
    },
    async cancelTask(taskId: string, request: SessionRequestOptions): Promise<void> {
      await raw('tasks/cancel', { taskId }, request)
    },
    async close(): Promise<void> {
      closing = true
      closed.abort()
      // A server that does not answer cannot hold the shutdown: the polite part gets a bounded grace.
      const polite = Promise.all([
        ...[...streams].map((stream) => stream.close()),
        isHttp && era === 'legacy' ? (inner as StreamableHTTPClientTransport).terminateSession().catch(() => {}) : undefined,
      ])
      let timer: ReturnType<typeof setTimeout> | undefined
      await Promise.race([polite, new Promise<void>((resolve) => (timer = setTimeout(resolve, options.closeGraceMs ?? 2_000)))])
      clearTimeout(timer)
      await client.close().catch(() => {})
    },
  }
}

// The one file that imports the MCP SDK (`@modelcontextprotocol/client`, pinned). Everything else talks to the
// server through `McpSession` (session-types.ts), so an SDK upgrade or a swap touches this file alone.
import { Client, ProtocolError, SdkError, SdkErrorCode, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client'
import type { JsonObject } from '@dsh/tools-core'
import type { McpCallResult, McpListenStream, McpSession, McpToolDefinition, McpToolPage, SessionCallOptions } from './session-types.js'
import { SessionFailure } from './session-types.js'
import type { MessageTransport } from './stdio-transport.js'

/** What opening a session needs: a transport (our stdio one) or an HTTP endpoint. */
export interface OpenSessionOptions {
  readonly transport: MessageTransport | { readonly url: string; readonly headers: Readonly<Record<string, string>> }
  readonly clientInfo: { readonly name: string; readonly version: string }
  /** `legacy` (the initialize handshake), `auto` (probe `server/discover` first) or `modern` (2026-07-28 only). */
  readonly protocol: 'legacy' | 'auto' | 'modern'
  readonly connectTimeoutMs: number
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
 * Wraps a transport so that the content of `tools/call` results is made acceptable to the SDK's strict result
 * schema before it parses them: one unknown block type would otherwise fail the whole call. The MCP mapping keeps
 * every other block 1:1.
 */
function tolerantTransport(inner: Transport): Transport {
  const calls = new Set<unknown>()
  return new Proxy(inner, {
    get(target, key) {
      if (key === 'send') {
        return (message: { method?: unknown; id?: unknown }, options?: unknown) => {
          if (message.method === 'tools/call' && message.id !== undefined) calls.add(message.id)
          return target.send(message as never, options as never)
        }
      }
      const value: unknown = Reflect.get(target, key)
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
    },
    set(target, key, value) {
      if (key !== 'onmessage' || typeof value !== 'function') return Reflect.set(target, key, value)
      target.onmessage = ((message: { id?: unknown; result?: { content?: unknown } }, extra?: unknown) => {
        if (message.id !== undefined && calls.delete(message.id) && Array.isArray(message.result?.content)) {
          message = { ...message, result: { ...message.result, content: message.result.content.map(tolerantBlock) } }
        }
        ;(value as (message: unknown, extra?: unknown) => void)(message, extra)
      }) as Transport['onmessage']
      return true
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
        return new SessionFailure(/output schema|structured/i.test(message) ? 'invalid-output' : 'protocol', message, undefined, { cause: error })
      default:
        return new SessionFailure('other', message, undefined, { cause: error })
    }
  }
  if (ProtocolError.isInstance(error)) {
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
      capabilities: {}, // advertise nothing this client does not serve (no roots, sampling, elicitation, tasks)
      versionNegotiation: { mode: options.protocol === 'modern' ? { pin: MODERN_PROTOCOL } : options.protocol },
    },
  )
  // Installed by hand, so it also works when the server did not advertise `tools.listChanged`.
  client.setNotificationHandler('notifications/tools/list_changed', () => options.onToolsChanged())
  let closing = false
  client.onclose = () => {
    if (!closing) options.onClose()
  }
  client.onerror = () => {} // transport hiccups surface as failed requests or a close
  const isHttp = 'url' in options.transport
  const inner: Transport = isHttp
    ? new StreamableHTTPClientTransport(new URL(options.transport.url), { requestInit: { headers: { ...options.transport.headers } } })
    : (options.transport as unknown as Transport)
  const transport = tolerantTransport(inner)
  try {
    await client.connect(transport, options.signal === undefined ? { timeout: options.connectTimeoutMs } : { timeout: options.connectTimeoutMs, signal: options.signal })
  } catch (error) {
    closing = true
    await client.close().catch(() => {})
    throw classifySdkError(error)
  }
  const era = client.getProtocolEra() ?? 'legacy'
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
  return {
    era,
    advertisesListChanged,
    serverInfo: version === undefined ? undefined : { name: version.name, version: version.version },
    listenToolsChanged,
    async listToolsPage(cursor: string | undefined, timeoutMs: number): Promise<McpToolPage> {
      try {
        // A raw request: the SDK's listTools() walks pages itself when given no cursor, without our cap and checks.
        const page = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, { timeout: timeoutMs })
        const { ttlMs } = page as { ttlMs?: unknown }
        return { tools: page.tools as unknown as McpToolDefinition[], nextCursor: page.nextCursor, ttlMs: typeof ttlMs === 'number' && Number.isFinite(ttlMs) && ttlMs >= 0 ? ttlMs : undefined }
      } catch (error) {
        throw classifySdkError(error)
      }
    },
    async callTool(tool: McpToolDefinition, args: JsonObject, call: SessionCallOptions): Promise<McpCallResult> {
      try {
        const result = await client.callTool(
          { name: tool.name, arguments: args },
          {
            signal: call.signal,
            timeout: call.idleTimeoutMs,
            maxTotalTimeout: call.totalTimeoutMs,
            resetTimeoutOnProgress: true,
            // Required for the SDK to send a progressToken at all; without one the deadline never resets.
            onprogress: (progress) => call.onProgress(progress),
            toolDefinition: tool as never, // the pinned definition validates structuredContent (never when isError)
          },
        )
        return result as unknown as McpCallResult
      } catch (error) {
        throw classifySdkError(error)
      }
    },
    async close(): Promise<void> {
      closing = true
      await Promise.all([...streams].map((stream) => stream.close()))
      if (isHttp && era === 'legacy') await (inner as StreamableHTTPClientTransport).terminateSession().catch(() => {})
      await client.close().catch(() => {})
    },
  }
}

import type { JsonObject, JsonValue } from '@dsh/tools-core'

/** A tool as a server lists it (the MCP `Tool` shape, as plain JSON). */
export interface McpToolDefinition {
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly inputSchema: JsonObject
  readonly outputSchema?: JsonObject | undefined
  readonly annotations?: McpToolAnnotations | undefined
  readonly execution?: { readonly taskSupport?: string | undefined } | undefined
  readonly [key: string]: unknown
}

/** The MCP tool annotations (hints): untrusted unless the server is trusted. */
export interface McpToolAnnotations {
  readonly title?: string | undefined
  readonly readOnlyHint?: boolean | undefined
  readonly destructiveHint?: boolean | undefined
  readonly idempotentHint?: boolean | undefined
  readonly openWorldHint?: boolean | undefined
}

/** One MCP content block as the server sent it (plain JSON). */
export type McpContentBlock = { readonly type: string; readonly [key: string]: unknown }

/** A `tools/call` result as the server sent it. */
export interface McpCallResult {
  readonly content: readonly McpContentBlock[]
  readonly structuredContent?: JsonValue | undefined
  readonly isError?: boolean | undefined
  readonly resultType?: string | undefined
}

/** One page of `tools/list`. */
export interface McpToolPage {
  readonly tools: readonly McpToolDefinition[]
  readonly nextCursor?: string | undefined
  /** 2026-07-28: how long the server says the listing stays fresh (ms); absent on 2025-era servers. */
  readonly ttlMs?: number | undefined
}

/**
 * How a `subscriptions/listen` stream ended: `local` (this client closed it), `graceful` (the server ended it
 * deliberately, as it does when it shuts down or restarts), `remote` (the stream or the transport dropped).
 */
export type ListenCloseCause = 'local' | 'graceful' | 'remote'

/** An open 2026-07-28 `subscriptions/listen` stream for tool changes. */
export interface McpListenStream {
  /** True when the server agreed to send `notifications/tools/list_changed` on the stream. */
  readonly toolsListChanged: boolean
  /** Resolves once, when the stream has ended; never rejects. */
  readonly closed: Promise<ListenCloseCause>
  /** Ends the stream (idempotent); `closed` then resolves `local`. */
  close(): Promise<void>
}

/** Why a session request failed, independent of the SDK's error classes. */
export type SessionFailureKind = 'timeout' | 'closed' | 'protocol' | 'invalid-output' | 'input-required' | 'other'

/** A failed session request, classified (the SDK adapter maps the SDK's errors onto it). */
export class SessionFailure extends Error {
  override readonly name: string = 'SessionFailure'
  readonly kind: SessionFailureKind
  /** The JSON-RPC error code of a `protocol` failure. */
  readonly rpcCode: number | undefined

  constructor(kind: SessionFailureKind, message: string, rpcCode?: number, options?: { cause?: unknown }) {
    super(message, options)
    this.kind = kind
    this.rpcCode = rpcCode
  }
}

/** Budgets and hooks of one call. */
export interface SessionCallOptions {
  readonly signal: AbortSignal
  /** Fails the call when neither a result nor progress arrived for this long. */
  readonly idleTimeoutMs: number
  /** Fails the call after this long whatever progress says. */
  readonly totalTimeoutMs: number
  readonly onProgress: (progress: { progress: number; total?: number | undefined; message?: string | undefined }) => void
}

/**
 * The small internal interface over the MCP SDK: everything the client needs from a connected server. Only
 * `sdk-session.ts` implements it (and imports the SDK), so an SDK upgrade or swap touches that one file.
 */
export interface McpSession {
  /** The negotiated protocol era: `legacy` (initialize handshake, 2025-era) or `modern` (stateless 2026-07-28). */
  readonly era: 'legacy' | 'modern'
  /** The server's advertised `tools.listChanged` capability. */
  readonly advertisesListChanged: boolean
  /** The server's name and version, as it reports them (informational: never used as an id). */
  readonly serverInfo: { readonly name: string; readonly version: string } | undefined
  listToolsPage(cursor: string | undefined, timeoutMs: number): Promise<McpToolPage>
  /**
   * 2026-07-28 only (`undefined` on a 2025-era session, whose notifications arrive unsolicited): opens a
   * `subscriptions/listen` stream for tool changes, whose notifications reach `onToolsChanged`. Resolves once the
   * server acknowledged it; rejects with a {@link SessionFailure} (`protocol` with `rpcCode` -32601 when the server
   * does not offer the method). Never reopens by itself.
   */
  readonly listenToolsChanged: ((options: { readonly timeoutMs: number; readonly signal: AbortSignal }) => Promise<McpListenStream>) | undefined
  callTool(tool: McpToolDefinition, args: JsonObject, options: SessionCallOptions): Promise<McpCallResult>
  close(): Promise<void>
}

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

/**
 * A task the server made of a call, as one `tools/call` answer or one `tasks/get` gave it (both generations, read
 * into one shape: 2025-11-25's `ttl` and `pollInterval` are `ttlMs` and `pollIntervalMs` here). Unchecked beyond
 * the types of its fields: `status` is the server's string.
 */
export interface McpTaskState {
  readonly taskId: string
  readonly status: string
  readonly statusMessage?: string | undefined
  /** The server's suggested polling interval (ms). */
  readonly pollIntervalMs?: number | undefined
  /** 2026-07-28, a `completed` task: the call's result, inlined (its shape checked as a `tools/call` result's is). */
  readonly result?: McpCallResult | undefined
  /** 2026-07-28, a `failed` task: the JSON-RPC error the call ended with, inlined. */
  readonly error?: unknown
}

/** What a `tools/call` gave: the result, or a task the server made of the call (to follow with `tasks/get`). */
export type McpCallOutcome = { readonly kind: 'result'; readonly result: McpCallResult } | { readonly kind: 'task'; readonly task: McpTaskState }

/** The server's support for tasks on `tools/call`, as its capabilities say (see {@link McpSession.tasks}). */
export interface McpTaskSupport {
  /**
   * 2025-11-25: the server advertises `tasks.requests.tools.call` (a task-augmented `tools/call` is allowed).
   * 2026-07-28: the server declared the `io.modelcontextprotocol/tasks` extension (it may answer any call with a task).
   */
  readonly toolCalls: boolean
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
  /**
   * 2025-11-25 only: make the call task-augmented (`params.task: { ttl }`), asking the server to keep the task this
   * long (ms). Ignored on a 2026-07-28 session, where the server decides (the client declared the tasks extension).
   */
  readonly task?: { readonly ttlMs: number } | undefined
  /** Fails the call when neither a result nor progress arrived for this long. */
  readonly idleTimeoutMs: number
  /** Fails the call after this long whatever progress says. */
  readonly totalTimeoutMs: number
  readonly onProgress: (progress: { progress: number; total?: number | undefined; message?: string | undefined }) => void
  /** Keys to send in the request's `params._meta` (trace context); the SDK adds its `progressToken` beside them. */
  readonly meta?: Readonly<Record<string, string>> | undefined
}

/** The budget of one request of a session other than `tools/call`. */
export interface SessionRequestOptions {
  readonly timeoutMs: number
  readonly signal?: AbortSignal | undefined
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
  /**
   * Sends `tools/call`. The outcome is the result, or a task when the server made one of the call (a task-augmented
   * call on a 2025-era session; on a 2026-07-28 session, an answer with `resultType: 'task'`).
   */
  callTool(tool: McpToolDefinition, args: JsonObject, options: SessionCallOptions): Promise<McpCallOutcome>
  /** What the server supports of tasks on `tools/call`. */
  readonly tasks: McpTaskSupport
  /** `tasks/get`: where the task is now (2026-07-28: with its result or error inlined once it ended). */
  getTask(taskId: string, options: SessionRequestOptions): Promise<McpTaskState>
  /** 2025-11-25 only: `tasks/result`, the call's result (or its JSON-RPC error) once the task has ended. */
  taskResult(taskId: string, options: SessionRequestOptions): Promise<McpCallResult>
  /** `tasks/cancel` (2026-07-28: an acknowledgement; cancellation is cooperative). */
  cancelTask(taskId: string, options: SessionRequestOptions): Promise<void>
  /** Fires when the session has closed (by `close()` or because the connection ended). */
  readonly closed: AbortSignal
  close(): Promise<void>
}

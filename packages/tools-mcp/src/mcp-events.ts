import type { SchemaFinding } from './schema-gate.js'
import type { ToolState } from './discovery.js'

/** Where a server connection stands. */
export type McpConnectionState = 'connecting' | 'ready' | 'restarting' | 'suspended' | 'closed'

/** One listed tool in a {@link McpServerStatus}. */
export interface McpToolStatus {
  /** The tool's name on the wire. */
  readonly wireName: string
  /** Its registry name (`mcp__<server>__<tool>`). */
  readonly name: string
  readonly state: ToolState
  /** The fingerprint of its current definition (`sha256:…`): persist it in `pinned` to approve it across restarts. */
  readonly fingerprint: string
  /**
   * Why it is not registered, when it is not; for a registered tool, which parts of its arguments are not validated
   * before policy (a server's `pattern`, an overlapping `anyOf`, …), when some are not.
   */
  readonly note?: string | undefined
  /** What the schema gate found (also for registered tools, whose schema `transform` may have changed). */
  readonly findings: readonly SchemaFinding[]
  /** True when calls go through an `ask` decision. */
  readonly asks: boolean
  /** True when calls may run in parallel. */
  readonly concurrencySafe: boolean
}

/** A snapshot of one server plugin, emitted as `mcp/status` on every change. */
export interface McpServerStatus {
  /** The configured server id. */
  readonly server: string
  readonly state: McpConnectionState
  /** The negotiated protocol era, once connected. */
  readonly era?: 'legacy' | 'modern' | undefined
  /** What the server says it is (informational). */
  readonly serverInfo?: { readonly name: string; readonly version: string } | undefined
  /**
   * Every tool of the last listing (up to `maxTools`), a malformed one too: it is `rejected`, with a `note` and
   * `findings` saying why (an entry without a usable name has `wireName` and `name` `''`).
   */
  readonly tools: readonly McpToolStatus[]
  /**
   * Set when the last listing held more than `maxTools` tools: the first `maxTools` (in the server's order) were
   * planned, `count` more were read and left out, and `more` is true when further pages were not read at all.
   */
  readonly omittedTools?: { readonly count: number; readonly more: boolean } | undefined
  /** The last connection or listing failure. */
  readonly error?: { readonly code: string; readonly message: string } | undefined
  /** Restarts after crashes so far. */
  readonly restarts: number
  /** The pid (and process group) of a running stdio server. */
  readonly pid?: number | undefined
  /** The `subscriptions/listen` stream of a 2026-07-28 connection; absent on a 2025-era one. */
  readonly listen?: McpListenStatus | undefined
}

/**
 * One step of a 2026-07-28 connection's `subscriptions/listen` stream (the only way such a server can announce tool
 * changes), emitted as `mcp/listen` (a debug-level event) and kept as {@link McpListenStatus.lastEvent}.
 */
export interface McpListenEvent {
  readonly server: string
  /**
   * - `opened`: the session's first stream is open.
   * - `reopened`: a stream is open again after a close or a failed open; the tools are re-listed (debounced,
   *   single-flight, drift-checked, swapped in one step, like a `list_changed`), since changes announced while no
   *   stream was open were lost.
   * - `closed`: the server (`cause: 'graceful'`, as when it shuts down or restarts) or the network
   *   (`cause: 'remote'`) ended the stream; a reopen follows in `retryInMs`.
   * - `failed`: opening a stream failed (`message`); another try follows in `retryInMs`.
   * - `unsupported`: the server does not offer tool changes on `subscriptions/listen` (`message`): no more tries;
   *   see {@link McpListenStatus.relistEveryMs}.
   */
  readonly kind: 'opened' | 'reopened' | 'closed' | 'failed' | 'unsupported'
  /** How a `closed` stream ended. */
  readonly cause?: 'graceful' | 'remote' | undefined
  /** Why opening `failed`, or why the server is `unsupported`. */
  readonly message?: string | undefined
  /** The wait before the next try (`closed`, `failed`): exponential backoff with jitter, under `restart`'s delays. */
  readonly retryInMs?: number | undefined
  /** Closes and failures of the stream within `restart.windowMs`, this one included (`closed`, `failed`). */
  readonly failures?: number | undefined
}

/** Where a 2026-07-28 connection's `subscriptions/listen` stream stands (absent on a 2025-era connection). */
export interface McpListenStatus {
  /**
   * `opening` (the first try), `open`, `reopening` (closed or failed: waiting to try again), `unsupported` (the
   * server offers no tool changes on a listen stream; never retried), `closed` (the plugin is going away).
   */
  readonly state: 'opening' | 'open' | 'reopening' | 'unsupported' | 'closed'
  /** Streams reopened after a close or a failed open, over the plugin's life. */
  readonly reopens: number
  /** The last step, such as `{ kind: 'reopened' }`. */
  readonly lastEvent?: McpListenEvent | undefined
  /**
   * When `unsupported`: the interval (ms) at which the tools are re-listed instead, from the `ttlMs` of the server's
   * `tools/list` (never below `minListTtlMs`); `undefined` when the server gives no positive `ttlMs`, in which case
   * changes are seen only after a reconnect or `approveMcpTools`.
   */
  readonly relistEveryMs?: number | undefined
  /** A sentence for a person when the stream is `unsupported` (the finding) or `reopening`. */
  readonly note?: string | undefined
}

/** Progress a server reported for a call, emitted as `mcp/progress`. */
export interface McpProgressEvent {
  readonly server: string
  /** The tool's registry name. */
  readonly name: string
  /** The model's call id. */
  readonly callId: string
  readonly progress: number
  readonly total?: number | undefined
  readonly message?: string | undefined
}

declare module 'cordis' {
  interface Events {
    /** An MCP server plugin's state or tools changed. See {@link McpServerStatus}. */
    'mcp/status'(status: McpServerStatus): void
    /** An MCP server reported progress for a running call. See {@link McpProgressEvent}. */
    'mcp/progress'(progress: McpProgressEvent): void
    /** A 2026-07-28 server's listen stream opened, closed, failed, reopened or was found unsupported. See {@link McpListenEvent}. */
    'mcp/listen'(event: McpListenEvent): void
  }
}

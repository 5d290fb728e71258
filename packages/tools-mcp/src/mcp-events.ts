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
  /** Why it is not registered, when it is not. */
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
  /** Every tool of the last listing. */
  readonly tools: readonly McpToolStatus[]
  /** The last connection or listing failure. */
  readonly error?: { readonly code: string; readonly message: string } | undefined
  /** Restarts after crashes so far. */
  readonly restarts: number
  /** The pid (and process group) of a running stdio server. */
  readonly pid?: number | undefined
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
  }
}

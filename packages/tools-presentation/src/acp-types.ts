/**
 * The Agent Client Protocol (ACP, v1) shapes the mapping produces: the subset of the protocol's `session/update`
 * notification that carries tool calls. Field names follow the protocol's JSON Schema (shipped in
 * `@agentclientprotocol/sdk` as `schema/v1/schema.json`); this package does not depend on the SDK at run time.
 */

/** ACP `ToolKind`: picks the client's icon for a call. */
export type AcpToolKind =
  | 'read'
  | 'edit'
  | 'delete'
  | 'move'
  | 'search'
  | 'execute'
  | 'think'
  | 'fetch'
  | 'switch_mode'
  | 'other'

/** ACP `ToolCallStatus`. */
export type AcpToolCallStatus = 'pending' | 'in_progress' | 'completed' | 'failed'

/** ACP `Annotations` on a content block. */
export type AcpAnnotations = {
  /** Who the block is meant for. */
  audience?: ('user' | 'assistant')[]
  /** ISO 8601 timestamp of the last change to the underlying data. */
  lastModified?: string
  /** Importance from 0 to 1. */
  priority?: number
}

/** ACP text content (clients render it as Markdown). */
export type AcpTextContent = { type: 'text'; text: string; annotations?: AcpAnnotations }
/** ACP image content, base64-encoded. */
export type AcpImageContent = { type: 'image'; data: string; mimeType: string; annotations?: AcpAnnotations }
/** ACP audio content, base64-encoded. */
export type AcpAudioContent = { type: 'audio'; data: string; mimeType: string; annotations?: AcpAnnotations }
/** ACP resource link. */
export type AcpResourceLink = {
  type: 'resource_link'
  uri: string
  name: string
  title?: string
  description?: string
  mimeType?: string
  size?: number
  annotations?: AcpAnnotations
}
/** ACP embedded resource: text or a base64 blob. */
export type AcpEmbeddedResource = {
  type: 'resource'
  resource: { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string }
  annotations?: AcpAnnotations
}

/** ACP `ContentBlock`. */
export type AcpContentBlock = AcpTextContent | AcpImageContent | AcpAudioContent | AcpResourceLink | AcpEmbeddedResource

/** ACP `ToolCallContent` with `type: 'content'`: a content block. */
export type AcpToolCallContentBlock = { type: 'content'; content: AcpContentBlock }
/** ACP `ToolCallContent` with `type: 'diff'`: a file change the client shows as a diff. Paths are absolute. */
export type AcpToolCallDiff = { type: 'diff'; path: string; oldText: string | null; newText: string }
/** ACP `ToolCallContent` with `type: 'terminal'`: embeds the terminal with this id. */
export type AcpToolCallTerminal = { type: 'terminal'; terminalId: string }

/** ACP `ToolCallContent`. */
export type AcpToolCallContent = AcpToolCallContentBlock | AcpToolCallDiff | AcpToolCallTerminal

/** ACP `ToolCallLocation`: an absolute path and an optional 1-based line. */
export type AcpToolCallLocation = { path: string; line?: number }

/**
 * The terminal `_meta` convention (used by Zed and its Claude Code and Codex adapters) for a command the agent runs
 * itself: `terminal_info` on the `tool_call` creates a display-only terminal with this id, `terminal_output` on a
 * `tool_call_update` writes output to it, `terminal_exit` ends it with an exit status. A client opts in by
 * announcing `clientCapabilities._meta.terminal_output: true`.
 */
export type AcpTerminalMeta = {
  /** Sent on the `tool_call`: the terminal to create, and the directory the command runs in. */
  terminal_info?: { terminal_id: string; cwd?: string }
  /** Sent on a `tool_call_update`: output to write to the terminal. */
  terminal_output?: { terminal_id: string; data: string }
  /** Sent on the final `tool_call_update`: how the command ended. */
  terminal_exit?: { terminal_id: string; exit_code: number | null; signal: string | null }
}

/** An ACP `tool_call` session update: a new call, shown as a card. */
export type AcpToolCall = {
  sessionUpdate: 'tool_call'
  toolCallId: string
  title: string
  /** The tool's programmatic name. */
  name?: string
  kind: AcpToolKind
  status: AcpToolCallStatus
  content?: AcpToolCallContent[]
  locations?: AcpToolCallLocation[]
  rawInput?: unknown
  _meta?: AcpTerminalMeta
}

/** An ACP `tool_call_update` session update. Fields it leaves out keep their values; `content` replaces. */
export type AcpToolCallUpdate = {
  sessionUpdate: 'tool_call_update'
  toolCallId: string
  status?: AcpToolCallStatus
  title?: string
  content?: AcpToolCallContent[]
  locations?: AcpToolCallLocation[]
  _meta?: AcpTerminalMeta
}

/** The params of an ACP `session/update` notification carrying one update. */
export type AcpSessionNotification<Update extends AcpToolCall | AcpToolCallUpdate = AcpToolCall | AcpToolCallUpdate> = {
  sessionId: string
  update: Update
}

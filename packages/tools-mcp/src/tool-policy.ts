import type { McpToolConfig } from './server-config.js'
import type { McpToolDefinition } from './session-types.js'

/** How the pipeline treats one server tool, derived from its annotations, the server's trust and the tool's config. */
export interface ToolPolicy {
  /** May run in parallel with other parallel-safe calls of a step. */
  readonly concurrencySafe: boolean
  /** Every call goes through an `ask` decision (the approval service, or a denial without one). */
  readonly ask: boolean
  /** A call a crash interrupted may be sent again after the restart. */
  readonly replayable: boolean
  /** Why it asks, for the approval prompt. */
  readonly reason: string | undefined
}

/**
 * Annotations are hints, untrusted unless the server is trusted (the MCP spec). An untrusted server's hints never
 * loosen anything: every tool of it asks (whatever `readOnlyHint` or `destructiveHint: false` claim), is never
 * parallel-safe and never replayed; only the host's own config (`approval: 'allow'`, `concurrencySafe`,
 * `idempotent`) can lift that. For a trusted server `readOnlyHint` means parallel-safe and no ask,
 * `destructiveHint` (default true) asks, and `idempotentHint` (or `readOnlyHint`) allows a replay. Per-tool config
 * overrides all of it.
 */
export function toolPolicy(tool: McpToolDefinition, trusted: boolean, config: McpToolConfig | undefined): ToolPolicy {
  const hints = (typeof tool.annotations === 'object' && tool.annotations !== null ? tool.annotations : {}) as NonNullable<McpToolDefinition['annotations']>
  const readOnly = trusted && hints.readOnlyHint === true
  // Untrusted: a hint can only add an ask, and every tool asks already; the spec's default is destructive anyway.
  const destructive = !trusted || (!readOnly && hints.destructiveHint !== false)
  const approval = config?.approval ?? 'auto'
  const ask = approval === 'ask' || (approval === 'auto' && destructive)
  let reason: string | undefined
  if (ask) {
    reason = approval === 'ask'
      ? `the configuration asks before every call of ${tool.name}`
      : hints.destructiveHint === true
        ? `the MCP server marks ${tool.name} as destructive`
        : trusted
          ? `${tool.name} does not declare itself non-destructive`
          : `${tool.name} is a tool of an MCP server that is not trusted, whose annotations cannot lift the ask`
  }
  return {
    concurrencySafe: config?.concurrencySafe ?? readOnly,
    ask,
    replayable: config?.idempotent ?? (trusted && (hints.idempotentHint === true || hints.readOnlyHint === true)),
    reason,
  }
}

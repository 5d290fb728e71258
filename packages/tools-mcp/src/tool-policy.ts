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
 * Annotations are hints, untrusted unless the server is trusted (the MCP spec). For an untrusted server a hint
 * can only tighten: `readOnlyHint` never makes a tool parallel-safe or skip an ask, and `idempotentHint` never
 * allows a replay; a tool asks unless it says `destructiveHint: false`, because the spec's default is destructive
 * (the claim only decides whether this package adds an ask: the harness's own policy still applies). For a trusted
 * server `readOnlyHint` means parallel-safe and no ask, `destructiveHint` (default true) asks, and
 * `idempotentHint` (or `readOnlyHint`) allows a replay. Per-tool config overrides all of it.
 */
export function toolPolicy(tool: McpToolDefinition, trusted: boolean, config: McpToolConfig | undefined): ToolPolicy {
  const hints = tool.annotations ?? {}
  const readOnly = trusted && hints.readOnlyHint === true
  const destructive = readOnly ? false : hints.destructiveHint !== false
  const approval = config?.approval ?? 'auto'
  const ask = approval === 'ask' || (approval === 'auto' && destructive)
  let reason: string | undefined
  if (ask) {
    reason = approval === 'ask'
      ? `the configuration asks before every call of ${tool.name}`
      : hints.destructiveHint === true
        ? `the MCP server marks ${tool.name} as destructive`
        : `${tool.name} does not declare itself non-destructive${trusted ? '' : ' (and the server is not trusted)'}`
  }
  return {
    concurrencySafe: config?.concurrencySafe ?? readOnly,
    ask,
    replayable: config?.idempotent ?? (trusted && (hints.idempotentHint === true || hints.readOnlyHint === true)),
    reason,
  }
}

import type { ToolExecutionResult } from '@dsh/tools-core'

/**
 * A result as a session log persists it: the replayable projections (`content`, `meta`) and the outcome, without
 * the execution-time canonical value `structuredContent` (user guide 003: the value "is not persisted in
 * `tool/result`"). Replaying a log needs nothing more: `presentResult` reads `content` and `meta` only.
 */
export type ReplayableToolResult = Omit<ToolExecutionResult, 'structuredContent'>

/**
 * The part of `result` a session log should persist: the result itself when it has no `structuredContent`, else a
 * frozen copy without it. Use it for a harness's own log too (a JSON lines file, a database row).
 */
export function replayableResult(result: ToolExecutionResult): ReplayableToolResult {
  if (!Object.hasOwn(result, 'structuredContent')) return result
  const { structuredContent: _canonical, ...replayable } = result
  return Object.freeze(replayable)
}

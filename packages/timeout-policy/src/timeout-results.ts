import type { ToolExecutionResult } from '@dsh/tools-core'

function quote(name: string): string {
  return JSON.stringify(name)
}

/**
 * `TOOL_TIMEOUT`: the deadline fired and the call then settled within the grace. When the tool still returned a
 * result, the text says it was discarded and that what the tool did may have taken effect; a model should not
 * assume nothing happened.
 */
export function timeoutResult(callId: string, name: string, timeoutMs: number, finished: boolean): ToolExecutionResult {
  const text = finished
    ? `Tool call timed out after ${timeoutMs}ms: ${quote(name)} finished after its deadline, so its result was discarded; what it did may have taken effect.`
    : `Tool call timed out after ${timeoutMs}ms: ${quote(name)} was cancelled at its deadline.`
  return { callId, content: [{ type: 'text', text }], isError: true, error: { name: 'ToolTimeoutError', code: 'TOOL_TIMEOUT' } }
}

/**
 * `TOOL_TIMEOUT` for a call that settled past its deadline before the deadline could fire (it kept the event loop
 * busy, so no timer ran): it did finish, late, and its result was discarded.
 */
export function lateResult(callId: string, name: string, timeoutMs: number, lateByMs: number): ToolExecutionResult {
  const text =
    `Tool call timed out after ${timeoutMs}ms: ${quote(name)} finished ${lateByMs}ms after its deadline (it kept the process busy, ` +
    'so the deadline could not fire while it ran), so its result was discarded; what it did may have taken effect.'
  return { callId, content: [{ type: 'text', text }], isError: true, error: { name: 'ToolTimeoutError', code: 'TOOL_TIMEOUT' } }
}

/** `TOOL_TIMEOUT_ABANDONED`: the call had not settled `graceMs` after its deadline. */
export function abandonedResult(callId: string, name: string, timeoutMs: number, graceMs: number): ToolExecutionResult {
  const text =
    `Tool call timed out after ${timeoutMs}ms and ${quote(name)} did not stop within ${graceMs}ms of being cancelled. ` +
    'It was abandoned: its side effects may still be running.'
  return {
    callId,
    content: [{ type: 'text', text }],
    isError: true,
    error: { name: 'ToolTimeoutAbandonedError', code: 'TOOL_TIMEOUT_ABANDONED' },
  }
}

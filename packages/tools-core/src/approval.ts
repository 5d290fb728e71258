import type { Agent } from './agent.js'
import type { ToolExecution, ToolSchema } from './tool.js'

/**
 * What the pipeline asks an approval service when a `tools/pre-execute` listener decided `ask`. It is only asked
 * about calls that can run: the tool exists, its arguments validate (for a tool with a validation hook), and the
 * guards passed; after `allowed-once` the guards run once more before the dispatch.
 */
export interface ToolApprovalRequest {
  /** The call, with its frozen identity. */
  readonly execution: Readonly<ToolExecution>
  /** The agent the call runs for (an ask without an agent is denied before reaching a service). */
  readonly agent: Agent
  /** The model-facing schema of the tool. */
  readonly tool: ToolSchema
  /** The listener's reason for asking, if it gave one. */
  readonly reason?: string | undefined
  /** Fires when the call is cancelled while waiting. */
  readonly signal: AbortSignal
}

/** The four outcomes of an approval request. Only `allowed-once` lets the call proceed. */
export type ToolApprovalOutcome =
  | { outcome: 'allowed-once' }
  | { outcome: 'rejected'; reason?: string }
  | { outcome: 'cancelled' }
  | { outcome: 'unavailable'; reason?: string }

/** The approval seam: a service (a UI prompt, a policy engine) that answers approval requests. */
export interface ToolApprovalService {
  /** Asks for approval of one call. A rejection of the promise counts as `unavailable`. */
  requestApproval(request: ToolApprovalRequest): Promise<ToolApprovalOutcome>
}

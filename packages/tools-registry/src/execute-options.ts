// The second argument of `ctx.tools.execute`: what the caller brings to one call beyond the call itself.
import type { Agent, ToolApprovalOutcome, ToolApprovalRequest } from '@dsh/tools-core'
import { describeThrown, describeValue } from './describe-value.js'
import { FieldReadError, readOwn } from './own-field.js'

/**
 * What a per-call approver ({@link ToolExecuteOptions.approval}) is asked: the `toolApproval` service's request
 * (the frozen `execution`, the tool's model-facing schema, the listener's `reason`, the call's `signal`), except that
 * the call may run for no agent.
 */
export interface ToolCallApprovalRequest extends Omit<ToolApprovalRequest, 'agent'> {
  /** The agent the call runs for, `undefined` when it runs for none (the caller brings its own person to ask). */
  readonly agent: Agent | undefined
}

/**
 * Answers the `ask` of one call: the caller's own channel to the person behind it (for a call served over MCP, the
 * client's user, asked by elicitation). Only `{ outcome: 'allowed-once' }` lets the call run; a throw or a rejected
 * promise counts as `unavailable`.
 */
export type ToolCallApprover = (request: ToolCallApprovalRequest) => ToolApprovalOutcome | Promise<ToolApprovalOutcome>

/** Options of one call: the second argument of `ctx.tools.execute` and of a scope's `execute`. */
export interface ToolExecuteOptions {
  /**
   * Who answers an `ask` for this call, in place of the `toolApproval` service: asked exactly where the service
   * would be (after the `tools/pre-execute` waterfall and the guards; only `allowed-once` proceeds, and the guards
   * run once more), also for a call that runs for no agent, since the caller brings the person to ask. Its answers
   * become the same denials as the service's (`APPROVAL_REJECTED`, `APPROVAL_CANCELLED`, `APPROVAL_UNAVAILABLE`).
   * The `toolApproval` service is not consulted for the call.
   */
  readonly approval?: ToolCallApprover | undefined
}

/** The options read once (own fields only), or what is wrong with them. */
export function readExecuteOptions(options: unknown): { readonly approval: ToolCallApprover | undefined } | string {
  if (typeof options !== 'object' || options === null) return `the execute options are ${describeValue(options)}, not an object`
  let approval: unknown
  try {
    approval = readOwn(options, 'approval')
  } catch (error) {
    return error instanceof FieldReadError ? error.message : `reading the execute options threw: ${describeThrown(error)}`
  }
  if (approval !== undefined && typeof approval !== 'function') return `the execute option approval is ${describeValue(approval)}, not a function`
  return { approval: approval as ToolCallApprover | undefined }
}

// The approval stage of the pipeline, for `ask` decisions that passed the guards: the caller's per-call approver when it
// gave one, else the approval service, raced against the caller's abort. (The pipeline runs the guards once more after
// a grant.)
import type { ToolApprovalRequest, ToolApprovalService, ToolExecutionResult } from '@dsh/tools-core'
import { ABORTED } from './call-abort.js'
import type { ToolCallApprovalRequest, ToolCallApprover } from './execute-options.js'
import { describeThrown, describeValue, quote } from './describe-value.js'
import { PipelineExecution } from './execution.js'
import { readOwn } from './own-field.js'
import type { PipelineHost } from './pipeline.js'
import { aborted, denied } from './results.js'
import type { ToolRecord } from './tool-record.js'

/**
 * Asks the caller's approver (when the call came with one) or the approval service; only `allowed-once` proceeds.
 * Returns the denial, or `undefined` to proceed.
 */
export async function askApproval(
  host: PipelineHost,
  exec: PipelineExecution,
  record: ToolRecord,
  reason: string | undefined,
  approver?: ToolCallApprover,
): Promise<ToolExecutionResult | undefined> {
  if (approver !== undefined) return askCaller(host, exec, record, reason, approver)
  const { callId } = exec
  const tool = quote(exec.name)
  const agent = exec.agent
  if (agent === undefined) {
    return denied(
      callId,
      'APPROVAL_NO_AGENT',
      `The call to ${tool} needs approval, but it runs for no agent, so there is nobody to ask. It was not run.`,
    )
  }
  let service: ToolApprovalService | undefined
  try {
    service = host.approvalService()
  } catch (error) {
    host.warn('looking up the toolApproval service threw', error)
  }
  if (service === undefined || service === null) {
    return denied(callId, 'APPROVAL_NO_SERVICE', `The call to ${tool} needs approval, but no approval service is available. It was not run.`)
  }
  const request: ToolApprovalRequest = Object.freeze({ execution: exec, agent, tool: record.schema, reason, signal: exec.signal })
  let answer: unknown
  try {
    answer = await PipelineExecution.race(exec, Promise.resolve(service.requestApproval(request)))
  } catch (error) {
    host.warn(`the approval service failed for ${tool}`, error)
    return denied(
      callId,
      'APPROVAL_UNAVAILABLE',
      `Approval for the call to ${tool} could not be obtained (the approval service failed: ${describeThrown(error)}). It was not run.`,
    )
  }
  if (answer === ABORTED) {
    return aborted(callId, 'ABORTED_BEFORE_DISPATCH', `The call to ${tool} was cancelled while it waited for approval; nothing was executed.`)
  }
  return readApproval(host, callId, tool, answer)
}

/** The caller's own approver, asked also for a call without an agent (the caller brings the person to ask). */
async function askCaller(
  host: PipelineHost,
  exec: PipelineExecution,
  record: ToolRecord,
  reason: string | undefined,
  approver: ToolCallApprover,
): Promise<ToolExecutionResult | undefined> {
  const { callId } = exec
  const tool = quote(exec.name)
  const request: ToolCallApprovalRequest = Object.freeze({ execution: exec, agent: exec.agent, tool: record.schema, reason, signal: exec.signal })
  let answer: unknown
  try {
    // A synchronous throw of the approver rejects this promise like an asynchronous one.
    answer = await PipelineExecution.race(exec, new Promise((resolve) => resolve(approver(request))))
  } catch (error) {
    host.warn(`the caller's approver failed for ${tool}`, error)
    return denied(
      callId,
      'APPROVAL_UNAVAILABLE',
      `Approval for the call to ${tool} could not be obtained (the caller's approver failed: ${describeThrown(error)}). It was not run.`,
    )
  }
  if (answer === ABORTED) {
    return aborted(callId, 'ABORTED_BEFORE_DISPATCH', `The call to ${tool} was cancelled while it waited for approval; nothing was executed.`)
  }
  return readApproval(host, callId, tool, answer)
}

function readApproval(host: PipelineHost, callId: string, tool: string, answer: unknown): ToolExecutionResult | undefined {
  let outcome: unknown
  let reason: unknown
  try {
    if (typeof answer === 'object' && answer !== null) {
      outcome = readOwn(answer, 'outcome')
      reason = readOwn(answer, 'reason')
    }
  } catch (error) {
    host.warn(`reading the approval answer for ${tool} threw`, error)
  }
  const because = typeof reason === 'string' && reason.trim() !== '' ? `: ${reason}` : ''
  switch (outcome) {
    case 'allowed-once':
      return undefined
    case 'rejected':
      return denied(callId, 'APPROVAL_REJECTED', `The call to ${tool} was rejected${because}. It was not run.`)
    case 'cancelled':
      return denied(callId, 'APPROVAL_CANCELLED', `The approval request for the call to ${tool} was cancelled. It was not run.`)
    case 'unavailable':
      return denied(callId, 'APPROVAL_UNAVAILABLE', `Approval for the call to ${tool} is unavailable${because}. It was not run.`)
    default:
      host.warn(`the approval service answered ${describeValue(answer)} for ${tool}`)
      return denied(
        callId,
        'APPROVAL_UNAVAILABLE',
        `Approval for the call to ${tool} could not be obtained (the approval service gave an invalid answer). It was not run.`,
      )
  }
}

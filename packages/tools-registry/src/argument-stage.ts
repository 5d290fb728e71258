// Stage 3 of the pipeline: the arguments of a tool that carries a validation hook (`validateArguments`, which
// `defineTool` sets), checked before any listener, guard or person sees the call.
import type { ToolExecutionResult } from '@dsh/tools-core'
import { describeThrown, describeValue, isThenable, quote } from './describe-value.js'
import type { PipelineExecution } from './execution.js'
import { readOwn } from './own-field.js'
import { failure, TOOL_FAULT, toolFailed } from './results.js'
import type { ToolRecord } from './tool-record.js'

/** Where a misbehaving validation hook is reported (never throws). */
export type Warn = (message: string, cause?: unknown) => void

/** `INVALID_ARGS` (tools-schema's `ToolArgsError`): the text is what the hook said is wrong. */
export function invalidArgs(callId: string, text: string): ToolExecutionResult {
  return failure(callId, 'ToolArgsError', 'INVALID_ARGS', text)
}

/**
 * Runs the tool's validation hook on the frozen arguments. Returns `undefined` when there is none (a raw
 * JSON-Schema tool: its body checks its own input) or the arguments match; the `INVALID_ARGS` result when they do
 * not; `TOOL_FAILED` when the hook throws or answers something other than a `ToolArgumentsCheck` (the call does
 * not run: a check that cannot say yes is not a yes).
 */
export function checkArguments(exec: PipelineExecution, record: ToolRecord, warn: Warn): ToolExecutionResult | undefined {
  const validate = record.validateArguments
  if (validate === undefined) return undefined
  let check: unknown
  try {
    check = validate.call(record.definition, exec.arguments)
  } catch (error) {
    warn(`the argument check (validateArguments) of tool ${quote(exec.name)} threw`, error)
    return brokenCheck(exec, `it threw ${describeThrown(error)}`)
  }
  let ok: unknown
  let message: unknown
  try {
    if (typeof check === 'object' && check !== null) {
      ok = readOwn(check, 'ok')
      message = readOwn(check, 'message')
    }
  } catch (error) {
    warn(`reading the argument check of tool ${quote(exec.name)} threw`, error)
    return brokenCheck(exec, `its answer cannot be read: ${describeThrown(error)}`)
  }
  if (ok === true) return undefined
  return refusal(exec, check, ok, message, warn)
}

/** `TOOL_FAILED`: the argument check itself failed (`what`), so the call does not run. */
function brokenCheck(exec: PipelineExecution, what: string): ToolExecutionResult {
  return toolFailed(exec.callId, `The call to ${quote(exec.name)} was not run: the tool's argument check failed (${what}). ${TOOL_FAULT}`)
}

/**
 * What an argument check that did not say yes means: `INVALID_ARGS`, or `TOOL_FAILED` for a broken check. Off the
 * path of a valid call, which quotes no name and builds no message.
 */
function refusal(exec: PipelineExecution, check: unknown, ok: unknown, message: unknown, warn: Warn): ToolExecutionResult {
  const tool = quote(exec.name)
  if (ok === false) {
    const text =
      typeof message === 'string' && message.trim() !== ''
        ? message
        : `The arguments of the call to ${tool} do not match the tool's parameters; fix them and call ${tool} again.`
    return invalidArgs(exec.callId, text)
  }
  if (isThenable(check)) {
    // An async check cannot be honoured; keep its eventual rejection from going unhandled.
    Promise.resolve(check).then(undefined, (error: unknown) => warn(`the async argument check of tool ${tool} rejected`, error))
  }
  warn(`the argument check (validateArguments) of tool ${tool} returned ${describeValue(check)}, not { ok: true } or { ok: false, message }`)
  return brokenCheck(exec, `it returned ${describeValue(check)}, not { ok: true } or { ok: false, message }`)
}

// Stage 1 of the pipeline: the caller's input, read (own fields only) and checked, its signal adopted and its
// arguments materialized.
import { snapshotJson, type Agent, type ToolExecutionResult, type ToolExecutionToken } from '@dsh/tools-core'
import { CallAbort } from './call-abort.js'
import { describeThrown, describeValue, quote } from './describe-value.js'
import { isLiveToken, PipelineExecution } from './execution.js'
import { FieldReadError, readOwn } from './own-field.js'
import { invalidCall, nonJson } from './results.js'
import { isAbortSignal } from '@dsh/tools-core'

/** A call read from its input: the execution, or the execution and the result it already failed with. */
export interface Started {
  readonly exec: PipelineExecution
  readonly failed?: ToolExecutionResult
}

/** The call's own fields (an inherited `name` or `arguments` is no field of the call), or what is wrong. */
function readFields(input: unknown, forcedAgent: Agent | undefined): Record<string, unknown> | string {
  if (typeof input !== 'object' || input === null) return `the call is ${describeValue(input)}, not an object`
  try {
    return {
      callId: readOwn(input, 'callId'),
      name: readOwn(input, 'name'),
      arguments: readOwn(input, 'arguments'),
      agent: forcedAgent ?? readOwn(input, 'agent'),
      parent: readOwn(input, 'parent'),
      signal: readOwn(input, 'signal'),
    }
  } catch (error) {
    return error instanceof FieldReadError ? error.message : `reading the call threw: ${describeThrown(error)}`
  }
}

function inputProblem(fields: Record<string, unknown>): string | undefined {
  const { callId, name, agent, parent, signal } = fields
  if (typeof callId !== 'string') return `its callId is ${describeValue(callId)}, not a string`
  if (typeof name !== 'string') return `its name is ${describeValue(name)}, not a string`
  if (agent !== undefined && (typeof agent !== 'object' || agent === null)) return `its agent is ${describeValue(agent)}, not an object`
  if (parent !== undefined && typeof parent !== 'symbol') return `its parent is ${describeValue(parent)}, not an execution token`
  if (parent !== undefined && !isLiveToken(parent as ToolExecutionToken)) {
    return 'its parent is not the token of a call still running (a finished call, or a token no call of this registry made)'
  }
  if (signal !== undefined && !isAbortSignal(signal)) {
    return `its signal is ${describeValue(signal)}, not an AbortSignal (only the platform's own AbortSignal objects are accepted)`
  }
  return undefined
}

/**
 * Reads the caller's input: checks its fields and materializes the arguments (detached, lossless, deep-frozen)
 * before anything else runs. A malformed call (`INVALID_CALL`) or non-JSON arguments (`NON_JSON_VALUE`) fail
 * here, before the tool is even looked up.
 */
export function start(input: unknown, forcedAgent: Agent | undefined, report: (error: unknown) => void): Started {
  const fields = readFields(input, forcedAgent)
  let problem = typeof fields === 'string' ? fields : inputProblem(fields)
  let abort: CallAbort | undefined
  if (problem === undefined) {
    try {
      abort = new CallAbort((fields as Record<string, unknown>).signal as AbortSignal | undefined, report)
    } catch (error) {
      problem = `its signal cannot be listened to (adding an abort listener threw ${describeThrown(error)})`
    }
  }
  if (problem !== undefined || abort === undefined) {
    const known = typeof fields === 'string' ? {} : fields
    const exec = new PipelineExecution(
      typeof known.callId === 'string' ? known.callId : '',
      typeof known.name === 'string' ? known.name : '',
      undefined,
      typeof known.agent === 'object' && known.agent !== null ? (known.agent as Agent) : undefined,
      typeof known.parent === 'symbol' ? (known.parent as ToolExecutionToken) : undefined,
      new CallAbort(undefined, report),
    )
    return { exec, failed: invalidCall(exec.callId, `The tool call is malformed: ${problem ?? 'it cannot be read'}.`) }
  }
  const valid = fields as Record<string, unknown>
  let snapshot: ReturnType<typeof snapshotJson>
  try {
    snapshot = snapshotJson(valid.arguments)
  } catch (error) {
    abort.release()
    throw error
  }
  const exec = new PipelineExecution(
    valid.callId as string,
    valid.name as string,
    snapshot.ok ? snapshot.value : undefined,
    valid.agent as Agent | undefined,
    valid.parent as ToolExecutionToken | undefined,
    abort,
  )
  if (snapshot.ok) return { exec }
  return {
    exec,
    failed: nonJson(exec.callId, `The arguments of the call to ${quote(exec.name)} are not JSON: ${snapshot.error.message}`),
  }
}

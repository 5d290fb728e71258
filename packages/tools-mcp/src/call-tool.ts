import { taskOf } from '@dsh/tool-tasks'
import { DshError, type JsonObject, type ToolExecution } from '@dsh/tools-core'
import { mapCallResult, type MappedResult } from './call-results.js'
import type { PlannedTool } from './discovery.js'
import { McpCallError } from './mcp-call-error.js'
import { MCP_ERROR_CODES } from './mcp-error-codes.js'
import { cutUtf8 } from './result-bounds.js'
import { callBudget, type McpCallBudget } from './server-config.js'
import type { ServerConnection } from './server-connection.js'
import { followServerTask } from './server-task.js'
import { SessionFailure } from './session-types.js'
import { isRecord } from './is-record.js'
import { withoutRunInBackground } from './task-policy.js'
import { traceMeta } from './trace-context.js'

const isPlainObject: (value: unknown) => value is JsonObject = isRecord

function failureError(connection: ServerConnection, plan: PlannedTool, failure: SessionFailure, budget: McpCallBudget): McpCallError {
  const server = connection.config.id
  const tool = JSON.stringify(plan.wireName)
  const where = `the MCP tool ${tool} of server ${JSON.stringify(server)}`
  switch (failure.kind) {
    case 'timeout':
      // The SDK checks its own total cap only when progress arrives; either way the call ran out of budget.
      return /total timeout/i.test(failure.message)
        ? capError(where, server, budget, failure)
        : new McpCallError(
            MCP_ERROR_CODES.TIMEOUT,
            `${where} sent neither a result nor progress for ${budget.idleMs} ms; the server was told to cancel the call.`,
            server,
            { cause: failure },
          )
    case 'closed':
      return connection.closeReason === 'too-large'
        ? new McpCallError(MCP_ERROR_CODES.RESULT_TOO_LARGE, `The result of ${where} was larger than ${connection.config.maxMessageBytes} bytes and was discarded; the server is being restarted. Ask for less (a range, a filter, a smaller file).`, server, { cause: failure })
        : new McpCallError(MCP_ERROR_CODES.SERVER_CRASHED, `The MCP server ${JSON.stringify(server)} went away while ${where} ran; it is being restarted. The call may or may not have taken effect.`, server, { cause: failure })
    case 'invalid-output':
      return new McpCallError(MCP_ERROR_CODES.INVALID_OUTPUT, `${where} returned structuredContent that does not match its outputSchema: ${failure.message}`, server, { cause: failure })
    case 'input-required':
      return new McpCallError(MCP_ERROR_CODES.INPUT_REQUIRED, `${where} asked for user input, which this client cannot provide: ${failure.message}`, server, { cause: failure })
    default:
      return new McpCallError(
        MCP_ERROR_CODES.PROTOCOL_ERROR,
        `${where} failed${failure.rpcCode === undefined ? '' : ` with JSON-RPC error ${failure.rpcCode}`}: ${failure.message}`,
        server,
        { cause: failure },
      )
  }
}

/**
 * The plugin was unloaded (its fiber disposed) while the call ran or waited for the server: the session was closed
 * on purpose and nothing restarts it, so the model must not wait for a restart or retry.
 */
function unloadedError(where: string, server: string, cause: unknown): McpCallError {
  return new McpCallError(
    MCP_ERROR_CODES.SERVER_UNLOADED,
    `The MCP server ${JSON.stringify(server)} was unloaded while ${where} ran or waited to run; the call did not complete and may or may not have taken effect. The server's tools are gone until the harness loads it again.`,
    server,
    { cause },
  )
}

function capError(where: string, server: string, budget: McpCallBudget, cause?: unknown): McpCallError {
  return new McpCallError(
    MCP_ERROR_CODES.TIMEOUT,
    `${where} ran past its cap of ${budget.totalMs} ms (progress or not); the server was told to cancel the call. What it did so far may have taken effect.`,
    server,
    cause === undefined ? undefined : { cause },
  )
}

/** The most of a progress notification's `message` that reaches `mcp/progress` listeners (a UI line, not a log). */
export const MAX_PROGRESS_MESSAGE_BYTES = 1024

/**
 * A server's progress notification as listeners get it: finite numbers only, the message a string cut at
 * {@link MAX_PROGRESS_MESSAGE_BYTES} bytes (an untrusted server may send megabytes on every notification).
 */
export function boundedProgress(progress: { progress?: unknown; total?: unknown; message?: unknown }): { progress: number; total?: number; message?: string } {
  const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value)
  return {
    progress: finite(progress.progress) ? progress.progress : 0,
    ...(finite(progress.total) ? { total: progress.total } : {}),
    ...(typeof progress.message === 'string' ? { message: cutUtf8(progress.message, MAX_PROGRESS_MESSAGE_BYTES).text } : {}),
  }
}

/**
 * One call of a server tool from inside the pipeline: waits for a restart in progress, sends `tools/call` with
 * progress always requested (so the idle budget resets on progress) under a hard total cap (the tool's registered
 * `timeoutMs`, timed here from the start of the call, the wait for a restart and a replay included), forwards
 * progress as `mcp/progress`, and cancels on `exec.signal` (the SDK sends `notifications/cancelled`). An abort of
 * `exec.signal` is rethrown as a plain error, so the registry reports `ABORTED` (or, when it was
 * `@dsh/timeout-policy`'s deadline, the policy reports `TOOL_TIMEOUT`), never this client's timeout. A call that a
 * crash interrupted is sent again once only when the tool is replayable (a trusted idempotent or read-only tool).
 *
 * MCP tasks: a call of a task-only tool, and of a task-capable one that runs as a dsh task (`taskOf(exec)`: the
 * task layer made it one, or may), is task-augmented on a 2025-era session; on a 2026-07-28 one the server decides.
 * When the server makes a task of the call, it is followed to its end ({@link followServerTask}): its status
 * messages go to the dsh task, its result through the same checks as a plain call's, and a stopped call cancels it.
 * `runInBackground` says the registration added `run_in_background`, which the server is not sent.
 */
export async function callServerTool(connection: ServerConnection, plan: PlannedTool, args: unknown, exec: ToolExecution, runInBackground = false): Promise<MappedResult> {
  if (args !== undefined && args !== null && !isPlainObject(args)) {
    throw new DshError('INVALID_ARGS', `The arguments of ${plan.name} must be a JSON object, got ${Array.isArray(args) ? 'an array' : typeof args}.`)
  }
  if (runInBackground && isPlainObject(args)) args = withoutRunInBackground(args)
  // Read at once: the task layer attaches the context before the body runs.
  const background = taskOf(exec)
  const augment = plan.taskSupport === 'required' || (plan.taskSupport === 'optional' && background !== undefined)
  const budget = callBudget(connection.config, plan.wireName)
  const server = connection.config.id
  const where = `the MCP tool ${JSON.stringify(plan.wireName)} of server ${JSON.stringify(server)}`
  // Read in the body's context (a telemetry plugin's body span is active): the server's spans join this trace.
  const meta = await traceMeta()
  // The SDK's maxTotalTimeout is only checked when progress arrives: the hard cap is a timer of our own.
  const cap = new AbortController()
  const timer = setTimeout(() => cap.abort(new Error(`the call ran past its cap of ${budget.totalMs} ms`)), budget.totalMs)
  const signal = AbortSignal.any([exec.signal, cap.signal])
  try {
    for (let attempt = 0; ; attempt += 1) {
      try {
        const session = await connection.session(signal)
        const outcome = await session.callTool(plan.definition, (args ?? {}) as JsonObject, {
          signal,
          idleTimeoutMs: budget.idleMs,
          totalTimeoutMs: budget.totalMs,
          meta,
          onProgress: (progress) =>
            connection.emitProgress({ server, name: plan.name, callId: exec.callId, ...boundedProgress(progress) }),
          // The task lives no longer than the call may.
          ...(augment ? { task: { ttlMs: budget.totalMs } } : {}),
        })
        const result =
          outcome.kind === 'result'
            ? outcome.result
            : await followServerTask({
                session,
                task: outcome.task,
                signal,
                stop: connection.stopSignal,
                requestTimeoutMs: budget.idleMs,
                onStatus: (message) => background?.status(cutUtf8(message, MAX_PROGRESS_MESSAGE_BYTES).text),
                where,
                server,
              })
        // Checked here against the gated outputSchema (the SDK is not given it: see sdk-session.ts).
        return mapCallResult(result, { server, tool: plan.wireName, bounds: connection.config.output, outputSchema: plan.outputCheck })
      } catch (error) {
        if (exec.signal.aborted) throw new Error(`The call to ${plan.name} was cancelled; the MCP server was told to stop it.`, { cause: error })
        if (cap.signal.aborted) throw capError(where, server, budget, error)
        if (connection.unloaded) throw unloadedError(where, server, error)
        if (!(error instanceof SessionFailure)) throw error
        const mapped = failureError(connection, plan, error, budget)
        if (mapped.code === MCP_ERROR_CODES.SERVER_CRASHED && plan.policy.replayable && attempt === 0) continue
        throw mapped
      }
    }
  } finally {
    clearTimeout(timer)
  }
}

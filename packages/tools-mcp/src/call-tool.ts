import { DshError, type JsonObject, type ToolExecution } from '@dsh/tools-core'
import { mapCallResult, type MappedResult } from './call-results.js'
import type { PlannedTool } from './discovery.js'
import { McpCallError } from './mcp-call-error.js'
import { MCP_ERROR_CODES } from './mcp-error-codes.js'
import type { ServerConnection } from './server-connection.js'
import { SessionFailure } from './session-types.js'

const isPlainObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value)

function failureError(connection: ServerConnection, plan: PlannedTool, failure: SessionFailure, budget: { idle: number; total: number }): McpCallError {
  const server = connection.config.id
  const tool = JSON.stringify(plan.wireName)
  const where = `the MCP tool ${tool} of server ${JSON.stringify(server)}`
  switch (failure.kind) {
    case 'timeout':
      return new McpCallError(
        MCP_ERROR_CODES.TIMEOUT,
        `${where} sent neither a result nor progress for ${budget.idle} ms (or ran past its cap of ${budget.total} ms); the server was told to cancel the call.`,
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
 * One call of a server tool from inside the pipeline: waits for a restart in progress, sends `tools/call` with
 * progress always requested (so the idle budget resets on progress) under a hard total cap, forwards progress as
 * `mcp/progress`, and cancels on `exec.signal` (the SDK sends `notifications/cancelled`). An abort is rethrown as
 * a plain error, so the registry reports `ABORTED`, never a timeout. A call that a crash interrupted is sent
 * again once only when the tool is replayable (a trusted idempotent or read-only tool).
 */
export async function callServerTool(connection: ServerConnection, plan: PlannedTool, args: unknown, exec: ToolExecution): Promise<MappedResult> {
  if (args !== undefined && args !== null && !isPlainObject(args)) {
    throw new DshError('INVALID_ARGS', `The arguments of ${plan.name} must be a JSON object, got ${Array.isArray(args) ? 'an array' : typeof args}.`)
  }
  const settings = connection.config.tools[plan.wireName]
  const budget = { idle: settings?.timeoutMs ?? connection.config.timeouts.call, total: connection.config.timeouts.callTotal }
  const server = connection.config.id
  for (let attempt = 0; ; attempt += 1) {
    const session = await connection.session(exec.signal)
    try {
      const result = await session.callTool(plan.definition, (args ?? {}) as JsonObject, {
        signal: exec.signal,
        idleTimeoutMs: budget.idle,
        totalTimeoutMs: Math.max(budget.idle, budget.total),
        onProgress: (progress) =>
          connection.emitProgress({ server, name: plan.name, callId: exec.callId, progress: progress.progress, total: progress.total, message: progress.message }),
      })
      return mapCallResult(result, { server, tool: plan.wireName, bounds: connection.config.output })
    } catch (error) {
      if (exec.signal.aborted) throw new Error(`The call to ${plan.name} was cancelled; the MCP server was told to stop it.`, { cause: error })
      if (!(error instanceof SessionFailure)) throw error
      const mapped = failureError(connection, plan, error, budget)
      if (mapped.code === MCP_ERROR_CODES.SERVER_CRASHED && plan.policy.replayable && attempt === 0) continue
      throw mapped
    }
  }
}

import { defineToolErrorCodes } from '@dsh/tools-core'

/**
 * The error codes `@dsh/tools-mcp` owns, in the `MCP` family (declared with `defineToolErrorCodes` of
 * `@dsh/tools-core`). They travel in `result.error.code` of a call to an MCP tool, and in `error.code` of the
 * errors this package throws:
 *
 * - `MCP_SERVER_ERROR`: the server answered `isError: true`; the content is the server's.
 * - `MCP_PROTOCOL_ERROR`: the server answered with a JSON-RPC error (a method or tool it does not know, bad params).
 * - `MCP_TIMEOUT`: the server sent neither a result nor progress within the call's idle budget, or the total cap passed.
 * - `MCP_RESULT_TOO_LARGE`: a message from the server exceeded the transport's limit; the server is restarted.
 * - `MCP_SERVER_CRASHED`: the server exited or the connection closed while the call ran.
 * - `MCP_UNAVAILABLE`: the server is not connected (starting, restarting, or suspended by the circuit breaker).
 * - `MCP_INVALID_OUTPUT`: `structuredContent` did not match the tool's `outputSchema`.
 * - `MCP_INPUT_REQUIRED`: the server asked for user input (elicitation), which this client does not serve.
 * - `MCP_CONNECT_FAILED`: the server could not be started or did not complete the handshake.
 * - `MCP_TOOL_QUARANTINED`: the tool's definition changed since it was approved (or another wire name took its
 *   registry name); it is not offered and its calls are refused until a person approves it (`approveMcpTools`).
 * - `MCP_SERVER_UNLOADED`: the server's plugin was unloaded (its fiber disposed) while the call ran or waited.
 * - `MCP_TASK_CANCELLED`: the call ran as an MCP task, and the server (not this client) cancelled it.
 */
export const MCP_ERROR_CODES = defineToolErrorCodes('MCP', [
  'SERVER_ERROR',
  'PROTOCOL_ERROR',
  'TIMEOUT',
  'RESULT_TOO_LARGE',
  'SERVER_CRASHED',
  'UNAVAILABLE',
  'INVALID_OUTPUT',
  'INPUT_REQUIRED',
  'CONNECT_FAILED',
  'TOOL_QUARANTINED',
  'SERVER_UNLOADED',
  'TASK_CANCELLED',
])

/** One of {@link MCP_ERROR_CODES}. */
export type McpErrorCode = (typeof MCP_ERROR_CODES)[keyof typeof MCP_ERROR_CODES]

/**
 * The attribute, span and metric names the plugin records. The `gen_ai.*`, `mcp.*` and `error.type` names are the
 * OpenTelemetry semantic conventions' (GenAI and MCP); the `dsh.*` names are this project's, for what only our
 * pipeline knows (which stage ended a call, what the policy decided, what a review changed).
 */
export const ATTR = Object.freeze({
  /** `execute_tool` on every call span (GenAI). */
  GEN_AI_OPERATION_NAME: 'gen_ai.operation.name',
  /** The tool's registry name (GenAI). */
  GEN_AI_TOOL_NAME: 'gen_ai.tool.name',
  /** The call's id, as the model sent it (GenAI). */
  GEN_AI_TOOL_CALL_ID: 'gen_ai.tool.call.id',
  /** `function` for a tool the harness runs, `extension` for a tool of an MCP server (GenAI). */
  GEN_AI_TOOL_TYPE: 'gen_ai.tool.type',
  /** The tool's description, as the model reads it (GenAI). */
  GEN_AI_TOOL_DESCRIPTION: 'gen_ai.tool.description',
  /** The id of the agent the call runs for (GenAI). */
  GEN_AI_AGENT_ID: 'gen_ai.agent.id',
  /** Opt-in: the call's arguments, redacted and bounded (GenAI). */
  GEN_AI_TOOL_CALL_ARGUMENTS: 'gen_ai.tool.call.arguments',
  /** Opt-in: the delivered result's content, reviewed, redacted and bounded (GenAI). */
  GEN_AI_TOOL_CALL_RESULT: 'gen_ai.tool.call.result',
  /** The result code of a failed call (`GUARD_DENIED`, `TOOL_TIMEOUT`, …); absent on success. */
  ERROR_TYPE: 'error.type',
  /** `tools/call` on a call of an MCP server's tool, and on a call served over MCP (MCP). */
  MCP_METHOD_NAME: 'mcp.method.name',
  /** The protocol version of the connection or request, when known (`2026-07-28`, `2025-11-25`) (MCP). */
  MCP_PROTOCOL_VERSION: 'mcp.protocol.version',
  /** A served call's 2025-era session id (MCP). */
  MCP_SESSION_ID: 'mcp.session.id',
  /** A served call's JSON-RPC request id, as a string (MCP, JSON-RPC). */
  JSONRPC_REQUEST_ID: 'jsonrpc.request.id',
  /** How a served call's request arrived: `pipe` (stdio) or `tcp` (HTTP) (MCP, network). */
  NETWORK_TRANSPORT: 'network.transport',
  /** `http` for a served call that arrived over HTTP (MCP, network). */
  NETWORK_PROTOCOL_NAME: 'network.protocol.name',
  /** The configured id of the MCP server a tool belongs to. */
  DSH_MCP_SERVER: 'dsh.mcp.server',
  /** The tool's name on the MCP wire (the registry name may be mapped). */
  DSH_MCP_TOOL_WIRE_NAME: 'dsh.mcp.tool.wire_name',
  /** `ok`, or the result code: every call has one (also on the duration metric). */
  DSH_OUTCOME: 'dsh.tool.outcome',
  /** The error class name of a failed call (`ToolDeniedError`, `ToolTimeoutError`, …). */
  DSH_ERROR_NAME: 'dsh.tool.error.name',
  /** The `tools/pre-execute` waterfall's decision: `allow`, `deny` or `ask`. */
  DSH_POLICY_DECISION: 'dsh.tool.policy.decision',
  /** How an `ask` ended: `allowed-once`, or the denial code (`APPROVAL_REJECTED`, …). */
  DSH_APPROVAL_OUTCOME: 'dsh.tool.approval.outcome',
  /** The `tools/post-execute` review's decision: `accept` or `block`. */
  DSH_REVIEW_DECISION: 'dsh.tool.review.decision',
  /** Which result fields an `accept` replaced (`content`, `meta`, `structuredContent`): a redaction, for instance. */
  DSH_REVIEW_REPLACED: 'dsh.tool.review.replaced',
  /** The stage a child span covers: `approval` or `body`. */
  DSH_STAGE: 'dsh.tool.stage',
  /** The parent call's id, on a sub-call (a Code Mode program's call). */
  DSH_PARENT_CALL_ID: 'dsh.tool.parent.call.id',
  /** True on a call span created when its result arrived: the call ended before any policy saw it. */
  DSH_ENDED_BEFORE_POLICY: 'dsh.tool.ended_before_policy',
  /** A task's id (`@dsh/tool-tasks`). */
  DSH_TASK_ID: 'dsh.task.id',
  /** A task's final status: `completed`, `failed`, … */
  DSH_TASK_STATUS: 'dsh.task.status',
})

/** Span event names. */
export const EVENT = Object.freeze({
  /** The `tools/pre-execute` waterfall decided (attribute `dsh.tool.policy.decision`). */
  POLICY_DECIDED: 'dsh.policy.decided',
  /** The call reached the `tools/execute` wrappers (approval and guards passed). */
  DISPATCH_STARTED: 'dsh.dispatch.started',
  /** The `tools/execute` wrappers returned. */
  DISPATCH_ENDED: 'dsh.dispatch.ended',
  /** The `tools/post-execute` review started. */
  REVIEW_STARTED: 'dsh.review.started',
  /** The review decided (attributes `dsh.tool.review.*`). */
  REVIEW_DECIDED: 'dsh.review.decided',
})

/** Metric names. */
export const METRIC = Object.freeze({
  /** Histogram, seconds: from the call's first observed stage to its result (GenAI). */
  EXECUTE_TOOL_DURATION: 'gen_ai.execute_tool.duration',
  /** Counter: calls denied by policy, by code (`DENIED`, `GUARD_DENIED`, `APPROVAL_*`, `INVALID_DECISION`). */
  TOOL_DENIALS: 'dsh.tool.denials',
})

/**
 * The OpenTelemetry context key under which `@dsh/tools-mcp/server` sets a served call's request (its
 * `ServedCallInfo`) while the registry runs it: `createContextKey(SERVED_CALL_CONTEXT_KEY)` is `Symbol.for` of it.
 */
export const SERVED_CALL_CONTEXT_KEY = 'dsh.mcp.served_call'

/** The instrumentation scope name (tracer and meter). */
export const INSTRUMENTATION_SCOPE = '@dsh/tools-otel'

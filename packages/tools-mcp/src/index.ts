import type {} from '@dsh/tools-registry'
import type { Context } from 'cordis'
import { McpConfigError } from './mcp-config-error.js'
import type { McpServerStatus } from './mcp-events.js'
import { ServerConnection } from './server-connection.js'
import { resolveMcpServerConfig, type McpServerConfig } from './server-config.js'

export { requireFullArgumentValidation } from './argument-validation.js'
export { mapCallResult, mapContent, type MapCallResultContext, type MappedResult, type McpResultMeta } from './call-results.js'
export { listAllTools, MAX_WIRE_NAME_LENGTH, planTools, type OmittedTools, type PlannedTool, type PlanToolsOptions, type ToolState } from './discovery.js'
export { fingerprintTool } from './fingerprint.js'
export { McpCallError, type McpCallErrorOptions } from './mcp-call-error.js'
export { McpConfigError } from './mcp-config-error.js'
export { McpConnectError } from './mcp-connect-error.js'
export { MCP_ERROR_CODES, type McpErrorCode } from './mcp-error-codes.js'
export type { McpConnectionState, McpListenEvent, McpListenStatus, McpProgressEvent, McpServerStatus, McpToolStatus } from './mcp-events.js'
export { cutUtf8, DEFAULT_RESULT_BOUNDS, type ResultBounds } from './result-bounds.js'
export { gateInputSchema, gateOutputSchema, type OutputSchemaGateResult, type SchemaBounds, type SchemaFinding, type SchemaGateResult, type SchemaPolicy } from './schema-gate.js'
export { checkOutput, type OutputCheckResult } from './output-check.js'
export { MAX_PATTERN_LENGTH } from './linear-pattern.js'
export {
  callBudget,
  DEFAULT_INHERITED_ENV,
  resolveMcpServerConfig,
  type McpCallBudget,
  type McpRestartPolicy,
  type McpSchemaCheck,
  type McpServerConfig,
  type McpTaskConfig,
  type McpTimeouts,
  type McpToolConfig,
  type ResolvedMcpServerConfig,
} from './server-config.js'
export type { McpHttpAuth } from './http-auth.js'
export type { McpCallResult, McpContentBlock, McpToolAnnotations, McpToolDefinition } from './session-types.js'
export { toolPolicy, type ToolPolicy } from './tool-policy.js'
export { registryToolName, SERVER_ID_PATTERN, serverIdProblem, TOOL_NAME_PATTERN } from './tool-names.js'

/** The live connections by registry root and server id: server ids are unique per harness. */
const connections = new WeakMap<object, Map<string, ServerConnection>>()

function registryOf(ctx: Context): Map<string, ServerConnection> {
  let map = connections.get(ctx.root)
  if (map === undefined) connections.set(ctx.root, (map = new Map()))
  return map
}

/** The plugin's name. */
export const name = 'tools-mcp'
/** The plugin needs the registry. */
export const inject = ['tools']

/**
 * Connects one MCP server (`config.id`, a `command` for stdio or a `url` for Streamable HTTP) and registers its
 * tools in `ctx.tools` as `mcp__<id>__<tool>`. Connecting happens in the background; `mcp/status` events (and
 * {@link mcpServerStatus}, {@link whenMcpServerReady}) tell when tools are there. Disposing the plugin
 * unregisters them and ends the server's whole process group. Throws {@link McpConfigError} for a bad config or an
 * id already in use.
 */
export function apply(ctx: Context, config: McpServerConfig): void {
  const resolved = resolveMcpServerConfig(config)
  const live = registryOf(ctx)
  if (live.has(resolved.id)) throw new McpConfigError([`id: an MCP server with the id ${JSON.stringify(resolved.id)} is already loaded`])
  const connection = new ServerConnection(ctx, resolved)
  live.set(resolved.id, connection)
  ctx.effect(() => {
    connection.start()
    return async () => {
      if (live.get(resolved.id) === connection) live.delete(resolved.id)
      await connection.stop()
    }
  }, `mcp server ${resolved.id}`)
  ctx.tools.on('tools/pre-execute', (exec, next) => {
    const plan = connection.planFor(exec.name)
    if (plan === undefined || !plan.policy.ask) return next()
    return { kind: 'ask', reason: plan.policy.reason ?? `${exec.name} is a tool of the MCP server ${resolved.id}` }
  })
}

/** The plugin as an object, for `ctx.plugin(mcpServer, config)`. */
export const mcpServer = { name, inject, apply }

export default mcpServer

/** The current status of the loaded server `id`, or `undefined` when no such server is loaded. */
export function mcpServerStatus(ctx: Context, id: string): McpServerStatus | undefined {
  return registryOf(ctx).get(id)?.status()
}

/**
 * Resolves with the status once the server `id` is ready (its tools registered) or has given up (suspended,
 * closed); rejects with {@link McpConfigError} when no such server is loaded.
 */
export async function whenMcpServerReady(ctx: Context, id: string): Promise<McpServerStatus> {
  const connection = registryOf(ctx).get(id)
  if (connection === undefined) throw new McpConfigError([`id: no MCP server with the id ${JSON.stringify(id)} is loaded`])
  await connection.whenSettled()
  return connection.status()
}

/**
 * Approves the current definitions of quarantined tools of server `id` (by wire name; all of them when `tools` is
 * omitted) and registers them. A tool quarantined because another wire name owns its registry name is approved only
 * when named in `tools`, which hands it the name. To keep the approval across restarts of the harness, persist the
 * fingerprints of {@link McpServerStatus} tools in `pinned`.
 */
export async function approveMcpTools(ctx: Context, id: string, tools?: readonly string[]): Promise<McpServerStatus> {
  const connection = registryOf(ctx).get(id)
  if (connection === undefined) throw new McpConfigError([`id: no MCP server with the id ${JSON.stringify(id)} is loaded`])
  await connection.approve(tools)
  return connection.status()
}

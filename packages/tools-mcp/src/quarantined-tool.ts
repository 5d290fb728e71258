import type { ToolRegistration } from '@dsh/tools-registry'
import type { PlannedTool } from './discovery.js'
import { McpCallError } from './mcp-call-error.js'
import { MCP_ERROR_CODES } from './mcp-error-codes.js'

/** Why a tool is quarantined: its own definition drifted, or another wire name owns its registry name. */
export type QuarantineCause = { readonly kind: 'drift' } | { readonly kind: 'name'; readonly owner: string }

/**
 * The stand-in a quarantined tool keeps its registry name with: registered `listed: false`, so it is never offered
 * to a model (no schema of the changed definition reaches one), while a model that calls the name it saw before
 * learns why the tool cannot run (`MCP_TOOL_QUARANTINED`) instead of reading "Unknown tool". Nothing reaches the
 * server. Its parameters are open (any arguments reach the body, which only explains).
 */
export function quarantinedTool(plan: PlannedTool, server: string, cause: QuarantineCause): ToolRegistration {
  const why =
    cause.kind === 'name'
      ? `the MCP server ${JSON.stringify(server)} now lists a different tool (${JSON.stringify(plan.wireName)}) under the name that the tool ${JSON.stringify(cause.owner)} held`
      : `the MCP server ${JSON.stringify(server)} changed the tool's definition since it was approved`
  const message =
    `The tool ${plan.name} is waiting for approval: ${why}, so it is not available until a person approves the new definition. ` +
    'It was not called and nothing was sent to the server. Do not call it again for now; continue without it, or tell the user that it needs their approval.'
  return {
    name: plan.name,
    description: `Waiting for approval of a changed definition (MCP server ${server}); not callable until approved.`,
    parameters: { type: 'object' },
    listed: false,
    execute: () => {
      throw new McpCallError(MCP_ERROR_CODES.TOOL_QUARANTINED, message, server)
    },
  }
}

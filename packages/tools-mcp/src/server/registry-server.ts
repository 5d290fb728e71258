import type { Agent, ToolExecutionResult } from '@dsh/tools-core'
import type {} from '@dsh/tools-registry'
import { Server } from '@modelcontextprotocol/server'
import type { Context } from 'cordis'

/** What a served registry shows and on whose behalf it runs calls. */
export interface ToolServerOptions {
  /** Serve this agent's visible tools and run calls as this agent (its scope, restrictions, guards). Default: the global tools, no agent. */
  readonly agent?: Agent | undefined
  /** The name the server reports. Default `dsh-tools`. */
  readonly name?: string | undefined
  /** The version the server reports. Default `0.1.0`. */
  readonly version?: string | undefined
}

let callCounter = 0

function toMcpResult(result: ToolExecutionResult): Record<string, unknown> {
  const out: Record<string, unknown> = { content: result.content, isError: result.isError }
  if (!result.isError && result.structuredContent !== undefined) out.structuredContent = result.structuredContent
  if (result.error !== undefined) out._meta = { 'dsh/error': { name: result.error.name, code: result.error.code } }
  return out
}

/**
 * A low-level MCP `Server` in front of the registry of `ctx`: `tools/list` is `ctx.tools.schemas(agent)` (a
 * tool that may run in parallel is announced with `readOnlyHint: true`), every `tools/call` goes through
 * `ctx.tools.execute` (policy, guards, approval: an `ask` with no approval service or agent is a denial, which
 * the client sees as an `isError` result), and the client's cancellation aborts the call. Registry changes send
 * `notifications/tools/list_changed` (call the returned `dispose` to stop listening).
 */
export function createToolServer(ctx: Context, options: ToolServerOptions = {}): { server: Server; dispose: () => void } {
  const server = new Server(
    { name: options.name ?? 'dsh-tools', version: options.version ?? '0.1.0' },
    { capabilities: { tools: { listChanged: true } } },
  )
  const tools = ctx.tools
  server.setRequestHandler('tools/list', async () => ({
    tools: tools.schemas(options.agent).map((schema) => ({
      name: schema.name,
      description: schema.description,
      inputSchema: schema.parameters as { type: 'object' },
      annotations: { readOnlyHint: tools.executionMode({ name: schema.name, ...(options.agent === undefined ? {} : { agent: options.agent }) }) === 'parallel' },
    })),
  }))
  server.setRequestHandler('tools/call', async (request, context) => {
    callCounter += 1
    const result = await tools.execute({
      callId: `mcp_${callCounter}`,
      name: request.params.name,
      arguments: request.params.arguments ?? {},
      agent: options.agent,
      signal: context.mcpReq.signal,
    })
    return toMcpResult(result) as never
  })
  let connected = false
  server.oninitialized = () => (connected = true)
  const stop = ctx.on('tools/change', () => {
    if (connected) void server.sendToolListChanged().catch(() => {})
  })
  return { server, dispose: stop }
}

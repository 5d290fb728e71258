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

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The MCP form of a result. MCP allows only an object as `structuredContent`: another value (a `defineTool`
 * output that is a string or an array) is not sent, and the client reads it from the rendered content. A
 * successful result of a tool that lists an `outputSchema` must carry its object (clients reject the result
 * otherwise); when it does not (a `tools/post-execute` listener dropped it), the call is reported as failed
 * (`INVALID_TOOL_OUTPUT`) with its content, rather than as a success the client cannot check.
 */
function toMcpResult(result: ToolExecutionResult, declaresOutput: boolean): Record<string, unknown> {
  const structured = result.isError ? undefined : result.structuredContent
  if (isJsonObject(structured)) return withError({ content: result.content, isError: false, structuredContent: structured }, result)
  if (!result.isError && declaresOutput) {
    const note = 'The tool declares an outputSchema, but this result carries no structuredContent object to check against it.'
    return {
      content: [...result.content, { type: 'text', text: note }],
      isError: true,
      _meta: { 'dsh/error': { name: 'ToolOutputError', code: 'INVALID_TOOL_OUTPUT' } },
    }
  }
  return withError({ content: result.content, isError: result.isError }, result)
}

function withError(out: Record<string, unknown>, result: ToolExecutionResult): Record<string, unknown> {
  if (result.error !== undefined) out._meta = { 'dsh/error': { name: result.error.name, code: result.error.code } }
  return out
}

/**
 * A low-level MCP `Server` in front of the registry of `ctx`: `tools/list` is `ctx.tools.schemas(agent)` (a
 * tool that may run in parallel is announced with `readOnlyHint: true`; a tool's `ctx.tools.outputSchema` is listed
 * as its `outputSchema`, and a successful call of it returns its `structuredContent`), every `tools/call` goes
 * through `ctx.tools.execute` (policy, guards, approval: an `ask` with no approval service or agent is a denial,
 * which the client sees as an `isError` result), and the client's cancellation aborts the call. Registry changes send
 * `notifications/tools/list_changed` (call the returned `dispose` to stop listening).
 */
export function createToolServer(ctx: Context, options: ToolServerOptions = {}): { server: Server; dispose: () => void } {
  const server = new Server(
    { name: options.name ?? 'dsh-tools', version: options.version ?? '0.1.0' },
    { capabilities: { tools: { listChanged: true } } },
  )
  const tools = ctx.tools
  const { agent } = options
  server.setRequestHandler('tools/list', async () => ({
    tools: tools.schemas(agent).map((schema) => {
      const outputSchema = tools.outputSchema(schema.name, agent)
      return {
        name: schema.name,
        description: schema.description,
        inputSchema: schema.parameters as { type: 'object' },
        ...(outputSchema === undefined ? {} : { outputSchema: outputSchema as { type: 'object' } }),
        annotations: { readOnlyHint: tools.executionMode({ name: schema.name, ...(agent === undefined ? {} : { agent }) }) === 'parallel' },
      }
    }),
  }))
  server.setRequestHandler('tools/call', async (request, context) => {
    callCounter += 1
    const result = await tools.execute({
      callId: `mcp_${callCounter}`,
      name: request.params.name,
      arguments: request.params.arguments ?? {},
      agent,
      signal: context.mcpReq.signal,
    })
    return toMcpResult(result, tools.outputSchema(request.params.name, agent) !== undefined) as never
  })
  let connected = false
  server.oninitialized = () => (connected = true)
  const stop = ctx.on('tools/change', () => {
    if (connected) void server.sendToolListChanged().catch(() => {})
  })
  return { server, dispose: stop }
}

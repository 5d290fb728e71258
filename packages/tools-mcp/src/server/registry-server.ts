import type { Agent, ToolExecutionResult } from '@dsh/tools-core'
import type {} from '@dsh/tools-registry'
import { Server } from '@modelcontextprotocol/server'
import type { Context } from 'cordis'
import { McpConfigError } from '../mcp-config-error.js'

/** What a served registry shows and on whose behalf it runs calls. */
export interface ToolServerOptions {
  /** Serve this agent's visible tools and run calls as this agent (its scope, restrictions, guards). Default: the global tools, no agent. */
  readonly agent?: Agent | undefined
  /** The name the server reports. Default `dsh-tools`. */
  readonly name?: string | undefined
  /** The version the server reports. Default `0.1.0`. */
  readonly version?: string | undefined
  /**
   * How long a 2026-07-28 client may cache the `tools/list` result (its `ttlMs`, with `cacheScope: 'private'`:
   * the list depends on the agent and the token). Default 0: always stale, so a client that does not listen for
   * changes re-lists every time. Clients that keep a `subscriptions/listen` stream open (HTTP) are told of every
   * change either way. Ignored by 2025-era clients, which get `list_changed` on their connection.
   */
  readonly listTtlMs?: number | undefined
}

/** How {@link createToolServer}'s own change notifications are sent; internal to the serving entries. */
export interface ToolServerWiring {
  /** Send `notifications/tools/list_changed` on the server's own connection (stdio, in-memory). Default `true`. */
  readonly notifyOnConnection?: boolean | undefined
  /**
   * The era the server's connection speaks. A 2025-era connection is notified only after `initialized`; a
   * 2026-07-28 one has no handshake, so from the start (the serving entry routes the notification onto the
   * connection's `subscriptions/listen` streams). Default `legacy`.
   */
  readonly era?: 'legacy' | 'modern' | undefined
  /**
   * Called with the send of each coalesced notification instead of sending it at once: a 2025-era HTTP session
   * holds it back until its `GET` stream is open, so a change made before the client opened it is not lost.
   */
  readonly deliver?: ((send: () => void) => void) | undefined
}

/**
 * Runs `send` once after a burst of calls of the returned function (a plugin registering ten tools at once is one
 * notification): on the next macrotask, timer cleared by `cancel`.
 */
export function coalesced(send: () => void): { readonly schedule: () => void; readonly cancel: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined
  return {
    schedule: () => {
      if (timer !== undefined) return
      timer = setTimeout(() => {
        timer = undefined
        send()
      }, 0)
    },
    cancel: () => {
      clearTimeout(timer)
      timer = undefined
    },
  }
}

function cacheHints(options: ToolServerOptions): { 'tools/list': { ttlMs: number; cacheScope: 'private' } } | undefined {
  const ttlMs = options.listTtlMs
  if (ttlMs === undefined) return undefined
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 0) throw new McpConfigError([`listTtlMs: must be a non-negative integer number of milliseconds, got ${JSON.stringify(ttlMs) ?? String(ttlMs)}`])
  return { 'tools/list': { ttlMs, cacheScope: 'private' } }
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
 * `notifications/tools/list_changed` on the server's connection, one per burst of changes (call the returned
 * `dispose` to stop listening). `listTtlMs` sets the `ttlMs` of 2026-07-28 `tools/list` results.
 */
export function createToolServer(ctx: Context, options: ToolServerOptions = {}, wiring: ToolServerWiring = {}): { server: Server; dispose: () => void } {
  const hints = cacheHints(options)
  const server = new Server(
    { name: options.name ?? 'dsh-tools', version: options.version ?? '0.1.0' },
    { capabilities: { tools: { listChanged: true } }, ...(hints === undefined ? {} : { cacheHints: hints }) },
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
  if (wiring.notifyOnConnection === false) return { server, dispose: () => {} }
  let connected = wiring.era === 'modern'
  server.oninitialized = () => (connected = true)
  const send = () => void server.sendToolListChanged().catch(() => {})
  const notify = coalesced(() => {
    if (!connected) return
    if (wiring.deliver === undefined) send()
    else wiring.deliver(send)
  })
  const stop = ctx.on('tools/change', notify.schedule)
  return {
    server,
    dispose: () => {
      stop()
      notify.cancel()
    },
  }
}

import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createMcpHandler, DEFAULT_MAX_REQUEST_BODY_SIZE, isLegacyRequest, validateHostHeader, validateOriginHeader, type ServerContext } from '@modelcontextprotocol/server'
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio'
import type { Context } from 'cordis'
import { createLegacySessions, type LegacySessionOptions } from './legacy-sessions.js'
import { coalesced, createToolServer, type ToolServerOptions } from './registry-server.js'
import { PendingApprovals, resolveApprovalOptions } from './served-approval.js'
import { resolveTaskOptions, ServedTasks } from './served-tasks.js'
import { guardStdout } from './stdout-guard.js'

/** A running MCP server: close it to stop serving (and, for HTTP, to free the port). */
export interface ServedTools {
  close(): Promise<void>
}

/**
 * Serves the registry of `ctx` as an MCP server on this process's stdin/stdout (one client: the parent), in both
 * protocol eras: the client's opening exchange picks the era (the SDK's `serveStdio`). Registry changes reach a
 * 2025-era client as `notifications/tools/list_changed` after its `initialized`, and a 2026-07-28 client on its
 * `subscriptions/listen` streams; one notification per burst of changes.
 *
 * stdout is the protocol stream: until `close()`, every other write to `process.stdout` (a tool's `console.log`,
 * a library's progress line) goes to stderr instead, so nothing but protocol messages reaches the client. Writes to
 * file descriptor 1 that bypass `process.stdout` (`fs.writeSync(1, …)`, a child process spawned with inherited
 * stdio) cannot be routed: give child processes piped or ignored stdout. Long calls are served as MCP tasks of this
 * connection (`tasks`), all cancelled by `close()`. Invalid options throw `McpConfigError` before anything is served.
 */
export async function serveToolsStdio(ctx: Context, options: ToolServerOptions = {}): Promise<ServedTools> {
  const approvals = new PendingApprovals(resolveApprovalOptions(options))
  const taskSettings = resolveTaskOptions(options.tasks)
  // One client, the parent: every task belongs to this connection.
  const tasks = taskSettings === undefined ? undefined : new ServedTasks(taskSettings)
  const disposers = new Set<() => void>()
  const stdout = guardStdout()
  let handle: ReturnType<typeof serveStdio>
  try {
    handle = serveStdio(
      ({ era }) => {
        // A discovery probe's instance may be dropped unconnected: its listener goes with close() at the latest.
        const { server, dispose } = createToolServer(ctx, options, { era, approvals, tasks, taskOwner: () => 'stdio' })
        disposers.add(dispose)
        server.onclose = () => (dispose(), disposers.delete(dispose))
        return server
      },
      { transport: new StdioServerTransport(process.stdin, stdout.protocol) },
    )
  } catch (error) {
    stdout.release()
    throw error
  }
  return {
    close: async () => {
      for (const dispose of disposers) dispose()
      disposers.clear()
      approvals.close()
      tasks?.close()
      try {
        await handle.close()
      } finally {
        stdout.release()
      }
    },
  }
}

/** Options of {@link serveToolsHttp}. */
export interface HttpServeOptions extends ToolServerOptions, LegacySessionOptions {
  /** The port on 127.0.0.1. Default 0 (any free port; read `url`). */
  readonly port?: number | undefined
  /** When set, every request needs `Authorization: Bearer <token>` (401 otherwise). */
  readonly token?: string | undefined
  /** Extra host names accepted in `Host` and `Origin` besides localhost and 127.0.0.1. */
  readonly allowedHosts?: readonly string[] | undefined
}

class BodyTooLarge extends Error {}

/**
 * The owner of a 2026-07-28 caller's tasks: its credentials (the `Authorization` header, hashed), so a task id works
 * only with the credentials that created it. Without credentials every caller is the same owner, and the id (128
 * random bits) is the only secret.
 */
function callerOwner(context: ServerContext): string {
  const authorization = context.http?.req?.headers.get('authorization') ?? ''
  return `caller:${createHash('sha256').update(authorization).digest('base64url')}`
}

/**
 * The signal of one exchange: aborted when the client goes away before the response is complete (it closed the
 * connection, or its request's SSE stream). In the 2026-07-28 era that is how a client cancels a request (it sends
 * no `notifications/cancelled` over HTTP): the SDK then closes the exchange, which aborts the served call's
 * `exec.signal`, and ends a `subscriptions/listen` stream. A 2025-era session's calls are cancelled by
 * `notifications/cancelled` only, as that era's spec says (a dropped stream is not a cancellation there; the SDK's
 * session transport does not read this signal); a sessionless 2025-era request is torn down with it, since nothing
 * could receive its answer.
 */
function exchangeSignal(response: ServerResponse): AbortSignal {
  const controller = new AbortController()
  response.once('close', () => {
    if (!response.writableFinished) controller.abort(new Error('The client closed the connection before the response was complete'))
  })
  return controller.signal
}

async function toFetchRequest(request: IncomingMessage, port: number, signal: AbortSignal): Promise<{ fetchRequest: Request; parsedBody: unknown }> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request) {
    size += (chunk as Buffer).length
    if (size > DEFAULT_MAX_REQUEST_BODY_SIZE) throw new BodyTooLarge()
    chunks.push(chunk as Buffer)
  }
  const headers = new Headers()
  for (const [key, value] of Object.entries(request.headers)) if (typeof value === 'string') headers.set(key, value)
  const method = request.method ?? 'GET'
  const body = Buffer.concat(chunks)
  const init: RequestInit = method === 'GET' || method === 'HEAD' ? { method, headers, signal } : { method, headers, body, signal }
  let parsedBody: unknown
  if (method === 'POST' && body.length > 0) {
    try {
      parsedBody = JSON.parse(body.toString('utf8'))
    } catch {
      parsedBody = undefined
    }
  }
  return { fetchRequest: new Request(`http://127.0.0.1:${port}${request.url ?? '/'}`, init), parsedBody }
}

async function writeResponse(answer: Response, response: ServerResponse): Promise<void> {
  response.writeHead(answer.status, Object.fromEntries(answer.headers))
  if (answer.body === null) {
    response.end()
    return
  }
  // An SSE stream may stay silent for long (a GET stream until the first notification): send its headers now.
  response.flushHeaders()
  const reader = answer.body.getReader()
  response.on('close', () => void reader.cancel().catch(() => {}))
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    response.write(value)
  }
  response.end()
}

/**
 * Serves the registry of `ctx` over Streamable HTTP on 127.0.0.1 only (both protocol eras on one endpoint), behind
 * `Host` and `Origin` checks against DNS rebinding (403) and an optional bearer token (401) on every request.
 *
 * - 2026-07-28 clients are served statelessly (a fresh server per request); registry changes reach them on their
 *   `subscriptions/listen` streams.
 * - 2025-era clients (`initialize`) get a real session: an `Mcp-Session-Id`, a standalone `GET` SSE stream on which
 *   registry changes arrive as `notifications/tools/list_changed`, `DELETE` to end it. Each session has its own
 *   server over the same registry. Sessions are bounded (`maxSessions`, default 64: an `initialize` past it gets
 *   HTTP 503 with the JSON-RPC error -32000, `data.code` `MCP_SESSION_LIMIT`) and end after `sessionIdleTimeoutMs`
 *   (default 10 minutes) with no request in flight and no open stream. An unknown or ended session id gets HTTP 404
 *   (JSON-RPC -32001), the protocol's signal to start a new session.
 *
 * Either era gets one notification per burst of registry changes. A request body over 4 MiB gets 413.
 *
 * Long calls are served as MCP tasks (`tasks`, on by default): a 2025-era session's tasks belong to the session and
 * are cancelled when it ends; a 2026-07-28 caller's tasks belong to the credentials it sent (its `Authorization`
 * header). `close()` cancels every task, ends every session and open stream, and frees the port.
 */
export async function serveToolsHttp(ctx: Context, options: HttpServeOptions = {}): Promise<ServedTools & { readonly url: string }> {
  const disposers = new Set<() => void>()
  // 2026-07-28 calls waiting for their client's approval outlive the per-request server that asked: one store for all.
  const approvals = new PendingApprovals(resolveApprovalOptions(options))
  disposers.add(() => approvals.close())
  const taskSettings = resolveTaskOptions(options.tasks)
  const tasks = taskSettings === undefined ? undefined : new ServedTasks(taskSettings)
  disposers.add(() => tasks?.close())
  const sessions = createLegacySessions(ctx, options, tasks)
  // Per-request servers hold no connection to notify on; the handler's listen router does it for every open stream.
  const handler = createMcpHandler(
    () => {
      const { server, dispose } = createToolServer(ctx, options, { notifyOnConnection: false, era: 'modern', approvals, tasks, taskOwner: callerOwner })
      disposers.add(dispose)
      server.onclose = () => (dispose(), disposers.delete(dispose))
      return server
    },
    { legacy: 'reject' },
  )
  const changes = coalesced(() => handler.notify.toolsChanged())
  const stopListening = ctx.on('tools/change', changes.schedule)
  disposers.add(() => (stopListening(), changes.cancel()))
  const hosts = ['localhost', '127.0.0.1', '[::1]', ...(options.allowedHosts ?? [])]
  const route = async (request: Request, parsedBody: unknown): Promise<Response> =>
    (await isLegacyRequest(request, parsedBody)) ? sessions.handle(request, parsedBody) : handler.fetch(request)
  let port = 0
  const http = createServer((request, response) => {
    if (!validateHostHeader(request.headers.host, [...hosts]).ok) return void response.writeHead(403).end('Forbidden host')
    const origin = request.headers.origin
    if (origin !== undefined && !validateOriginHeader(origin, [...hosts]).ok) return void response.writeHead(403).end('Forbidden origin')
    if (options.token !== undefined && request.headers.authorization !== `Bearer ${options.token}`) {
      return void response.writeHead(401, { 'www-authenticate': 'Bearer' }).end('Unauthorized')
    }
    void toFetchRequest(request, port, exchangeSignal(response))
      .then(({ fetchRequest, parsedBody }) => route(fetchRequest, parsedBody))
      .then((answer) => writeResponse(answer, response))
      .catch((error: unknown) => {
        if (error instanceof BodyTooLarge && !response.headersSent) return void response.writeHead(413).end('Request body too large')
        response.destroy()
      })
  })
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject)
    http.listen(options.port ?? 0, '127.0.0.1', () => resolve())
  })
  const address = http.address()
  port = typeof address === 'object' && address !== null ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      for (const dispose of disposers) dispose()
      disposers.clear()
      await sessions.close()
      await handler.close?.()
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
}

import { createServer } from 'node:http'
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio'
import type { Context } from 'cordis'
import { McpConfigError } from '../mcp-config-error.js'
import { createToolsHttpHandler, isLoopbackHost, type ToolsHttpHandler, type ToolsHttpHandlerOptions } from './http-handler.js'
import { createToolServer, type ToolServerOptions } from './registry-server.js'
import type { ServedMetrics } from './served-metrics.js'
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
        const { server, dispose } = createToolServer(ctx, options, { era, approvals, tasks, taskOwner: () => 'stdio', transport: 'stdio' })
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
export interface HttpServeOptions extends ToolsHttpHandlerOptions {
  /** The port. Default 0 (any free port; read `url`). */
  readonly port?: number | undefined
  /**
   * The address to bind. Default `127.0.0.1`. Any address that is not loopback (`0.0.0.0`, `::`, a LAN address)
   * requires `allowedHosts` naming the host names clients use (DNS-rebinding protection stays fail-closed):
   * without it `serveToolsHttp` throws `McpConfigError`.
   */
  readonly host?: string | undefined
  /** Serve the counters at `GET /metrics` (Prometheus text format, no authentication). Default `false`. */
  readonly metrics?: boolean | undefined
}

/** A running HTTP server of {@link serveToolsHttp}. */
export interface ServedToolsHttp extends ServedTools {
  /** The MCP endpoint: `http://<host>:<port>/mcp` (any path but the operational ones is the endpoint). */
  readonly url: string
  /** A snapshot of the counters (sessions, streams, calls in flight, denials by code). */
  metrics(): ServedMetrics
  /**
   * Graceful drain: stops accepting connections and new sessions or streams, readiness answers 503, finishes the
   * requests and calls under way, then closes as `close()` does (after `timeoutMs`, default 30000, at the latest).
   */
  drain(options?: { readonly timeoutMs?: number | undefined }): Promise<void>
}

/**
 * Serves the registry of `ctx` over Streamable HTTP (both protocol eras on one endpoint) on 127.0.0.1, or on `host`
 * (a non-loopback address requires `allowedHosts`), behind `Host` and `Origin` checks against DNS rebinding (403),
 * authentication on every MCP request (a static `token`, or `auth`: per-caller tokens or OAuth 2.1 access tokens,
 * each caller served as its own agent; 401/403 with `WWW-Authenticate`), and a 4 MiB body limit (413).
 *
 * - 2026-07-28 clients are served statelessly (a fresh server per request); registry changes reach them on their
 *   `subscriptions/listen` streams. They need no session affinity.
 * - 2025-era clients (`initialize`) get a real session: an `Mcp-Session-Id`, a standalone `GET` SSE stream on which
 *   registry changes arrive as `notifications/tools/list_changed`, `DELETE` to end it. Sessions are bounded
 *   (`maxSessions`, default 64: 503 `MCP_SESSION_LIMIT` past it) and end after `sessionIdleTimeoutMs` (default 10
 *   minutes) idle; an unknown or ended session id (or another caller's) gets HTTP 404 (JSON-RPC -32001).
 *   `sessions: false` keeps none: every 2025-era request is answered on its own, so any replica serves any request.
 *
 * Operational paths, without authentication or host checks: `GET /healthz` (200 while open), `GET /readyz` (503 once
 * draining), `GET /metrics` (with `metrics: true`), and `auth`'s protected-resource metadata at its well-known path.
 * Every other path is the MCP endpoint. Event streams get a heartbeat comment after `heartbeatMs` of silence.
 *
 * Long calls are served as MCP tasks (`tasks`, on by default), owned by the 2025-era session or the 2026-07-28
 * caller. `close()` cancels every task, ends every session and open stream, and frees the port; `drain()` first lets
 * what runs finish. Invalid options throw `McpConfigError` before anything is served.
 */
export async function serveToolsHttp(ctx: Context, options: HttpServeOptions = {}): Promise<ServedToolsHttp> {
  const host = options.host ?? '127.0.0.1'
  if (typeof host !== 'string' || host === '') throw new McpConfigError(['host: must be a non-empty address'])
  if (!isLoopbackHost(host) && (options.allowedHosts === undefined || options.allowedHosts.length === 0)) {
    throw new McpConfigError([
      `host: ${JSON.stringify(host)} is not a loopback address, so allowedHosts must name the host names clients use (tools.example.com); the Host and Origin checks against DNS rebinding stay closed to everything else`,
    ])
  }
  const handler: ToolsHttpHandler = createToolsHttpHandler(ctx, options)
  const metadataPath = options.auth?.resourceMetadata?.path
  const http = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]
    if (request.method === 'GET' || request.method === 'HEAD') {
      if (path === '/healthz') return handler.health(request, response)
      if (path === '/readyz') return handler.ready(request, response)
      if (path === '/metrics' && options.metrics === true) return handler.metricsEndpoint(request, response)
    }
    if (metadataPath !== undefined && path === metadataPath) return handler.resourceMetadata(request, response)
    handler.handle(request, response)
  })
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject)
    http.listen(options.port ?? 0, host, () => resolve())
  })
  const address = http.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  const urlHost = host.includes(':') ? `[${host}]` : host
  let closing: Promise<void> | undefined
  const shutDown = (): Promise<void> =>
    (closing ??= (async () => {
      await handler.close()
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    })())
  return {
    url: `http://${urlHost}:${port}/mcp`,
    metrics: () => handler.metrics(),
    drain: async (drainOptions) => {
      // No new connections from now on (a proxy tries the next replica); idle keep-alive ones end now.
      http.close()
      http.closeIdleConnections()
      await handler.drain(drainOptions)
      await shutDown()
    },
    close: shutDown,
  }
}

import { createHash } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  createMcpHandler,
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  isLegacyRequest,
  legacyStatelessFallback,
  validateHostHeader,
  validateOriginHeader,
  type AuthInfo,
  type ServerContext,
} from '@modelcontextprotocol/server'
import type { Context } from 'cordis'
import { McpConfigError } from '../mcp-config-error.js'
import { createLegacySessions, type LegacySessionOptions } from './legacy-sessions.js'
import { coalesced, createToolServer, type ToolServerOptions, type ToolServerWiring } from './registry-server.js'
import { PendingApprovals, resolveApprovalOptions } from './served-approval.js'
import { bearerChallenge, type ServedAuth, type ServedAuthRefusal, type ServedCaller } from './served-auth.js'
import { prometheusText, ServedCounters, type ServedMetrics } from './served-metrics.js'
import { resolveTaskOptions, ServedTasks } from './served-tasks.js'

/** Options of {@link createToolsHttpHandler} (and of `serveToolsHttp`, which is built on it). */
export interface ToolsHttpHandlerOptions extends ToolServerOptions, LegacySessionOptions {
  /** One static token: every request needs `Authorization: Bearer <token>` (401 otherwise). Not with `auth`. */
  readonly token?: string | undefined
  /**
   * Per-caller authentication ({@link callerTokens}, {@link oauthResourceServer}, or your own): every MCP request is
   * authenticated, and its caller is served as the caller's agent. Not with `token`.
   */
  readonly auth?: ServedAuth | undefined
  /**
   * Host names accepted in `Host` and `Origin` besides localhost, 127.0.0.1 and [::1] (DNS-rebinding protection): the
   * names clients and your proxy use (`tools.example.com`). A request naming any other host gets 403.
   */
  readonly allowedHosts?: readonly string[] | undefined
  /**
   * `false`: no 2025-era sessions. Every 2025-era request is answered on its own (`initialize` too, without an
   * `Mcp-Session-Id`), so any replica answers any request; a `GET` stream or a `DELETE` gets 405 saying so, and
   * 2025-era clients get no `list_changed` (they re-list). Default `true` (sessions in this process's memory).
   */
  readonly sessions?: boolean | undefined
  /**
   * An SSE comment (`: heartbeat`) is written on every open event stream that has been silent this long, so that a
   * proxy's or load balancer's idle timeout does not cut it. `0` turns heartbeats off. Default 15000.
   */
  readonly heartbeatMs?: number | undefined
}

/**
 * A registry's MCP endpoint as plain Node `http` handlers, to mount in a server of your own (behind your proxy, next
 * to your routes). Each handler answers the request fully; none calls a `next`.
 */
export interface ToolsHttpHandler {
  /** The MCP endpoint (both eras): `Host`/`Origin` checks, authentication, the 4 MiB body limit, sessions. */
  readonly handle: (request: IncomingMessage, response: ServerResponse) => void
  /** Liveness: 200 `ok` while the handler is open (no checks, no authentication). */
  readonly health: (request: IncomingMessage, response: ServerResponse) => void
  /** Readiness: 200 `ready`, or 503 `draining` once `drain()` was called (no checks, no authentication). */
  readonly ready: (request: IncomingMessage, response: ServerResponse) => void
  /** The counters in the Prometheus text format (no authentication: mount it where only your scraper reaches). */
  readonly metricsEndpoint: (request: IncomingMessage, response: ServerResponse) => void
  /** The protected-resource metadata of `auth` (RFC 9728), when it has one; mount it at `auth.resourceMetadata.path`. */
  readonly resourceMetadata: (request: IncomingMessage, response: ServerResponse) => void
  /** A snapshot of the counters. */
  metrics(): ServedMetrics
  /**
   * Graceful drain: readiness answers 503 at once, nothing new and long-lived is opened (a session's `initialize`, a
   * `GET` stream, a `subscriptions/listen`: 503), requests already under way and running calls are finished (every
   * answer says `Connection: close`), then everything is closed as by `close()`: after `timeoutMs` (default 30000) at
   * the latest, cancelling what still runs. Stop your own server accepting connections at the same time.
   */
  drain(options?: { readonly timeoutMs?: number | undefined }): Promise<void>
  /** Cancels every task, ends every session and stream, stops listening to the registry. */
  close(): Promise<void>
}

class BodyTooLarge extends Error {}

function isLoopbackName(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host)
}

/** Whether binding `host` serves loopback only (`localhost`, 127.0.0.0/8, ::1). */
export function isLoopbackHost(host: string): boolean {
  return isLoopbackName(host)
}

/**
 * The owner of a 2026-07-28 caller's tasks: the authenticated caller's id when there is one (a refreshed token keeps
 * them), else its credentials (the `Authorization` header, hashed), so a task id works only for whoever created it.
 * Without credentials every caller is the same owner, and the id (128 random bits) is the only secret.
 */
function callerOwner(context: ServerContext): string {
  const caller = callerOf(context.http?.authInfo)
  if (caller !== undefined) return `caller-id:${caller.id}`
  const authorization = context.http?.req?.headers.get('authorization') ?? ''
  return `caller:${createHash('sha256').update(authorization).digest('base64url')}`
}

function callerOf(authInfo: AuthInfo | undefined): ServedCaller | undefined {
  return authInfo?.extra?.caller as ServedCaller | undefined
}

function authInfoOf(caller: ServedCaller | undefined): AuthInfo | undefined {
  if (caller === undefined) return undefined
  return { token: '', clientId: caller.id, scopes: [...(caller.scopes ?? [])], extra: { caller } }
}

/**
 * The signal of one exchange: aborted when the client goes away before the response is complete (it closed the
 * connection, or its request's SSE stream). In the 2026-07-28 era that is how a client cancels a request (it sends
 * no `notifications/cancelled` over HTTP): the SDK then closes the exchange, which aborts the served call's
 * `exec.signal`, and ends a `subscriptions/listen` stream. A 2025-era session's calls are cancelled by
 * `notifications/cancelled` only, as that era's spec says; a sessionless 2025-era request is torn down with it, since
 * nothing could receive its answer.
 */
function exchangeSignal(response: ServerResponse): AbortSignal {
  const controller = new AbortController()
  response.once('close', () => {
    if (!response.writableFinished) controller.abort(new Error('The client closed the connection before the response was complete'))
  })
  return controller.signal
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  // A framework's body parser (express.json()) has read the stream already: take its value.
  const parsed = (request as { body?: unknown }).body
  if (parsed !== undefined && request.readableEnded) {
    const text = Buffer.isBuffer(parsed) ? parsed : Buffer.from(typeof parsed === 'string' ? parsed : JSON.stringify(parsed))
    if (text.length > DEFAULT_MAX_REQUEST_BODY_SIZE) throw new BodyTooLarge()
    return text
  }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request) {
    size += (chunk as Buffer).length
    if (size > DEFAULT_MAX_REQUEST_BODY_SIZE) throw new BodyTooLarge()
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks)
}

function toFetchRequest(request: IncomingMessage, body: Buffer, signal: AbortSignal): { fetchRequest: Request; parsedBody: unknown } {
  const headers = new Headers()
  for (const [key, value] of Object.entries(request.headers)) if (typeof value === 'string') headers.set(key, value)
  const method = request.method ?? 'GET'
  const init: RequestInit = method === 'GET' || method === 'HEAD' ? { method, headers, signal } : { method, headers, body, signal }
  let parsedBody: unknown
  if (method === 'POST' && body.length > 0) {
    try {
      parsedBody = JSON.parse(body.toString('utf8'))
    } catch {
      parsedBody = undefined
    }
  }
  // The URL's host is never read (the Host header was checked above); a fixed one keeps a hostile Host out of it.
  return { fetchRequest: new Request(`http://127.0.0.1${request.url ?? '/'}`, init), parsedBody }
}

const blankLine = 10

/** Writes the answer; an event stream gets a heartbeat comment whenever it was silent `heartbeatMs`, between events only. */
async function writeResponse(answer: Response, response: ServerResponse, heartbeatMs: number, extraHeaders: Record<string, string>): Promise<void> {
  response.writeHead(answer.status, { ...Object.fromEntries(answer.headers), ...extraHeaders })
  if (answer.body === null) {
    response.end()
    return
  }
  // An SSE stream may stay silent for long (a GET stream until the first notification): send its headers now.
  response.flushHeaders()
  const reader = answer.body.getReader()
  response.on('close', () => void reader.cancel().catch(() => {}))
  const isStream = (answer.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream')
  let atBoundary = true
  let timer: ReturnType<typeof setInterval> | undefined
  let lastWrite = Date.now()
  if (isStream && heartbeatMs > 0) {
    timer = setInterval(() => {
      if (atBoundary && Date.now() - lastWrite >= heartbeatMs && !response.writableEnded) {
        response.write(': heartbeat\n\n')
        lastWrite = Date.now()
      }
    }, Math.max(1, Math.floor(heartbeatMs / 2)))
    timer.unref?.()
  }
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      response.write(value)
      lastWrite = Date.now()
      atBoundary = value.length >= 2 && value[value.length - 1] === blankLine && value[value.length - 2] === blankLine
    }
  } finally {
    clearInterval(timer)
  }
  response.end()
}

function jsonRpcRefusal(response: ServerResponse, status: number, message: string, data: Record<string, unknown>, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message, data } }))
}

function nonNegativeInteger(issues: string[], name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value < 0) issues.push(`${name}: must be a non-negative integer, got ${JSON.stringify(value) ?? String(value)}`)
  return value
}

/**
 * The MCP endpoint of `serveToolsHttp` as Node `http` handlers, for a server of your own: the same `Host`/`Origin`
 * checks (403), authentication (401/403), body limit (413), both eras, 2025-era sessions (or none, `sessions: false`),
 * tasks and approvals. See {@link ToolsHttpHandler}. Invalid options throw `McpConfigError`.
 *
 * ```ts
 * const mcp = createToolsHttpHandler(ctx, { allowedHosts: ['tools.example.com'], auth: callerTokens(tokens) })
 * createServer((req, res) => (req.url?.startsWith('/mcp') ? mcp.handle(req, res) : res.writeHead(404).end())).listen(8080)
 * ```
 */
export function createToolsHttpHandler(ctx: Context, options: ToolsHttpHandlerOptions = {}): ToolsHttpHandler {
  const issues: string[] = []
  if (options.token !== undefined && options.auth !== undefined) issues.push('token/auth: give one of them (token is one static bearer; auth authenticates each caller)')
  if (options.token !== undefined && (typeof options.token !== 'string' || options.token === '')) issues.push('token: must be a non-empty string')
  if (options.auth !== undefined && typeof options.auth?.authenticate !== 'function') issues.push('auth: must have an authenticate(authorization) method (see callerTokens, oauthResourceServer)')
  if (options.allowedHosts !== undefined && (!Array.isArray(options.allowedHosts) || !options.allowedHosts.every((host) => typeof host === 'string' && host !== ''))) {
    issues.push('allowedHosts: must be an array of host names')
  }
  if (options.sessions !== undefined && typeof options.sessions !== 'boolean') issues.push('sessions: must be a boolean')
  const heartbeatMs = nonNegativeInteger(issues, 'heartbeatMs', options.heartbeatMs, 15_000)
  if (issues.length > 0) throw new McpConfigError(issues)

  const counters = new ServedCounters()
  const onCall: ToolServerWiring['onCall'] = () => counters.callStarted()
  const disposers = new Set<() => void>()
  // 2026-07-28 calls waiting for their client's approval outlive the per-request server that asked: one store for all.
  const approvals = new PendingApprovals(resolveApprovalOptions(options))
  disposers.add(() => approvals.close())
  const taskSettings = resolveTaskOptions(options.tasks)
  const tasks = taskSettings === undefined ? undefined : new ServedTasks(taskSettings)
  disposers.add(() => tasks?.close())
  const agentFor = (authInfo: AuthInfo | undefined) => callerOf(authInfo)?.agent ?? options.agent
  const sessionful = options.sessions !== false
  const sessions = sessionful ? createLegacySessions(ctx, options, tasks, onCall) : undefined
  const statelessLegacy = sessionful
    ? undefined
    : legacyStatelessFallback(({ authInfo }) => {
        const { server, dispose } = createToolServer(ctx, { ...options, agent: agentFor(authInfo) }, { notifyOnConnection: false, tasks, taskOwner: () => undefined, onCall, transport: 'http' })
        disposers.add(dispose)
        server.onclose = () => (dispose(), disposers.delete(dispose))
        return server
      })
  // Per-request servers hold no connection to notify on; the handler's listen router does it for every open stream.
  const modern = createMcpHandler(
    ({ authInfo }) => {
      const { server, dispose } = createToolServer(ctx, { ...options, agent: agentFor(authInfo) }, { notifyOnConnection: false, era: 'modern', approvals, tasks, taskOwner: callerOwner, onCall, transport: 'http' })
      disposers.add(dispose)
      server.onclose = () => (dispose(), disposers.delete(dispose))
      return server
    },
    { legacy: 'reject', keepAliveMs: 0 },
  )
  const changes = coalesced(() => modern.notify.toolsChanged())
  const stopListening = ctx.on('tools/change', changes.schedule)
  disposers.add(() => (stopListening(), changes.cancel()))
  const hosts = ['localhost', '127.0.0.1', '[::1]', ...(options.allowedHosts ?? [])]
  const metadataUrl = options.auth?.resourceMetadata?.url
  let draining = false
  let closed: Promise<void> | undefined
  let shut = false

  const route = async (request: Request, parsedBody: unknown, caller: ServedCaller | undefined): Promise<Response> => {
    const authInfo = authInfoOf(caller)
    if (!(await isLegacyRequest(request, parsedBody))) return modern.fetch(request, authInfo === undefined ? {} : { authInfo })
    if (sessions !== undefined) return sessions.handle(request, parsedBody, caller)
    if (request.method === 'GET' || request.method === 'DELETE') {
      counters.deny('STREAM_REFUSED')
      const message = `This server keeps no MCP sessions (sessions: false), so there is no ${request.method === 'GET' ? 'GET stream: it cannot send list_changed to a 2025-era client; re-list tools/list to see changes, or use the 2026-07-28 protocol (subscriptions/listen)' : 'session to end'}.`
      return new Response(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message, data: { code: 'MCP_SESSIONLESS' } } }), { status: 405, headers: { allow: 'POST', 'content-type': 'application/json' } })
    }
    return (statelessLegacy as NonNullable<typeof statelessLegacy>)(request, authInfo === undefined ? {} : { authInfo })
  }

  const refuseAuth = (response: ServerResponse, refusal: ServedAuthRefusal) => {
    counters.deny(refusal.error === undefined ? 'UNAUTHORIZED' : refusal.error === 'temporarily_unavailable' ? 'AUTH_UNAVAILABLE' : refusal.error.toUpperCase())
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (refusal.status !== 503) headers['www-authenticate'] = bearerChallenge(refusal, metadataUrl)
    else headers['retry-after'] = '5'
    response.writeHead(refusal.status, headers).end(JSON.stringify({ error: refusal.error ?? 'invalid_request', error_description: refusal.description }))
  }

  const authenticate = async (request: IncomingMessage): Promise<ServedAuthRefusal | { ok: true; caller: ServedCaller | undefined }> => {
    if (options.auth !== undefined) return options.auth.authenticate(request.headers.authorization)
    if (options.token !== undefined && request.headers.authorization !== `Bearer ${options.token}`) {
      return { ok: false, status: 401, description: 'This MCP server requires its bearer token (Authorization: Bearer <token>).' }
    }
    return { ok: true, caller: undefined }
  }

  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    if (!validateHostHeader(request.headers.host, [...hosts]).ok) return void (counters.deny('FORBIDDEN_HOST'), response.writeHead(403).end('Forbidden host'))
    const origin = request.headers.origin
    if (origin !== undefined && !validateOriginHeader(origin, [...hosts]).ok) return void (counters.deny('FORBIDDEN_ORIGIN'), response.writeHead(403).end('Forbidden origin'))
    if (closed !== undefined) return void (counters.deny('DRAINING'), response.writeHead(503, { connection: 'close' }).end('Closed'))
    const finished = counters.requestStarted()
    response.once('close', finished)
    const signal = exchangeSignal(response)
    void (async () => {
      const verdict = await authenticate(request)
      if (!verdict.ok) return refuseAuth(response, verdict)
      const body = await readBody(request)
      const { fetchRequest, parsedBody } = toFetchRequest(request, body, signal)
      const method = (parsedBody as { method?: unknown } | undefined)?.method
      const longLived = request.method === 'GET' || method === 'subscriptions/listen' || (method === 'initialize' && sessionful)
      const extra: Record<string, string> = {}
      if (draining) {
        if (longLived) {
          counters.deny('DRAINING')
          return jsonRpcRefusal(response, 503, 'This server is draining: it opens nothing new. Retry; another replica answers.', { code: 'MCP_DRAINING' }, { connection: 'close', 'retry-after': '1' })
        }
        extra.connection = 'close'
      }
      const answer = await route(fetchRequest, parsedBody, verdict.caller)
      if (answer.status === 404 && request.headers['mcp-session-id'] !== undefined) counters.deny('SESSION_NOT_FOUND')
      if (answer.status === 503 && method === 'initialize') counters.deny('SESSION_LIMIT')
      const isStream = (answer.headers.get('content-type') ?? '').startsWith('text/event-stream') && (request.method === 'GET' || method === 'subscriptions/listen')
      if (isStream) {
        // A long-lived stream is not a request in flight (drain does not wait for it); it is counted as a stream.
        finished()
        counters.streams += 1
        response.once('close', () => (counters.streams -= 1))
      }
      await writeResponse(answer, response, heartbeatMs, extra)
    })().catch((error: unknown) => {
      if (error instanceof BodyTooLarge && !response.headersSent) return void (counters.deny('BODY_TOO_LARGE'), response.writeHead(413).end('Request body too large'))
      response.destroy()
    })
  }

  const close = (): Promise<void> => {
    closed ??= (async () => {
      for (const dispose of disposers) dispose()
      disposers.clear()
      await sessions?.close()
      await modern.close()
      shut = true
    })()
    return closed
  }

  return {
    handle,
    health: (_request, response) => void response.writeHead(shut ? 503 : 200, { 'content-type': 'text/plain' }).end(shut ? 'closed' : 'ok'),
    ready: (_request, response) => {
      const ready = !draining && closed === undefined
      response.writeHead(ready ? 200 : 503, { 'content-type': 'text/plain' }).end(ready ? 'ready' : 'draining')
    },
    metricsEndpoint: (_request, response) =>
      void response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(prometheusText(counters.snapshot(sessions?.size ?? 0, draining))),
    resourceMetadata: (request, response) => {
      const metadata = options.auth?.resourceMetadata
      if (metadata === undefined) return void response.writeHead(404).end('Not found')
      if (request.method === 'OPTIONS') return void response.writeHead(204, { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET' }).end()
      if (request.method !== 'GET' && request.method !== 'HEAD') return void response.writeHead(405, { allow: 'GET' }).end()
      response.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' }).end(JSON.stringify(metadata.document))
    },
    metrics: () => counters.snapshot(sessions?.size ?? 0, draining),
    drain: async ({ timeoutMs = 30_000 } = {}) => {
      if (closed !== undefined) return closed
      draining = true
      let timer: ReturnType<typeof setTimeout> | undefined
      await Promise.race([counters.whenIdle(), new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))])
      clearTimeout(timer)
      await close()
    },
    close,
  }
}

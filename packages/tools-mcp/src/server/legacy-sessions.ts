import { randomUUID } from 'node:crypto'
import { isInitializeRequest, legacyStatelessFallback, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server'
import type { Context } from 'cordis'
import { McpConfigError } from '../mcp-config-error.js'
import { createToolServer, type ToolServerOptions, type ToolServerWiring } from './registry-server.js'
import type { ServedCaller } from './served-auth.js'
import type { ServedTasks } from './served-tasks.js'

/** Bounds of the 2025-era HTTP sessions of `serveToolsHttp`. */
export interface LegacySessionOptions {
  /**
   * A 2025-era session with no request in flight and no open stream (its `GET` stream included) for this long is
   * ended; its id then gets 404 and the client starts a new session. Default 600000 (10 minutes).
   */
  readonly sessionIdleTimeoutMs?: number | undefined
  /**
   * At most this many 2025-era sessions at once. An `initialize` past it is refused with HTTP 503 and the JSON-RPC
   * error -32000 whose `data` is `{ code: 'MCP_SESSION_LIMIT', maxSessions }`. Default 64.
   */
  readonly maxSessions?: number | undefined
}

const defaultIdleMs = 600_000
const defaultMaxSessions = 64

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value <= 0) throw new McpConfigError([`${name}: must be a positive integer, got ${JSON.stringify(value) ?? String(value)}`])
  return value
}

function jsonRpcError(status: number, code: number, message: string, data?: Record<string, unknown>, id: unknown = null): Response {
  const error = data === undefined ? { code, message } : { code, message, data }
  return new Response(JSON.stringify({ jsonrpc: '2.0', id, error }), { status, headers: { 'content-type': 'application/json' } })
}

interface Session {
  /** The caller that opened it: only that caller's requests reach it. */
  readonly callerId: string | undefined
  readonly transport: WebStandardStreamableHTTPServerTransport
  active: number
  timer: ReturnType<typeof setTimeout> | undefined
  /** The standalone GET stream is open (notifications can be delivered). */
  streaming: boolean
  /** A notification came while no GET stream was open: send it when one opens. */
  held: (() => void) | undefined
  end(): void
}

/** Counts a response as activity of its session until its body is finished or cancelled (an SSE stream stays open). */
function tracked(response: Response, done: () => void): Response {
  if (response.body === null) {
    done()
    return response
  }
  const reader = response.body.getReader()
  let finished = false
  const finish = () => {
    if (finished) return
    finished = true
    done()
  }
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: ended, value } = await reader.read()
        if (ended) {
          finish()
          controller.close()
        } else controller.enqueue(value)
      } catch (error) {
        finish()
        controller.error(error)
      }
    },
    async cancel(reason) {
      finish()
      await reader.cancel(reason).catch(() => {})
    },
  })
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
}

/**
 * The 2025-era leg of the HTTP endpoint: a real session per `initialize` (an `Mcp-Session-Id`, the standalone `GET`
 * SSE stream, `DELETE` to end it), each with its own server over the same registry, which sends
 * `notifications/tools/list_changed` once per burst of registry changes. Sessionless 2025-era requests other than
 * `initialize` are answered by the SDK's stateless fallback, as before.
 */
export interface LegacySessions {
  /** `caller`: who sent the request (authenticated); a session answers only the caller that opened it. */
  handle(request: Request, parsedBody: unknown, caller?: ServedCaller): Promise<Response>
  /** Open sessions (initialized or initializing). */
  readonly size: number
  /** Ends every session: their streams close, their servers and registry listeners are disposed. */
  close(): Promise<void>
}

/**
 * Creates the 2025-era session leg of `serveToolsHttp` (internal; validates the session options). A session's tasks
 * live in `tasks` under its own owner and are cancelled when it ends; sessionless requests are offered none.
 */
export function createLegacySessions(ctx: Context, options: ToolServerOptions & LegacySessionOptions, tasks?: ServedTasks, onCall?: ToolServerWiring['onCall']): LegacySessions {
  const idleMs = positiveInteger('sessionIdleTimeoutMs', options.sessionIdleTimeoutMs, defaultIdleMs)
  const maxSessions = positiveInteger('maxSessions', options.maxSessions, defaultMaxSessions)
  const sessions = new Map<string, Session>()
  const statelessDisposers = new Set<() => void>()
  const stateless = legacyStatelessFallback(({ authInfo }) => {
    const caller = authInfo?.extra?.caller as ServedCaller | undefined
    const { server, dispose } = createToolServer(ctx, { ...options, agent: caller?.agent ?? options.agent }, { notifyOnConnection: false, tasks, taskOwner: () => undefined, onCall, transport: 'http' })
    statelessDisposers.add(dispose)
    server.onclose = () => (dispose(), statelessDisposers.delete(dispose))
    return server
  })

  const arm = (session: Session) => {
    clearTimeout(session.timer)
    session.timer = session.active === 0 ? setTimeout(session.end, idleMs) : undefined
    session.timer?.unref?.()
  }

  const open = async (request: Request, parsedBody: unknown, caller: ServedCaller | undefined): Promise<Response> => {
    const requestId = (parsedBody as { id?: unknown }).id ?? null
    if (sessions.size >= maxSessions) {
      return jsonRpcError(503, -32000, `Too many MCP sessions: this server allows ${maxSessions} at once. End an unused session (HTTP DELETE) or retry later.`, { code: 'MCP_SESSION_LIMIT', maxSessions }, requestId)
    }
    const id = randomUUID()
    const deliver = (send: () => void) => {
      if (session.streaming) send()
      else session.held = send
    }
    const owner = `session:${id}`
    const { server, dispose } = createToolServer(ctx, { ...options, agent: caller?.agent ?? options.agent }, { era: 'legacy', deliver, tasks, taskOwner: () => owner, onCall, transport: 'http' })
    let ended = false
    const session: Session = {
      callerId: caller?.id,
      transport: new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => id, onsessionclosed: () => session.end() }),
      active: 1,
      timer: undefined,
      streaming: false,
      held: undefined,
      end: () => {
        if (ended) return
        ended = true
        clearTimeout(session.timer)
        sessions.delete(id)
        tasks?.closeOwner(owner)
        dispose()
        void server.close().catch(() => {})
      },
    }
    server.onclose = session.end
    sessions.set(id, session)
    try {
      await server.connect(session.transport)
      const response = await session.transport.handleRequest(request, { parsedBody })
      if (session.transport.sessionId !== id || !response.ok) {
        session.end()
        return response
      }
      return tracked(response, () => {
        session.active -= 1
        if (!ended) arm(session)
      })
    } catch (error) {
      session.end()
      throw error
    }
  }

  return {
    get size() {
      return sessions.size
    },
    handle: async (request, parsedBody, caller) => {
      const sessionId = request.headers.get('mcp-session-id')
      if (sessionId === null) {
        if (request.method === 'POST' && isInitializeRequest(parsedBody)) return open(request, parsedBody, caller)
        if (request.method === 'GET' || request.method === 'DELETE') {
          return jsonRpcError(400, -32000, `Bad Request: a ${request.method} needs the Mcp-Session-Id header of a session; open one with initialize first.`)
        }
        const authInfo = caller === undefined ? undefined : { token: '', clientId: caller.id, scopes: [...(caller.scopes ?? [])], extra: { caller } }
        return stateless(request, authInfo === undefined ? {} : { authInfo })
      }
      const found = sessions.get(sessionId)
      // Another caller's session reads exactly like an unknown one.
      const session = found !== undefined && found.callerId === caller?.id ? found : undefined
      if (session === undefined) return jsonRpcError(404, -32001, 'Session not found: it ended (DELETE, idle timeout or server restart) or never existed. Send a new initialize without Mcp-Session-Id.')
      session.active += 1
      arm(session)
      let stream = false
      const release = () => {
        session.active -= 1
        if (stream) session.streaming = false
        if (sessions.get(sessionId) === session) arm(session)
      }
      let response: Response
      try {
        response = await session.transport.handleRequest(request, parsedBody === undefined ? {} : { parsedBody })
      } catch (error) {
        release()
        throw error
      }
      if (request.method === 'GET' && response.ok && response.body !== null) {
        stream = true
        session.streaming = true
        const held = session.held
        session.held = undefined
        held?.()
      }
      return tracked(response, release)
    },
    close: async () => {
      const open = [...sessions.values()]
      for (const session of open) session.end()
      await Promise.all(open.map((session) => session.transport.close().catch(() => {})))
      for (const dispose of statelessDisposers) dispose()
      statelessDisposers.clear()
    },
  }
}

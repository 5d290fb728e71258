import { createServer, request as httpRequest, type Server } from 'node:http'
import { defineTool } from '@dsh/tools-registry'
import { createToolContext, type ToolTestContext } from '@dsh/tools-testing'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterEach, describe, expect, it } from 'vitest'
import { McpConfigError } from '../mcp-config-error.js'
import { mcpServer, whenMcpServerReady } from '../index.js'
import { createToolsHttpHandler, serveToolsHttp, type ToolsHttpHandler, type ToolsHttpHandlerOptions } from './index.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }

/** One raw HTTP exchange (any Host header), with the body read for at most `readMs` when it is a stream. */
function raw(port: number, options: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer; readMs?: number }) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = httpRequest(
      { agent: false, host: '127.0.0.1', port, method: options.method ?? 'POST', path: options.path ?? '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...options.headers } },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (body += chunk))
        const done = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body })
        res.on('end', done)
        if (options.readMs !== undefined) setTimeout(() => (res.destroy(), done()), options.readMs)
      },
    )
    req.on('error', reject)
    req.end(options.body)
  })
}

async function registry(): Promise<{ t: ToolTestContext; release: () => void; started: Promise<void> }> {
  const t = await createToolContext()
  cleanups.push(() => t.dispose())
  let release = () => {}
  let markStarted = () => {}
  const started = new Promise<void>((resolve) => (markStarted = resolve))
  const gate = new Promise<void>((resolve) => (release = resolve))
  t.tools.register(defineTool({ name: 'shout', description: 'Upper-cases.', annotations: { readOnlyHint: true }, parameters: { word: { type: 'string', required: true } }, execute: ({ word }) => word.toUpperCase() }))
  t.tools.register(
    defineTool({
      name: 'slow',
      description: 'Waits for the test.',
      annotations: { readOnlyHint: true },
      parameters: {},
      execute: async () => {
        markStarted()
        await gate
        return 'done'
      },
    }),
  )
  return { t, release, started }
}

/** The handler mounted in a plain node:http server of the test's own, at /mcp, with /healthz and /readyz. */
async function mounted(t: ToolTestContext, options: ToolsHttpHandlerOptions): Promise<{ handler: ToolsHttpHandler; port: number; url: string }> {
  const handler = createToolsHttpHandler(t.ctx, options)
  const server: Server = createServer((req, res) => {
    if (req.url === '/healthz') return handler.health(req, res)
    if (req.url === '/readyz') return handler.ready(req, res)
    if (req.url === '/metrics') return handler.metricsEndpoint(req, res)
    if (req.url?.startsWith('/mcp') === true) return handler.handle(req, res)
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(async () => {
    await handler.close()
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return { handler, port, url: `http://127.0.0.1:${port}/mcp` }
}

describe('the mountable handler', () => {
  it('serves both eras in a server of your own, with the same Host/Origin checks and body limit as serveToolsHttp', async () => {
    const { t } = await registry()
    const { port, url, handler } = await mounted(t, { allowedHosts: ['tools.test'] })
    for (const protocol of ['legacy', 'modern'] as const) {
      const client = await createToolContext()
      cleanups.push(() => client.dispose())
      await client.load(mcpServer, { id: 'm', url, protocol, trust: true })
      expect((await whenMcpServerReady(client.ctx, 'm')).state).toBe('ready')
      expect((await client.tools.execute({ callId: 'a', name: 'mcp__m__shout', arguments: { word: protocol } })).content).toEqual([{ type: 'text', text: protocol.toUpperCase() }])
    }
    expect((await raw(port, { headers: { host: 'evil.test' }, body: JSON.stringify(initialize) })).status).toBe(403)
    expect((await raw(port, { headers: { host: 'tools.test', origin: 'http://evil.test' }, body: JSON.stringify(initialize) })).status).toBe(403)
    const allowed = await raw(port, { headers: { host: 'tools.test:443', origin: 'https://tools.test' }, body: JSON.stringify(initialize) })
    expect(allowed.status).toBe(200)
    expect((await raw(port, { body: Buffer.alloc(4 * 1024 * 1024 + 1, 32) })).status).toBe(413)
    expect(handler.metrics().denials).toMatchObject({ FORBIDDEN_HOST: 1, FORBIDDEN_ORIGIN: 1, BODY_TOO_LARGE: 1 })
    expect(handler.metrics().callsTotal).toBe(2)
  })

  it('serveToolsHttp binds a non-loopback host only with allowedHosts (fail closed)', async () => {
    const { t } = await registry()
    await expect(serveToolsHttp(t.ctx, { host: '0.0.0.0' })).rejects.toThrow(McpConfigError)
    await expect(serveToolsHttp(t.ctx, { host: '0.0.0.0', allowedHosts: [] })).rejects.toThrow(/allowedHosts must name the host names/)
    const served = await serveToolsHttp(t.ctx, { host: '0.0.0.0', allowedHosts: ['tools.test'] })
    cleanups.push(() => served.close())
    expect(served.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/mcp$/)
    expect(() => createToolsHttpHandler(t.ctx, { token: 'a', auth: { authenticate: async () => ({ ok: true, caller: { id: 'x' } }) } })).toThrow(/give one of them/)
  })

  it('sessions: false answers 2025-era clients without a session and refuses GET streams, saying so', async () => {
    const { t } = await registry()
    const { port, url } = await mounted(t, { sessions: false })
    const opened = await raw(port, { body: JSON.stringify(initialize) })
    expect(opened.status).toBe(200)
    expect(opened.headers['mcp-session-id']).toBeUndefined()
    const stream = await raw(port, { method: 'GET', headers: { 'mcp-protocol-version': '2025-06-18' } })
    expect(stream.status).toBe(405)
    expect(stream.headers.allow).toBe('POST')
    expect(JSON.parse(stream.body).error.message).toMatch(/keeps no MCP sessions \(sessions: false\).*list_changed/)
    // The SDK client in legacy mode works against it (the 405 on its GET stream is allowed by the spec).
    const sdk = new Client({ name: 'legacy', version: '1' }, { versionNegotiation: { mode: 'legacy' } })
    await sdk.connect(new StreamableHTTPClientTransport(new URL(url)))
    cleanups.push(() => sdk.close())
    for (let index = 0; index < 3; index += 1) expect((await sdk.callTool({ name: 'shout', arguments: { word: 'x' } })).content).toEqual([{ type: 'text', text: 'X' }])
  })

  it('writes heartbeats on a silent event stream, between events', async () => {
    const { t } = await registry()
    const { port } = await mounted(t, { heartbeatMs: 40 })
    const opened = await raw(port, { body: JSON.stringify(initialize) })
    const session = String(opened.headers['mcp-session-id'])
    await raw(port, { headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })
    const stream = await raw(port, { method: 'GET', headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18', accept: 'text/event-stream' }, readMs: 300 })
    expect(stream.status).toBe(200)
    expect(stream.body.match(/^: heartbeat$/gm)?.length ?? 0).toBeGreaterThanOrEqual(2)
  })

  it('drains: readiness 503 and nothing new opened at once, the running call finishes, then everything closes; counters readable and scrapeable', async () => {
    const { t, release, started } = await registry()
    const { handler, port, url } = await mounted(t, {})
    const sdk = new Client({ name: 'c', version: '1' }, { versionNegotiation: { mode: 'legacy' } })
    await sdk.connect(new StreamableHTTPClientTransport(new URL(url)))
    const call = sdk.callTool({ name: 'slow', arguments: {} })
    await started
    expect(handler.metrics()).toMatchObject({ sessions: 1, callsInFlight: 1, draining: false })
    expect((await raw(port, { method: 'GET', path: '/metrics' })).body).toMatch(/^dsh_mcp_calls_in_flight 1$/m)
    const drained = handler.drain({ timeoutMs: 10_000 })
    expect((await raw(port, { method: 'GET', path: '/readyz' })).status).toBe(503)
    expect((await raw(port, { method: 'GET', path: '/healthz' })).status).toBe(200)
    const refused = await raw(port, { body: JSON.stringify(initialize) })
    expect(refused.status).toBe(503)
    expect(JSON.parse(refused.body).error.data).toEqual({ code: 'MCP_DRAINING' })
    let settled = false
    void drained.then(() => (settled = true))
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(settled).toBe(false)
    release()
    expect((await call).content).toEqual([{ type: 'text', text: 'done' }])
    await drained
    expect(handler.metrics()).toMatchObject({ sessions: 0, callsInFlight: 0, draining: true, denials: { DRAINING: 1 } })
    expect((await raw(port, { method: 'GET', path: '/healthz' })).status).toBe(503)
    await sdk.close().catch(() => {})
  })

  it('serveToolsHttp drain() stops accepting connections, finishes the running call, frees the port', async () => {
    const { t, release, started } = await registry()
    const served = await serveToolsHttp(t.ctx, { metrics: true })
    cleanups.push(() => served.close())
    const port = Number(new URL(served.url).port)
    expect((await raw(port, { method: 'GET', path: '/readyz' })).body).toBe('ready')
    expect((await raw(port, { method: 'GET', path: '/metrics' })).body).toMatch(/^dsh_mcp_sessions 0$/m)
    const sdk = new Client({ name: 'c', version: '1' }, { versionNegotiation: { mode: 'auto' } })
    await sdk.connect(new StreamableHTTPClientTransport(new URL(served.url)))
    const call = sdk.callTool({ name: 'slow', arguments: {} })
    await started
    const drained = served.drain()
    await expect(raw(port, { method: 'GET', path: '/healthz' })).rejects.toThrow(/ECONNREFUSED/)
    release()
    expect((await call).content).toEqual([{ type: 'text', text: 'done' }])
    await drained
    await sdk.close().catch(() => {})
  })
})

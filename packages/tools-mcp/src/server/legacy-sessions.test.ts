// 2025-era HTTP clients of a served registry: each gets a real session (Mcp-Session-Id, a GET stream, DELETE), hears
// registry changes as notifications/tools/list_changed, and sessions are bounded and cleaned up.
import { createToolContext, type ToolTestContext } from '@dsh/tools-testing'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import type { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { McpConfigError, mcpServer, whenMcpServerReady } from '../index.js'
import { plain, sleep, until } from '../test-support/fixtures.js'
import { serveToolsHttp, type HttpServeOptions } from './index.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** How many `tools/change` listeners the registry's context holds (the served endpoint's own, plus one per session). */
function changeListeners(ctx: Context): number {
  const hooks = (ctx.root as unknown as { events: { _hooks: Record<string, unknown[] | undefined> } }).events._hooks
  return hooks['tools/change']?.length ?? 0
}

async function served(options: HttpServeOptions = {}): Promise<{ t: ToolTestContext; url: string; close: () => Promise<void>; baseline: number }> {
  const t = await createToolContext()
  cleanups.push(() => t.dispose())
  t.tools.register(plain('first'))
  const before = changeListeners(t.ctx)
  const http = await serveToolsHttp(t.ctx, options)
  cleanups.push(() => http.close())
  // The endpoint's own listener (for 2026-07-28 listen streams) is there before any session.
  return { t, url: http.url, close: () => http.close(), baseline: before + 1 }
}

const jsonHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const initialize = (id = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } } })

/** A hand-made 2025-era session: initialize + initialized over plain fetch; returns its id. */
async function rawSession(url: string): Promise<string> {
  const opened = await fetch(url, { method: 'POST', headers: jsonHeaders, body: initialize() })
  expect(opened.status).toBe(200)
  await opened.text()
  const id = opened.headers.get('mcp-session-id')
  expect(id).toMatch(/^[0-9a-f-]{36}$/)
  const headers = { ...jsonHeaders, 'mcp-session-id': id!, 'mcp-protocol-version': '2025-11-25' }
  const initialized = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })
  expect(initialized.status).toBe(202)
  return id!
}

const sessionHeaders = (id: string) => ({ ...jsonHeaders, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' })
const listTools = (url: string, id: string) =>
  fetch(url, { method: 'POST', headers: sessionHeaders(id), body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }) })

describe('2025-era HTTP sessions', () => {
  it('the official v1 SDK client gets a session, hears list_changed on its GET stream, and sees the new tool', async () => {
    const { t, url, baseline } = await served()
    const client = new V1Client({ name: 'v1-client', version: '1.0.0' })
    let changes = 0
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changes += 1))
    const transport = new V1Transport(new URL(url))
    await client.connect(transport)
    cleanups.push(() => client.close())
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/)
    expect(changeListeners(t.ctx)).toBe(baseline + 1)
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['first'])
    // Registered at once: a change before the client's GET stream is open is held for it, not lost.
    t.tools.register(plain('second'))
    await until(() => changes >= 1, 10_000, 'list_changed on the v1 client GET stream')
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['first', 'second'])

    // A burst (three registrations in one go) is one notification.
    for (const name of ['third', 'fourth', 'fifth']) t.tools.register(plain(name))
    await until(() => changes >= 2, 10_000, 'the second list_changed')
    await sleep(300)
    expect(changes).toBe(2)
    expect((await client.listTools()).tools).toHaveLength(5)

    // Ending the session (the client's DELETE) removes its server's registry listener.
    await transport.terminateSession()
    await until(() => changeListeners(t.ctx) === baseline, 10_000, 'the session listener to go')
  })

  it('the v2 client in legacy mode hears list_changed and re-lists', async () => {
    const { t, url } = await served()
    const client = new Client({ name: 'v2-legacy', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } })
    let changes = 0
    client.setNotificationHandler('notifications/tools/list_changed', () => void (changes += 1))
    const transport = new StreamableHTTPClientTransport(new URL(url))
    await client.connect(transport)
    cleanups.push(() => client.close())
    expect(client.getProtocolEra()).toBe('legacy')
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/)
    t.tools.register(plain('second'))
    await until(() => changes >= 1, 10_000, 'list_changed on the v2 legacy GET stream')
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['first', 'second'])
  })

  it('round trip: our client plugin (protocol legacy) registers a tool the served registry gained after connect', async () => {
    const { t, url } = await served()
    const client = await createToolContext()
    cleanups.push(() => client.dispose())
    await client.load(mcpServer, { id: 'remote', url, protocol: 'legacy', listChangedDebounceMs: 20 })
    expect((await whenMcpServerReady(client.ctx, 'remote')).state).toBe('ready')
    expect(client.tools.get('mcp__remote__first')).toBeDefined()
    t.tools.register(plain('second'))
    await until(() => client.tools.get('mcp__remote__second') !== undefined, 15_000, 'the client to register the new tool')
  })

  it('a change made before the session opened its GET stream is delivered when the stream opens, not lost', async () => {
    const { t, url } = await served()
    const id = await rawSession(url)
    t.tools.register(plain('early'))
    await sleep(100)
    const stream = await fetch(url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' } })
    expect(stream.status).toBe(200)
    const reader = stream.body!.getReader()
    cleanups.push(() => reader.cancel().catch(() => {}))
    let text = ''
    const decoder = new TextDecoder()
    while (!text.includes('notifications/tools/list_changed')) {
      const { done, value } = await reader.read()
      if (done) break
      text += decoder.decode(value, { stream: true })
    }
    expect(text).toContain('"method":"notifications/tools/list_changed"')
  })

  it('DELETE ends a session: its id then gets 404, and its registry listener is gone', async () => {
    const { t, url, baseline } = await served()
    const id = await rawSession(url)
    expect(changeListeners(t.ctx)).toBe(baseline + 1)
    expect((await listTools(url, id)).status).toBe(200)
    const deleted = await fetch(url, { method: 'DELETE', headers: sessionHeaders(id) })
    expect(deleted.status).toBe(200)
    expect(changeListeners(t.ctx)).toBe(baseline)
    const after = await listTools(url, id)
    expect(after.status).toBe(404)
    expect(await after.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 } })
  })

  it('an unknown session id gets 404 with a JSON-RPC error', async () => {
    const { url } = await served()
    const answer = await listTools(url, '00000000-0000-4000-8000-000000000000')
    expect(answer.status).toBe(404)
    expect(await answer.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32001, message: expect.stringMatching(/Session not found/) } })
  })

  it('a GET or DELETE without Mcp-Session-Id gets 400 naming the header; a sessionless tools/list is still answered', async () => {
    const { url } = await served()
    for (const method of ['GET', 'DELETE']) {
      const answer = await fetch(url, { method, headers: { accept: 'text/event-stream, application/json' } })
      expect(answer.status).toBe(400)
      expect(await answer.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringMatching(/Mcp-Session-Id/) } })
    }
    const oneOff = await fetch(url, { method: 'POST', headers: jsonHeaders, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) })
    expect(oneOff.status).toBe(200)
    expect(await oneOff.text()).toContain('"name":"first"')
  })

  it('an idle session ends after sessionIdleTimeoutMs; a session in use is kept', async () => {
    const { t, url, baseline } = await served({ sessionIdleTimeoutMs: 400 })
    const idle = await rawSession(url)
    const busy = await rawSession(url)
    expect(changeListeners(t.ctx)).toBe(baseline + 2)
    // A GET stream held open keeps `busy` from being idle however long it lasts.
    const stream = await fetch(url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': busy, 'mcp-protocol-version': '2025-11-25' } })
    expect(stream.status).toBe(200)
    cleanups.push(() => stream.body?.cancel().catch(() => {}))
    await until(() => changeListeners(t.ctx) === baseline + 1, 10_000, 'the idle session to end')
    expect((await listTools(url, idle)).status).toBe(404)
    await sleep(800)
    expect((await listTools(url, busy)).status).toBe(200)
    // Once its stream is closed, `busy` goes idle too.
    await stream.body?.cancel()
    await until(() => changeListeners(t.ctx) === baseline, 10_000, 'the second session to end once idle')
    expect((await listTools(url, busy)).status).toBe(404)
  })

  it('refuses an initialize past maxSessions with 503 and MCP_SESSION_LIMIT, and accepts one again after a DELETE', async () => {
    const { url } = await served({ maxSessions: 2 })
    const first = await rawSession(url)
    await rawSession(url)
    const refused = await fetch(url, { method: 'POST', headers: jsonHeaders, body: initialize(7) })
    expect(refused.status).toBe(503)
    expect(refused.headers.get('mcp-session-id')).toBeNull()
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32000, message: expect.stringMatching(/Too many MCP sessions: this server allows 2/), data: { code: 'MCP_SESSION_LIMIT', maxSessions: 2 } },
    })
    expect((await fetch(url, { method: 'DELETE', headers: sessionHeaders(first) })).status).toBe(200)
    await rawSession(url)
  })

  it('close() ends open GET streams and every session listener', async () => {
    const { t, url, close, baseline } = await served()
    const id = await rawSession(url)
    const stream = await fetch(url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' } })
    expect(stream.status).toBe(200)
    const reader = stream.body!.getReader()
    const ended = (async () => {
      for (;;) {
        const { done } = await reader.read()
        if (done) return 'done'
      }
    })().catch(() => 'errored')
    await close()
    expect(['done', 'errored']).toContain(await ended)
    expect(changeListeners(t.ctx)).toBe(baseline - 1)
  })

  it('keeps the bearer token and origin checks on session requests', async () => {
    const { url } = await served({ token: 't0ken' })
    expect((await fetch(url, { method: 'POST', headers: jsonHeaders, body: initialize() })).status).toBe(401)
    const authorized = { ...jsonHeaders, authorization: 'Bearer t0ken' }
    const opened = await fetch(url, { method: 'POST', headers: authorized, body: initialize() })
    expect(opened.status).toBe(200)
    await opened.text()
    const id = opened.headers.get('mcp-session-id')!
    expect((await fetch(url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': id } })).status).toBe(401)
    const foreign = await fetch(url, { method: 'DELETE', headers: { ...sessionHeaders(id), authorization: 'Bearer t0ken', origin: 'https://evil.example' } })
    expect(foreign.status).toBe(403)
  })

  it('rejects a sessionIdleTimeoutMs or maxSessions that is not a positive integer with McpConfigError', async () => {
    const t = await createToolContext()
    cleanups.push(() => t.dispose())
    for (const options of [{ maxSessions: 0 }, { maxSessions: 1.5 }, { sessionIdleTimeoutMs: -1 }, { sessionIdleTimeoutMs: Number.NaN }]) {
      await expect(serveToolsHttp(t.ctx, options)).rejects.toThrow(McpConfigError)
    }
    await expect(serveToolsHttp(t.ctx, { maxSessions: 0 })).rejects.toThrow(/maxSessions: must be a positive integer/)
  })
})

// 2026-07-28 (stateless) HTTP clients of a served registry: registry changes reach them on their
// subscriptions/listen stream, and tools/list carries the configured ttlMs.
import { createToolContext, type ToolTestContext } from '@dsh/tools-testing'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterEach, describe, expect, it } from 'vitest'
import { McpConfigError, mcpServer, whenMcpServerReady } from '../index.js'
import { plain, sleep, until } from '../test-support/fixtures.js'
import { createToolServer, serveToolsHttp, type HttpServeOptions } from './index.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function served(options: HttpServeOptions = {}): Promise<{ t: ToolTestContext; url: string }> {
  const t = await createToolContext()
  cleanups.push(() => t.dispose())
  t.tools.register(plain('first'))
  const http = await serveToolsHttp(t.ctx, options)
  cleanups.push(() => http.close())
  return { t, url: http.url }
}

async function modernClient(url: string): Promise<Client> {
  const client = new Client({ name: 'sdk-client', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  cleanups.push(() => client.close())
  expect(client.getProtocolEra()).toBe('modern')
  return client
}

describe('stateless (2026-07-28) HTTP clients', () => {
  it('hear registry changes on a subscriptions/listen stream, one notification per burst, and re-list the new tools', async () => {
    const { t, url } = await served()
    const client = await modernClient(url)
    let changes = 0
    client.setNotificationHandler('notifications/tools/list_changed', () => void (changes += 1))
    const subscription = await client.listen({ toolsListChanged: true })
    cleanups.push(() => subscription.close())
    expect(subscription.honoredFilter.toolsListChanged).toBe(true)
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['first'])

    t.tools.register(plain('second'))
    await until(() => changes >= 1, 10_000, 'list_changed on the listen stream')
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['first', 'second'])

    // Three registrations in one go (a plugin loading its tools) are one notification.
    for (const name of ['third', 'fourth', 'fifth']) t.tools.register(plain(name))
    await until(() => changes >= 2, 10_000, 'the second list_changed')
    await sleep(300)
    expect(changes).toBe(2)
    expect((await client.listTools()).tools).toHaveLength(5)

    // A closed subscription hears nothing more.
    await subscription.close()
    expect(await subscription.closed).toBe('local')
    t.tools.register(plain('sixth'))
    await sleep(300)
    expect(changes).toBe(2)
  })

  it('round trip: our client plugin in the 2026-07-28 era registers a tool the served registry gained after connect', async () => {
    const { t, url } = await served()
    const client = await createToolContext()
    cleanups.push(() => client.dispose())
    await client.load(mcpServer, { id: 'remote', url, protocol: 'modern', listChangedDebounceMs: 20 })
    expect((await whenMcpServerReady(client.ctx, 'remote')).state).toBe('ready')
    expect(client.tools.get('mcp__remote__first')).toBeDefined()
    t.tools.register(plain('second'))
    await until(() => client.tools.get('mcp__remote__second') !== undefined, 10_000, 'the client to register the new tool')
  })

  it('stop hearing changes once the served endpoint is closed (the stream ends, nothing is left listening)', async () => {
    const t = await createToolContext()
    cleanups.push(() => t.dispose())
    const http = await serveToolsHttp(t.ctx)
    const client = await modernClient(http.url)
    const subscription = await client.listen({ toolsListChanged: true })
    await http.close()
    expect(['graceful', 'remote']).toContain(await subscription.closed)
    // The registry keeps working without the server's listener.
    t.tools.register(plain('after'))
    expect(t.tools.get('after')).toBeDefined()
  })

  it('get tools/list with ttlMs 0 and cacheScope private by default, or the configured listTtlMs', async () => {
    const fresh = await modernClient((await served()).url)
    expect(await fresh.request({ method: 'tools/list', params: {} })).toMatchObject({ ttlMs: 0, cacheScope: 'private' })
    const cached = await modernClient((await served({ listTtlMs: 30_000 })).url)
    expect(await cached.request({ method: 'tools/list', params: {} })).toMatchObject({ ttlMs: 30_000, cacheScope: 'private' })
  })

  it('reject a listTtlMs that is not a non-negative integer with McpConfigError', async () => {
    const t = await createToolContext()
    cleanups.push(() => t.dispose())
    for (const listTtlMs of [-1, 1.5, Number.NaN]) {
      expect(() => createToolServer(t.ctx, { listTtlMs })).toThrow(McpConfigError)
    }
    expect(() => createToolServer(t.ctx, { listTtlMs: -1 })).toThrow(/listTtlMs: must be a non-negative integer/)
  })
})

// A 2026-07-28 server announces tool changes only on a subscriptions/listen stream, and the SDK never reopens one.
// Against our own server (`serveToolsHttp` in front of a registry) over Streamable HTTP: the stream is reopened after
// the server or the network ends it, the tools are listed again on every reopen, a server without the method is
// recorded as such and re-listed by its ttlMs, and disposing during the backoff leaves nothing behind.
import { createToolContext, expectCleanUnload, type ToolTestContext } from '@dsh/tools-testing'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { mcpServer, mcpServerStatus, whenMcpServerReady, type McpListenEvent, type McpServerConfig } from './index.js'
import { serveToolsHttp, type HttpServeOptions } from './server/index.js'
import { plain, sleep, until } from './test-support/fixtures.js'
import { startListenProxy } from './test-support/listen-proxy.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/**
 * Watches the timers set from now on with a delay of at least `minMs`: `pending()` lists those neither cleared nor
 * fired yet (a leaked backoff timer stays in it).
 */
function watchLongTimers(minMs: number): { pending(): unknown[] } {
  const set = vi.spyOn(globalThis, 'setTimeout')
  const clear = vi.spyOn(globalThis, 'clearTimeout')
  cleanups.push(() => (set.mockRestore(), clear.mockRestore()))
  return {
    pending: () => {
      const cleared = new Set<unknown>(clear.mock.calls.map(([handle]) => handle))
      return set.mock.calls.flatMap(([, delay], index) => {
        const handle = set.mock.results[index]?.value as unknown
        return (delay ?? 0) >= minMs && !cleared.has(handle) ? [handle] : []
      })
    },
  }
}

/** A registry with one tool (`first`), served over Streamable HTTP. */
async function servedRegistry(options: HttpServeOptions = {}) {
  const t = await createToolContext()
  cleanups.push(() => t.dispose())
  t.tools.register(plain('first'))
  let http = await serveToolsHttp(t.ctx, options)
  const port = Number(new URL(http.url).port)
  let running = true
  cleanups.push(() => (running ? http.close() : undefined))
  return {
    t,
    url: http.url,
    /** Stops serving (the registry lives on). */
    stop: async () => {
      running = false
      await http.close()
    },
    /** Serves the same registry again on the same port. */
    restart: async () => {
      http = await serveToolsHttp(t.ctx, { ...options, port })
      running = true
    },
  }
}

/** Our client plugin on `url` in the 2026-07-28 era, recording its `mcp/listen` events. */
async function modernClient(url: string, config: Partial<McpServerConfig> = {}): Promise<{ client: ToolTestContext; events: McpListenEvent[] }> {
  const client = await createToolContext()
  cleanups.push(() => client.dispose())
  const events: McpListenEvent[] = []
  client.ctx.on('mcp/listen', (event) => void events.push(event))
  await client.load(mcpServer, { id: 'remote', url, protocol: 'modern', listChangedDebounceMs: 20, restart: { initialDelayMs: 50, maxDelayMs: 400 }, ...config })
  expect((await whenMcpServerReady(client.ctx, 'remote')).state).toBe('ready')
  return { client, events }
}

const listenState = (client: ToolTestContext) => mcpServerStatus(client.ctx, 'remote')?.listen

describe('the 2026-07-28 listen stream', () => {
  it('is reopened after the server side drops it, every time, one stream at a time, and a tool added afterwards still appears', async () => {
    const served = await servedRegistry()
    const proxy = await startListenProxy(served.url)
    cleanups.push(() => proxy.close())
    const { client, events } = await modernClient(proxy.url)
    await until(() => proxy.openListenStreams === 1, 10_000, 'the first listen stream')
    expect(listenState(client)).toMatchObject({ state: 'open', reopens: 0, lastEvent: { server: 'remote', kind: 'opened' } })

    for (let drop = 1; drop <= 3; drop += 1) {
      proxy.dropListenStreams()
      await until(() => listenState(client)?.reopens === drop && proxy.openListenStreams === 1, 15_000, `reopen number ${drop}`)
    }
    const kinds = events.map((event) => event.kind)
    expect(kinds).toEqual(['opened', 'closed', 'reopened', 'closed', 'reopened', 'closed', 'reopened'])
    expect(events.filter((event) => event.kind === 'closed').every((event) => event.cause === 'remote' && (event.retryInMs ?? 0) >= 25)).toBe(true)
    expect(listenState(client)).toMatchObject({ state: 'open', reopens: 3, lastEvent: { kind: 'reopened' } })
    expect(proxy.maxOpenListenStreams).toBe(1)
    expect(proxy.listenRequests).toBe(4)

    served.t.tools.register(plain('second'))
    await until(() => client.tools.get('mcp__remote__second') !== undefined, 15_000, 'the tool added after the reopens')
  })

  it('is reopened on a server restarted on the same port, and a tool added while no stream was open appears after the reopen', async () => {
    const served = await servedRegistry()
    const { client, events } = await modernClient(served.url)
    expect(client.tools.get('mcp__remote__first')).toBeDefined()

    await served.stop()
    await until(() => listenState(client)?.state === 'reopening', 15_000, 'the stream to be seen closed')
    expect(['graceful', 'remote']).toContain(events.find((event) => event.kind === 'closed')?.cause)
    // No server runs, so nobody can announce this one: only the re-list after the reopen can find it.
    served.t.tools.register(plain('offline'))
    await sleep(300)
    expect(client.tools.get('mcp__remote__offline')).toBeUndefined()

    await served.restart()
    await until(() => client.tools.get('mcp__remote__offline') !== undefined, 20_000, 'the tool added while no stream was open')
    expect(events.map((event) => event.kind)).toContain('reopened')
    await until(() => listenState(client)?.state === 'open', 10_000, 'the stream open again')
    expect(listenState(client)?.reopens).toBe(1)

    // The new stream carries later changes.
    served.t.tools.register(plain('later'))
    await until(() => client.tools.get('mcp__remote__later') !== undefined, 15_000, 'the tool added on the new stream')
  })

  it('shows the reopening in the status while the server is down, with why and when', async () => {
    const served = await servedRegistry()
    const { client } = await modernClient(served.url, { restart: { initialDelayMs: 5_000, maxDelayMs: 5_000 } })
    await served.stop()
    await until(() => listenState(client)?.state === 'reopening', 15_000, 'the stream to be seen closed')
    const status = listenState(client)
    expect(status?.note).toMatch(/^the listen stream is down: (the server ended it|it dropped \(server or network\)); reopening in \d+ ms, then the tools are listed again$/)
    expect(status?.lastEvent?.retryInMs).toBeGreaterThanOrEqual(2_500)
    expect(status?.lastEvent?.retryInMs).toBeLessThanOrEqual(5_000)
    expect(mcpServerStatus(client.ctx, 'remote')?.state).toBe('ready') // calls are not blocked by a missing stream
  })

  it('records a server without subscriptions/listen as unsupported, never retries, and re-lists when its tools/list ttlMs expires', async () => {
    const served = await servedRegistry({ listTtlMs: 300 })
    const proxy = await startListenProxy(served.url, { listen: 'method-not-found' })
    cleanups.push(() => proxy.close())
    const { client, events } = await modernClient(proxy.url, { minListTtlMs: 100 })
    expect(listenState(client)).toMatchObject({ state: 'unsupported', relistEveryMs: 300 })
    expect(listenState(client)?.note).toBe('the server does not offer subscriptions/listen (Method not found): the tools are listed again every 300 ms (its tools/list ttlMs)')
    expect(events).toEqual([{ server: 'remote', kind: 'unsupported', message: 'the server does not offer subscriptions/listen (Method not found)' }])

    served.t.tools.register(plain('second'))
    await until(() => client.tools.get('mcp__remote__second') !== undefined, 15_000, 'the ttl re-list to find the new tool')
    await sleep(500) // several backoff periods (50 ms): a retry would have happened by now
    expect(proxy.listenRequests).toBe(1)
  })

  it('never re-lists faster than minListTtlMs, whatever ttlMs the server gives', async () => {
    const served = await servedRegistry({ listTtlMs: 1 })
    const proxy = await startListenProxy(served.url, { listen: 'method-not-found' })
    cleanups.push(() => proxy.close())
    const { client } = await modernClient(proxy.url, { minListTtlMs: 60_000 })
    expect(listenState(client)).toMatchObject({ state: 'unsupported', relistEveryMs: 60_000 })
    served.t.tools.register(plain('second'))
    await sleep(500)
    expect(client.tools.get('mcp__remote__second')).toBeUndefined()
  })

  it('says that changes are seen only after a reconnect when the server offers neither a listen stream nor a ttlMs', async () => {
    const served = await servedRegistry() // ttlMs 0: "always stale", no interval to re-list on
    const proxy = await startListenProxy(served.url, { listen: 'method-not-found' })
    cleanups.push(() => proxy.close())
    const { client } = await modernClient(proxy.url, { minListTtlMs: 50 })
    const status = listenState(client)
    expect(status?.state).toBe('unsupported')
    expect(status?.relistEveryMs).toBeUndefined()
    expect(status?.note).toMatch(/its tools\/list gives no ttlMs, so tool changes are seen only after a reconnect$/)
  })

  it('leaves no timer and no stream when the plugin is disposed while the stream waits to reopen', async () => {
    const served = await servedRegistry()
    const proxy = await startListenProxy(served.url)
    cleanups.push(() => proxy.close())
    const long = watchLongTimers(30_000)
    const { client } = await modernClient(proxy.url, { restart: { initialDelayMs: 60_000, maxDelayMs: 60_000 } })
    await until(() => proxy.openListenStreams === 1, 10_000, 'the first listen stream')
    proxy.dropListenStreams()
    await until(() => listenState(client)?.state === 'reopening', 15_000, 'the backoff')
    expect(listenState(client)?.lastEvent?.retryInMs).toBeGreaterThanOrEqual(30_000)
    expect(long.pending()).toHaveLength(1) // the backoff (30 to 60 s, with jitter)
    await client.dispose()
    expect(long.pending()).toEqual([])
    await until(() => proxy.openListenStreams === 0, 10_000, 'no stream left open')
    expect(proxy.listenRequests).toBe(1)
  })

  it('passes the hot-unload check with its listen stream open', async () => {
    const served = await servedRegistry()
    const report = await expectCleanUnload(mcpServer, { config: { id: 'remote', url: served.url, protocol: 'modern' }, cycles: 2 })
    expect(report.clean).toBe(true)
  })
})

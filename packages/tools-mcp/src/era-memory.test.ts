// The HTTP client's `server/discover` probe got an error (HTTP 400) from a 2025-era server on every connect: the era
// was never remembered. The era a server answered with is now kept per server (for the plugin's life, across
// reconnects), and a 2025-era server is connected with `initialize` at once afterwards.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createToolContext } from '@dsh/tools-testing'
import { afterEach, describe, expect, it } from 'vitest'
import { mcpServer, mcpServerStatus, whenMcpServerReady } from './index.js'
import { fixture, fixtureTool, readJsonLines, until } from './test-support/fixtures.js'
import { startLegacyHttpServer } from './test-support/legacy-http-server.js'
import { expectNoLeftovers, recordPids } from './test-support/load.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await expectNoLeftovers()
})

const count = (methods: readonly string[], method: string): number => methods.filter((name) => name === method).length

describe('the era of a server is remembered', () => {
  it('over HTTP (auto): a 2025-era server is probed once; the connect after a failed one goes straight to initialize', async () => {
    const server = await startLegacyHttpServer({ failFirstInitialize: true })
    cleanups.push(() => server.close())
    const t = await createToolContext()
    cleanups.push(() => t.dispose())
    await t.load(mcpServer, { id: 'old', url: server.url, restart: { initialDelayMs: 10, maxDelayMs: 50 }, tools: { ping: { approval: 'allow' } } })
    const status = await whenMcpServerReady(t.ctx, 'old')
    expect(status.state, status.error?.message).toBe('ready')
    expect(status.era).toBe('legacy')
    expect(status.restarts).toBe(1)
    expect(count(server.methods, 'initialize')).toBe(2)
    expect(count(server.methods, 'server/discover')).toBe(1)
    const result = await t.tools.execute({ callId: 'p', name: 'mcp__old__ping', arguments: {} })
    expect(result.content).toEqual([{ type: 'text', text: 'pong' }])
  })

  it('over stdio (auto): a 2025-era server restarted after a crash is not probed again', async () => {
    const fx = fixture([fixtureTool('a')])
    cleanups.push(fx.cleanup)
    const log = join(fx.dir, 'wire.jsonl')
    writeFileSync(log, '')
    const outgoing = (method: string): number =>
      readJsonLines<{ dir: string; message: { method?: string } }>(log).filter((entry) => entry.dir === 'in' && entry.message.method === method).length
    const t = await createToolContext()
    recordPids(t)
    cleanups.push(() => t.dispose())
    const tap = join(import.meta.dirname, 'test-support', 'stdio-tap.mjs')
    const raw = join(import.meta.dirname, 'test-support', 'raw-server.mjs')
    await t.load(mcpServer, { ...fx.config, args: [tap, process.execPath, raw], protocol: 'auto', env: { ...fx.config.env, TAP_LOG: log } })
    const first = await whenMcpServerReady(t.ctx, 'fx')
    expect(first.state, first.error?.message).toBe('ready')
    expect(first.era).toBe('legacy')
    expect(outgoing('server/discover')).toBe(1)
    process.kill(first.pid as number, 'SIGKILL')
    await until(() => mcpServerStatus(t.ctx, 'fx')?.state === 'ready' && mcpServerStatus(t.ctx, 'fx')?.pid !== first.pid, 15_000, 'the restart')
    expect(outgoing('initialize')).toBe(2)
    expect(outgoing('server/discover')).toBe(1)
  })
})

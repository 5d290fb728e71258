// Shutdown that never completed: `await fiber.dispose()` in a plain script, with a server whose process group is slow
// to go (the server exits, a grandchild that ignores SIGTERM stays), waited on unref'd timers. Node found its event
// loop empty, exited with code 13 (unsettled top-level await) and never ran the line after the `await`; the
// grandchild outlived the host.
import { createToolContext } from '@dsh/tools-testing'
import { afterEach, describe, expect, it } from 'vitest'
import { mcpServer, whenMcpServerReady } from './index.js'
import { groupAlive } from './process-groups.js'
import { alive, sleep, until } from './test-support/fixtures.js'
import { killHostLeftovers, startMcpHost } from './test-support/host-process.js'
import { startLegacyHttpServer } from './test-support/legacy-http-server.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  killHostLeftovers()
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

describe('disposing an MCP server plugin from a plain script', () => {
  it('await fiber.dispose() settles with a server group that is slow to exit: the next line runs, exit code 0, the group is gone', async () => {
    // Measured: exit code 0 after about 1 s of shutdown (killGraceMs 300 twice, then SIGKILL); before, exit code 13.
    const host = startMcpHost('dispose')
    const pids = await host.ready()
    expect(await host.exited).toEqual({ code: 0, signal: null })
    expect(host.output()).toContain('disposed\n')
    await until(() => !alive(pids.grandchild) && !groupAlive(pids.server), 10_000, 'the server group to be gone')
  })
})

describe('disposing an HTTP MCP server plugin', () => {
  it('settles when the 2025-era server never answers the DELETE that ends its session (waited killGraceMs, then dropped)', async () => {
    const server = await startLegacyHttpServer({ hangOnDelete: true })
    cleanups.push(() => server.close())
    const t = await createToolContext()
    const loaded = await t.load(mcpServer, { id: 'old', url: server.url, protocol: 'legacy', killGraceMs: 200 })
    expect((await whenMcpServerReady(t.ctx, 'old')).state).toBe('ready')
    // Measured: about 0.2 s (the grace). Without the bound it never settled.
    const settled = await Promise.race([loaded.dispose().then(() => true), sleep(10_000).then(() => false)])
    expect(settled).toBe(true)
    expect(server.methods).toContain('initialize')
    await t.dispose()
  })
})

// Issue 32, class 2: every promise an mcp/* observer hands back is observed. An async observer that rejects (and one
// that throws) is logged on the `mcp` logger; the connection goes on; no unhandled rejection.
import { createToolContext } from '@dsh/tools-testing'
import { afterEach, describe, expect, it } from 'vitest'
import { mcpServer, whenMcpServerReady } from './index.js'
import { fixture, fixtureTool } from './test-support/fixtures.js'
import { expectNoLeftovers, recordPids } from './test-support/load.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await expectNoLeftovers()
})

describe('mcp/* observers that fail', () => {
  it('an async mcp/status observer that rejects and one that throws are logged; the server still connects; nothing unhandled', async () => {
    const unhandled: unknown[] = []
    const record = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', record)
    cleanups.push(() => void process.off('unhandledRejection', record))
    const t = await createToolContext()
    recordPids(t)
    cleanups.push(() => t.dispose())
    let calls = 0
    t.ctx.on('mcp/status', async () => {
      calls += 1
      throw new Error('async observer broke')
    })
    t.ctx.on('mcp/status', () => {
      throw new Error('sync observer broke')
    })
    const fx = fixture([fixtureTool('read')])
    cleanups.push(fx.cleanup)
    await t.load(mcpServer, { killGraceMs: 1_000, ...fx.config })
    const status = await whenMcpServerReady(t.ctx, fx.config.id)
    expect(status.state).toBe('ready')
    for (let round = 0; round < 3; round += 1) await new Promise((resolve) => setImmediate(resolve))
    expect(calls).toBeGreaterThan(0)
    const messages = t.logs.map((log) => log.text)
    expect(messages.filter((message) => message.includes('an mcp/status observer failed: async observer broke'))).toHaveLength(calls)
    expect(messages.filter((message) => message.includes('an mcp/status observer failed: sync observer broke'))).toHaveLength(calls)
    expect(unhandled).toEqual([])
  })
})

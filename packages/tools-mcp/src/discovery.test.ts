import { createToolContext } from '@dsh/tools-testing'
import { afterEach, describe, expect, it } from 'vitest'
import { mcpServer, mcpServerStatus, whenMcpServerReady } from './index.js'
import { alive, fixture, fixtureTool, until } from './test-support/fixtures.js'
import { expectNoLeftovers, recordPids } from './test-support/load.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await expectNoLeftovers()
})

async function load(tools: readonly unknown[], options: Parameters<typeof fixture>[1] = {}) {
  const fx = fixture(tools, options)
  cleanups.push(fx.cleanup)
  const t = await createToolContext()
  recordPids(t)
  cleanups.push(() => t.dispose())
  const loaded = await t.load(mcpServer, fx.config)
  const status = await whenMcpServerReady(t.ctx, fx.config.id)
  return { t, fx, loaded, status }
}

describe('discovery', () => {
  it('registers the tools of every page, not only the first', async () => {
    const tools = Array.from({ length: 7 }, (_, index) => fixtureTool(`tool_${index}`))
    const { t, status } = await load(tools, { env: { FIXTURE_PAGE_SIZE: '2' } })
    expect(status.state).toBe('ready')
    const names = t.tools.schemas().map((schema) => schema.name).sort()
    expect(names).toEqual(tools.map((_, index) => `mcp__fx__tool_${index}`))
  })

  it('abandons a listing whose cursor repeats, and says so in the status', async () => {
    const { status } = await load([fixtureTool('a')], { env: { FIXTURE_LOOP_CURSOR: '1' }, config: { restart: { maxRestarts: 0 } } })
    expect(status.state).toBe('suspended')
    expect(status.error?.message).toContain('repeated the cursor')
  })

  it('stops at the page cap', async () => {
    const tools = Array.from({ length: 6 }, (_, index) => fixtureTool(`tool_${index}`))
    const { status } = await load(tools, { env: { FIXTURE_PAGE_SIZE: '1' }, config: { maxListPages: 3, restart: { maxRestarts: 0 } } })
    expect(status.state).toBe('suspended')
    expect(status.error?.message).toContain('more than 3 pages')
  })

  it('unregisters every tool and ends the server process when the plugin is unloaded', async () => {
    const { t, loaded, status } = await load([fixtureTool('a'), fixtureTool('b')])
    const pid = status.pid as number
    expect(alive(pid)).toBe(true)
    await loaded.dispose()
    expect(t.tools.schemas()).toEqual([])
    await until(() => !alive(pid), 10_000, 'the server to exit')
    expect(mcpServerStatus(t.ctx, 'fx')).toBeUndefined()
  })

  it('calls a tool through ctx.tools.execute and returns its content', async () => {
    const { t } = await load([fixtureTool('echo')], { config: { trust: true } })
    const result = await t.tools.execute({ callId: 'c1', name: 'mcp__fx__echo', arguments: { hello: 'world' } })
    expect(result.isError).toBe(false)
    expect(result.content).toEqual([{ type: 'text', text: 'echo {"hello":"world"}' }])
    expect(result.meta).toMatchObject({ mcp: { server: 'fx', tool: 'echo' } })
  })
})

describe('protocol eras over stdio', () => {
  it('speaks the legacy handshake by default and the stateless 2026-07-28 protocol when asked', async () => {
    const legacy = await load([fixtureTool('echo')])
    expect(legacy.status.era).toBe('legacy')
    const modern = await load([fixtureTool('echo')], { id: 'mo', config: { protocol: 'modern', trust: true, restart: { maxRestarts: 0 } } })
    expect(modern.status.era).toBe('modern')
    const result = await modern.t.tools.execute({ callId: 'm', name: 'mcp__mo__echo', arguments: { era: 'modern' } })
    expect(result.content).toEqual([{ type: 'text', text: 'echo {"era":"modern"}' }])
    const probed = await load([fixtureTool('echo')], { id: 'au', config: { protocol: 'auto' } })
    expect(probed.status.era).toBe('modern') // server/discover answered: no fallback
  })
})

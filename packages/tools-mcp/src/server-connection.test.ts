import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createToolContext, expectCleanUnload } from '@dsh/tools-testing'
import { afterEach, describe, expect, it } from 'vitest'
import { approveMcpTools, McpConfigError, mcpServer, mcpServerStatus, whenMcpServerReady, type McpServerStatus } from './index.js'
import { alive, bin, fixture, fixtureTool, until } from './test-support/fixtures.js'
import { expectNoLeftovers, loadFixture, recordPids } from './test-support/load.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await expectNoLeftovers()
})

const names = (schemas: readonly { name: string }[]): string[] => schemas.map((schema) => schema.name).sort()
const toolState = (status: McpServerStatus | undefined, wireName: string) => status?.tools.find((tool) => tool.wireName === wireName)?.state

describe('list_changed and drift', () => {
  it('re-lists on list_changed although the server did not advertise it: adds, removes, and quarantines a changed tool', async () => {
    const { t, fx } = await loadFixture([fixtureTool('notify_changed'), fixtureTool('stable'), fixtureTool('widened'), fixtureTool('removed')], cleanups, {
      config: { tools: { notify_changed: { approval: 'allow' } } },
    })
    expect(names(t.tools.schemas())).toEqual(['mcp__fx__notify_changed', 'mcp__fx__removed', 'mcp__fx__stable', 'mcp__fx__widened'])
    const widened = fixtureTool('widened', { inputSchema: { type: 'object', properties: { command: { type: 'string' } } } })
    fx.write([fixtureTool('notify_changed'), fixtureTool('stable'), widened, fixtureTool('added')])
    const before = t.tools.get('mcp__fx__stable')
    await t.tools.execute({ callId: 'n', name: 'mcp__fx__notify_changed', arguments: {} })
    await until(() => t.tools.get('mcp__fx__added') !== undefined, 10_000, 'the refresh')
    expect(names(t.tools.schemas())).toEqual(['mcp__fx__added', 'mcp__fx__notify_changed', 'mcp__fx__stable'])
    expect(t.tools.get('mcp__fx__stable')).toBe(before) // unchanged tools keep their registration
    const status = mcpServerStatus(t.ctx, 'fx')
    expect(toolState(status, 'widened')).toBe('quarantined')
    expect(status?.tools.find((tool) => tool.wireName === 'widened')?.note).toContain('changed since it was approved')
    await approveMcpTools(t.ctx, 'fx', ['widened'])
    expect(t.tools.get('mcp__fx__widened')?.parameters).toEqual(widened.inputSchema)
  })

  it('quarantines a tool whose definition changed across a restart, and honours pinned fingerprints from the start', async () => {
    const fx = fixture([fixtureTool('a')])
    cleanups.push(fx.cleanup)
    const t = await createToolContext()
    recordPids(t)
    cleanups.push(() => t.dispose())
    const first = await t.load(mcpServer, fx.config)
    const status = await whenMcpServerReady(t.ctx, 'fx')
    const pinned = { a: status.tools[0]?.fingerprint as string }
    await first.dispose()
    fx.write([fixtureTool('a', { description: 'Now also deletes your files' })])
    await t.load(mcpServer, { ...fx.config, pinned })
    const after = await whenMcpServerReady(t.ctx, 'fx')
    expect(toolState(after, 'a')).toBe('quarantined')
    // Not offered; only a stand-in that answers a call with MCP_TOOL_QUARANTINED keeps the name.
    expect(t.tools.schemas()).toEqual([])
    expect(t.tools.get('mcp__fx__a')?.description).toMatch(/^Waiting for approval of a changed definition/)
  })
})

describe('trust', () => {
  it("does not let an untrusted server's readOnlyHint make a tool parallel or skip the ask; a trusted one does", async () => {
    const readOnly = fixtureTool('read', { annotations: { readOnlyHint: true } })
    const destructive = fixtureTool('write', { annotations: { destructiveHint: true } })
    const untrusted = await loadFixture([readOnly, destructive], cleanups)
    expect(untrusted.t.tools.executionMode({ name: 'mcp__fx__read' })).toBe('serial')
    const denied = await untrusted.t.tools.execute({ callId: 'r', name: 'mcp__fx__read', arguments: {} })
    expect(denied.error?.code).toBe('APPROVAL_NO_AGENT') // asked, and nobody could answer
    const trusted = await loadFixture([readOnly, destructive], cleanups, { id: 'tr', config: { trust: true } })
    expect(trusted.t.tools.executionMode({ name: 'mcp__tr__read' })).toBe('parallel')
    expect((await trusted.t.tools.execute({ callId: 'r', name: 'mcp__tr__read', arguments: {} })).isError).toBe(false)
    const write = await trusted.t.tools.execute({ callId: 'w', name: 'mcp__tr__write', arguments: {} })
    expect(write.error?.code).toBe('APPROVAL_NO_AGENT') // destructiveHint asks even on a trusted server
  })

  it('applies per-tool overrides: names, disabled tools, approval and parallelism', async () => {
    const { t, status } = await loadFixture([fixtureTool('a'), fixtureTool('b'), fixtureTool('c')], cleanups, {
      config: { tools: { a: { name: 'alpha', approval: 'allow', concurrencySafe: true }, b: { enabled: false } } },
    })
    expect(names(t.tools.schemas())).toEqual(['alpha', 'mcp__fx__c'])
    expect(t.tools.executionMode({ name: 'alpha' })).toBe('parallel')
    expect((await t.tools.execute({ callId: 'a', name: 'alpha', arguments: {} })).isError).toBe(false)
    expect(toolState(status, 'b')).toBe('disabled')
  })
})

describe('processes', () => {
  it('kills a grandchild that ignores SIGTERM when the plugin is unloaded', async () => {
    const { t, fx, loaded, status } = await loadFixture([fixtureTool('grandchild')], cleanups, { config: { trust: true, tools: { grandchild: { approval: 'allow' } } } })
    const pidFile = join(fx.dir, 'grandchild.pid')
    await t.tools.execute({ callId: 'g', name: 'mcp__fx__grandchild', arguments: { pidFile } })
    const grandchild = Number(readFileSync(pidFile, 'utf8'))
    expect(alive(grandchild)).toBe(true)
    await loaded.dispose()
    await until(() => !alive(grandchild) && !alive(status.pid as number), 15_000, 'the whole group to be gone')
  })

  it('passes only the allow-listed environment plus what the config names', async () => {
    process.env.DSH_MCP_SECRET = 'leak'
    process.env.DSH_MCP_WANTED = 'yes'
    cleanups.push(() => {
      delete process.env.DSH_MCP_SECRET
      delete process.env.DSH_MCP_WANTED
    })
    const { t } = await loadFixture([fixtureTool('env')], cleanups, { config: { trust: true, inheritEnv: ['DSH_MCP_WANTED'], env: { PATH: '/usr/bin:/bin', EXTRA: '1' } } })
    const result = await t.tools.execute({ callId: 'e', name: 'mcp__fx__env', arguments: {} })
    const keys = JSON.parse(result.content[0]?.type === 'text' ? result.content[0].text : '[]') as string[]
    expect(keys).toContain('DSH_MCP_WANTED')
    expect(keys).toContain('EXTRA')
    expect(keys).toContain('FIXTURE_TOOLS')
    expect(keys).not.toContain('DSH_MCP_SECRET')
  })

  it("quotes the server's stderr when it fails to connect, and leaves no process behind", async () => {
    const t = await createToolContext()
    recordPids(t)
    cleanups.push(() => t.dispose())
    await t.load(mcpServer, { id: 'fs', command: bin('mcp-server-filesystem'), args: ['/does/not/exist/anywhere'], restart: { maxRestarts: 0 } })
    const status = await whenMcpServerReady(t.ctx, 'fs')
    expect(status.state).toBe('suspended')
    expect(status.error?.message).toMatch(/stderr of the server[\s\S]*does\/not\/exist/)
    expect(alive(status.pid as number)).toBe(false)
  })

  it('passes the hot-unload check', async () => {
    const fx = fixture([fixtureTool('a')])
    cleanups.push(fx.cleanup)
    const report = await expectCleanUnload(mcpServer, { config: fx.config, cycles: 2 })
    expect(report.clean).toBe(true)
  })
})

describe('the host schema check', () => {
  it("drops a tool the host's check refuses and records why, and keeps the rest", async () => {
    const open = fixtureTool('open', { inputSchema: { type: 'object', properties: {}, additionalProperties: true } })
    const closed = fixtureTool('closed', { inputSchema: { type: 'object', properties: {}, additionalProperties: false } })
    const { t, status } = await loadFixture([open, closed], cleanups, {
      config: { checkSchema: (schema) => (schema.additionalProperties === false ? [] : ['strict providers need additionalProperties: false']) },
    })
    expect(names(t.tools.schemas())).toEqual(['mcp__fx__closed'])
    const refused = status.tools.find((tool) => tool.wireName === 'open')
    expect(refused?.state).toBe('rejected')
    expect(refused?.findings).toEqual([{ code: 'check', path: '', message: 'strict providers need additionalProperties: false', repairable: false }])
  })
})

describe('config', () => {
  it('rejects a bad config with every problem listed', async () => {
    const t = await createToolContext()
    recordPids(t)
    cleanups.push(() => t.dispose())
    const error = await t.load(mcpServer, { id: 'a__b', command: 'x', url: 'ftp://x', timeouts: { call: 0 } } as never).catch((thrown: unknown) => thrown)
    const cause = error instanceof Error && !McpConfigError.isInstance(error) ? (error.cause ?? error) : error
    expect(String((cause as Error).message)).toMatch(/id: .*no "__"[\s\S]*give exactly one[\s\S]*timeouts.call/)
  })
})

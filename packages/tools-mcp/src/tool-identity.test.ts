// Identity of server tools. A registry name is what a model and a person approving a call know a tool by, but the
// mapped name ends in a short digest a server could brute-force (two wire names, one name), and overrides can map two
// wire names to one name. A second wire name took a quarantined tool's registry name without any drift being seen,
// and a drifted tool read as "Unknown tool" to the model. Names are bound to the wire name that held them first;
// drift is decided on the full fingerprint; a quarantined tool's name answers that it awaits approval.
import { afterEach, describe, expect, it } from 'vitest'
import { approveMcpTools, fingerprintTool, mcpServerStatus, type McpServerStatus, type McpToolDefinition } from './index.js'
import { fixtureTool, until } from './test-support/fixtures.js'
import { expectNoLeftovers, loadFixture, type LoadedFixture } from './test-support/load.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await expectNoLeftovers()
})

const names = (schemas: readonly { name: string }[]): string[] => schemas.map((schema) => schema.name).sort()
const toolOf = (status: McpServerStatus | undefined, wireName: string) => status?.tools.find((tool) => tool.wireName === wireName)
const textOf = (result: { content: readonly { type: string; text?: string }[] }): string => result.content.map((block) => block.text ?? '').join('\n')
// Two wire names that share a registry name: what a digest collision gives, spelled out with overrides.
const shared = { trust: true, tools: { a: { name: 'shared' }, b: { name: 'shared' } } }

/** Lists `tools` on the fixture and waits until the plugin has seen the listing (`done` holds). */
async function relist({ t, fx }: LoadedFixture, tools: readonly unknown[], done: (status: McpServerStatus | undefined) => boolean): Promise<McpServerStatus> {
  fx.write([fixtureTool('notify_changed'), ...tools])
  await t.tools.execute({ callId: 'n', name: 'mcp__fx__notify_changed', arguments: {} })
  await until(() => done(mcpServerStatus(t.ctx, 'fx')), 10_000, 'the re-listing')
  return mcpServerStatus(t.ctx, 'fx') as McpServerStatus
}

describe('registry names belong to the wire name that held them first', () => {
  it('a second wire name mapping to a quarantined tool\'s registry name is quarantined, not registered under it', async () => {
    const loaded = await loadFixture([fixtureTool('notify_changed'), fixtureTool('a')], cleanups, { config: shared })
    const { t } = loaded
    expect(textOf(await t.tools.execute({ callId: '1', name: 'shared', arguments: {} }))).toBe('echo {}')
    const status = await relist(loaded, [fixtureTool('a', { description: 'Now deletes things' }), fixtureTool('b')], (now) => toolOf(now, 'b') !== undefined)
    expect(toolOf(status, 'a')?.state).toBe('quarantined')
    expect(toolOf(status, 'b')?.state).toBe('quarantined')
    expect(toolOf(status, 'b')?.note).toContain('its registry name shared belongs to the tool "a", which held it first')
    expect(names(t.tools.schemas())).toEqual(['mcp__fx__notify_changed'])
    // The name reaches no tool of the server: b never runs as "shared".
    const call = await t.tools.execute({ callId: '2', name: 'shared', arguments: {} })
    expect(call.error).toEqual({ name: 'McpCallError', code: 'MCP_TOOL_QUARANTINED' })
    expect(textOf(call)).toContain('changed the tool\'s definition since it was approved')
  })

  it('a new wire name never inherits the name of a tool that left the listing; naming it in approveMcpTools hands the name over', async () => {
    const loaded = await loadFixture([fixtureTool('notify_changed'), fixtureTool('a')], cleanups, { config: shared })
    const { t } = loaded
    const status = await relist(loaded, [fixtureTool('b')], (now) => toolOf(now, 'b') !== undefined)
    expect(toolOf(status, 'a')).toBeUndefined()
    expect(toolOf(status, 'b')?.state).toBe('quarantined')
    const call = await t.tools.execute({ callId: '1', name: 'shared', arguments: {} })
    expect(call.error?.code).toBe('MCP_TOOL_QUARANTINED')
    expect(textOf(call)).toContain('now lists a different tool ("b") under the name that the tool "a" held')
    // Approving every quarantined tool never picks a new owner for a name.
    expect(toolOf(await approveMcpTools(t.ctx, 'fx'), 'b')?.state).toBe('quarantined')
    const approved = await approveMcpTools(t.ctx, 'fx', ['b'])
    expect(toolOf(approved, 'b')?.state).toBe('registered')
    expect(textOf(await t.tools.execute({ callId: '2', name: 'shared', arguments: {} }))).toBe('echo {}')
    // Now b owns the name: a, listed again beside it, is the one left out.
    const again = await relist(loaded, [fixtureTool('b'), fixtureTool('a')], (now) => toolOf(now, 'a') !== undefined)
    expect(toolOf(again, 'b')?.state).toBe('registered')
    expect(toolOf(again, 'a')?.state).not.toBe('registered')
  })

  it('a pinned wire name owns its registry name from the first listing', async () => {
    const pinned = { a: fingerprintTool(fixtureTool('a') as unknown as McpToolDefinition) }
    const { t, status } = await loadFixture([fixtureTool('b')], cleanups, { config: { ...shared, pinned } })
    expect(toolOf(status, 'b')?.state).toBe('quarantined')
    expect(t.tools.schemas()).toEqual([])
    expect((await t.tools.execute({ callId: '1', name: 'shared', arguments: {} })).error?.code).toBe('MCP_TOOL_QUARANTINED')
  })
})

describe('a quarantined (drifted) tool', () => {
  it('tells a model that calls it that it awaits approval instead of "Unknown tool", is not offered, and runs once approved', async () => {
    const loaded = await loadFixture([fixtureTool('notify_changed'), fixtureTool('x')], cleanups, { config: { trust: true } })
    const { t } = loaded
    await relist(loaded, [fixtureTool('x', { description: 'Now also deletes your files' })], (now) => toolOf(now, 'x')?.state === 'quarantined')
    expect(names(t.tools.schemas())).toEqual(['mcp__fx__notify_changed'])
    const call = await t.tools.execute({ callId: 'q', name: 'mcp__fx__x', arguments: { path: '/' } })
    expect(call.isError).toBe(true)
    expect(call.error).toEqual({ name: 'McpCallError', code: 'MCP_TOOL_QUARANTINED' })
    expect(textOf(call)).toBe(
      'The tool mcp__fx__x is waiting for approval: the MCP server "fx" changed the tool\'s definition since it was approved, so it is not available until a person approves the new definition. ' +
        'It was not called and nothing was sent to the server. Do not call it again for now; continue without it, or tell the user that it needs their approval.',
    )
    // An unknown tool's answer does not list it either.
    expect(textOf(await t.tools.execute({ callId: 'u', name: 'nope', arguments: {} }))).toBe('Unknown tool "nope". Available tools: mcp__fx__notify_changed.')
    await approveMcpTools(t.ctx, 'fx', ['x'])
    expect(names(t.tools.schemas())).toEqual(['mcp__fx__notify_changed', 'mcp__fx__x'])
    expect(t.tools.get('mcp__fx__x')?.description).toBe('Now also deletes your files')
    expect(textOf(await t.tools.execute({ callId: 'r', name: 'mcp__fx__x', arguments: {} }))).toBe('echo {}')
  })

  it('leaves no stand-in behind when the plugin is unloaded', async () => {
    const { t, loaded } = await loadFixture([fixtureTool('x')], cleanups, { config: { trust: true, pinned: { x: 'sha256:0' } } })
    expect(t.tools.get('mcp__fx__x')).toBeDefined()
    expect(t.tools.schemas()).toEqual([])
    await loaded.dispose()
    expect(t.tools.get('mcp__fx__x')).toBeUndefined()
  })
})

// serveToolsStdio in a real child process: test-support/serve-stdio-child.mjs serves a small registry on its
// stdin/stdout, and our client plugin spawns it like any MCP server.
import { join } from 'node:path'
import { createToolContext } from '@dsh/tools-testing'
import { afterEach, describe, expect, it } from 'vitest'
import { mcpServer, whenMcpServerReady } from '../index.js'
import { alive, until } from '../test-support/fixtures.js'
import { expectNoLeftovers, recordPids } from '../test-support/load.js'

const child = join(import.meta.dirname, '..', 'test-support', 'serve-stdio-child.mjs')

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await expectNoLeftovers()
})

describe('serveToolsStdio from a spawned child process', () => {
  it.each(['legacy', 'modern'] as const)('serves the child registry (%s era: schemas, outputSchema, calls, structuredContent, list_changed) and leaves no process behind', async (protocol) => {
    const t = await createToolContext()
    recordPids(t)
    cleanups.push(() => t.dispose())
    const loaded = await t.load(mcpServer, {
      id: 'child',
      command: process.execPath,
      args: [child],
      protocol,
      trust: true,
      listChangedDebounceMs: 20,
      // Not read-only, so they would ask (and nobody can answer here).
      tools: { pid: { approval: 'allow' }, grow: { approval: 'allow' } },
      killGraceMs: 2_000,
      // The child compiles its entry from source first; a loaded machine takes its time.
      timeouts: { connect: 60_000 },
    })
    const status = await whenMcpServerReady(t.ctx, 'child')
    expect(status.state, status.error?.message).toBe('ready')
    expect(status.serverInfo?.name).toBe('dsh-tools')
    const pid = status.pid!
    expect(alive(pid)).toBe(true)
    expect(status.tools.map((tool) => tool.wireName).sort()).toEqual(['add', 'grow', 'pid'])

    // add declares readOnlyHint, which a trusted server's client maps back; pid (concurrencySafe unset) stays serial.
    expect(t.tools.executionMode({ name: 'mcp__child__add' })).toBe('parallel')
    expect(t.tools.executionMode({ name: 'mcp__child__pid' })).toBe('serial')
    // A trusted server's title and hints stay on the registered tool, so serving this registry again lists them.
    expect(t.tools.get('mcp__child__add')?.title).toBe('Add two numbers')
    expect(t.tools.get('mcp__child__add')?.annotations).toEqual({ readOnlyHint: true })
    expect(t.tools.get('mcp__child__pid')?.annotations).toBeUndefined()
    expect(t.tools.outputSchema('mcp__child__add')).toEqual({ type: 'object', additionalProperties: false, properties: { sum: { type: 'number' } }, required: ['sum'] })

    const sum = await t.tools.execute({ callId: 'a', name: 'mcp__child__add', arguments: { a: 2, b: 3 } })
    expect(sum.isError).toBe(false)
    expect(sum.content).toEqual([{ type: 'text', text: 'The sum is 5.' }])
    expect(sum.structuredContent).toEqual({ sum: 5 })
    const bad = await t.tools.execute({ callId: 'b', name: 'mcp__child__add', arguments: { a: 'two', b: 3 } })
    expect(bad.isError).toBe(true)
    const served = await t.tools.execute({ callId: 'p', name: 'mcp__child__pid', arguments: {} })
    expect(served.content).toEqual([{ type: 'text', text: String(pid) }])

    // The child's registry changes during a call: the change reaches us (2025: on the connection; 2026-07-28: on
    // the subscriptions/listen stream our client keeps open) and the new tool is registered here.
    const grew = await t.tools.execute({ callId: 'g', name: 'mcp__child__grow', arguments: {} })
    expect(grew.content).toEqual([{ type: 'text', text: 'grew' }])
    await until(() => t.tools.get('mcp__child__grown') !== undefined, 15_000, 'the grown tool to be registered')

    await loaded.dispose()
    await until(() => !alive(pid), 15_000, `the serving child ${pid} to exit`)
  })
})

// Structured output need not be an object in the 2026-07-28 era: a tool's outputSchema may have any root and its
// structuredContent any JSON value. The client must take such a value from such a server (checked against the
// tool's outputSchema) and map it, while a 2025-era server's non-object structuredContent stays a protocol error.
import { afterEach, describe, expect, it } from 'vitest'
import { fixtureTool } from './test-support/fixtures.js'
import { expectNoLeftovers, loadFixture } from './test-support/load.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await expectNoLeftovers()
})

const modern = { config: { trust: true, protocol: 'modern' as const } }

describe('non-object structured output from a 2026-07-28 server', () => {
  it('is carried as structuredContent and checked against a non-object outputSchema', async () => {
    const outputSchema = { type: 'array', items: { type: 'number' } }
    const { t, status } = await loadFixture([fixtureTool('structured', { outputSchema })], cleanups, modern)
    expect(status.era).toBe('modern')
    expect(status.tools[0]?.state).toBe('registered')
    const good = await t.tools.execute({ callId: 'g', name: 'mcp__fx__structured', arguments: { value: [1, 2] } })
    expect(good.error).toBeUndefined()
    expect(good.structuredContent).toEqual([1, 2])
    expect(good.content).toEqual([{ type: 'text', text: '[1,2]' }])
    const bad = await t.tools.execute({ callId: 'b', name: 'mcp__fx__structured', arguments: { value: ['one'] } })
    expect(bad.error?.code).toBe('MCP_INVALID_OUTPUT')
  })

  it('is carried for a tool without an outputSchema: a string, a number, null', async () => {
    const { t } = await loadFixture([fixtureTool('structured')], cleanups, modern)
    for (const value of ['plain text', 42, null, [{ a: 1 }]]) {
      const result = await t.tools.execute({ callId: 'v', name: 'mcp__fx__structured', arguments: { value } })
      expect(result.error, JSON.stringify(value)).toBeUndefined()
      expect(result.structuredContent).toEqual(value)
    }
  })
})

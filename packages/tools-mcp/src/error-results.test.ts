// A server's isError result reaches the model as an error result with the server's own content (images too),
// bounded like a success's; its structuredContent is neither validated nor carried.
import { afterEach, describe, expect, it } from 'vitest'
import { fixtureTool } from './test-support/fixtures.js'
import { expectNoLeftovers, loadFixture } from './test-support/load.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await expectNoLeftovers()
})

const outputSchema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] }

describe('isError results', () => {
  it('are MCP_SERVER_ERROR results whose content is the server\'s, image included, without its structuredContent', async () => {
    const { t } = await loadFixture([fixtureTool('error_image', { outputSchema })], cleanups, { config: { trust: true } })
    const seen: unknown[] = []
    t.ctx.on('tools/result', (_exec, result) => void seen.push(result))
    const result = await t.tools.execute({ callId: 'e', name: 'mcp__fx__error_image', arguments: {} })
    expect(result).toEqual({
      callId: 'e',
      isError: true,
      error: { name: 'McpCallError', code: 'MCP_SERVER_ERROR' },
      content: [
        { type: 'text', text: 'render failed; this is what was drawn:' },
        { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' },
      ],
    })
    expect(result).not.toHaveProperty('structuredContent')
    expect(result).not.toHaveProperty('meta')
    expect(seen).toEqual([result])
  })

  it('are bounded like a success: an image over maxBinaryBytes becomes a placeholder, the error stays an error', async () => {
    const { t } = await loadFixture([fixtureTool('error_image')], cleanups, { config: { trust: true, output: { maxBinaryBytes: 8 } } })
    const result = await t.tools.execute({ callId: 'e', name: 'mcp__fx__error_image', arguments: { data: 'A'.repeat(64) } })
    expect(result.error).toEqual({ name: 'McpCallError', code: 'MCP_SERVER_ERROR' })
    expect(result.content).toEqual([
      { type: 'text', text: 'render failed; this is what was drawn:' },
      { type: 'text', text: "[image (image/png) of 64 bytes omitted: over the MCP client's limit of 8]" },
    ])
  })
})

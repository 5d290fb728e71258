import { createToolContext } from '@dsh/tools-testing'
import { afterEach, describe, expect, it } from 'vitest'
import { mcpServer, whenMcpServerReady } from './index.js'
import { startHttpServer } from './test-support/http-server.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

describe('Streamable HTTP', () => {
  for (const protocol of ['legacy', 'modern', 'auto'] as const) {
    it(`lists and calls a tool over HTTP on 127.0.0.1 (${protocol} negotiation), with a bearer token`, async () => {
      const server = await startHttpServer('s3cret')
      cleanups.push(() => server.close())
      const t = await createToolContext()
      cleanups.push(() => t.dispose())
      await t.load(mcpServer, { id: 'web', url: server.url, headers: { Authorization: 'Bearer s3cret' }, protocol, trust: true })
      const status = await whenMcpServerReady(t.ctx, 'web')
      expect(status.state).toBe('ready')
      expect(status.era).toBe(protocol === 'legacy' ? 'legacy' : 'modern')
      const result = await t.tools.execute({ callId: 'a', name: 'mcp__web__add', arguments: { a: 2, b: 3 } })
      expect(result.content).toEqual([{ type: 'text', text: '5' }])
      expect(result.structuredContent).toEqual({ sum: 5 })
      expect(result.meta).not.toHaveProperty('structuredContent')
    })
  }

  it('reports a rejected token as a connect failure instead of registering anything', async () => {
    const server = await startHttpServer('s3cret')
    cleanups.push(() => server.close())
    const t = await createToolContext()
    cleanups.push(() => t.dispose())
    await t.load(mcpServer, { id: 'web', url: server.url, headers: { Authorization: 'Bearer wrong' }, protocol: 'legacy', restart: { maxRestarts: 0 } })
    const status = await whenMcpServerReady(t.ctx, 'web')
    expect(status.state).toBe('suspended')
    expect(status.error?.message).toMatch(/did not connect/)
    expect(t.tools.schemas()).toEqual([])
  })
})

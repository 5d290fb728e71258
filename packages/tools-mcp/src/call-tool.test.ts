import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { mcpServerStatus, type McpProgressEvent } from './index.js'
import { alive, fixtureServer, fixtureTool, until } from './test-support/fixtures.js'
import { expectNoLeftovers, loadFixture } from './test-support/load.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await expectNoLeftovers()
})

const trusted = { config: { trust: true } }

describe('calls', () => {
  it('resets the idle budget on progress, forwards progress as mcp/progress, and times out without progress', async () => {
    const { t } = await loadFixture([fixtureTool('sleep')], cleanups, { config: { trust: true, timeouts: { call: 700 } } })
    const seen: McpProgressEvent[] = []
    t.ctx.on('mcp/progress', (event) => void seen.push(event))
    const withProgress = await t.tools.execute({ callId: 'p', name: 'mcp__fx__sleep', arguments: { ms: 2_400, steps: 6, progress: true } })
    expect(withProgress.isError).toBe(false)
    // The last notification may race the result; every earlier one arrived before it.
    expect(seen.length).toBeGreaterThanOrEqual(5)
    expect(seen[4]).toMatchObject({ server: 'fx', name: 'mcp__fx__sleep', callId: 'p', progress: 5, total: 6, message: 'step 5' })
    const silent = await t.tools.execute({ callId: 's', name: 'mcp__fx__sleep', arguments: { ms: 2_400, steps: 1 } })
    expect(silent.isError).toBe(true)
    expect(silent.error).toEqual({ name: 'McpCallError', code: 'MCP_TIMEOUT' })
  })

  it('caps a call at callTotal even while progress keeps coming', async () => {
    const { t } = await loadFixture([fixtureTool('sleep')], cleanups, { config: { trust: true, timeouts: { call: 1_000, callTotal: 1_200 } } })
    const result = await t.tools.execute({ callId: 'p', name: 'mcp__fx__sleep', arguments: { ms: 4_000, steps: 20, progress: true } })
    expect(result.error?.code).toBe('MCP_TIMEOUT')
  })

  it('reports an abort as ABORTED and sends the cancellation to the server', async () => {
    const { t, fx } = await loadFixture([fixtureTool('sleep')], cleanups, trusted)
    const marker = join(fx.dir, 'cancelled')
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 300)
    const result = await t.tools.execute({ callId: 'a', name: 'mcp__fx__sleep', arguments: { ms: 10_000, marker }, signal: controller.signal })
    expect(result.isError).toBe(true)
    expect(result.error?.code).toBe('ABORTED')
    await until(() => existsSync(marker), 10_000, 'the server to see notifications/cancelled')
    expect(readFileSync(marker, 'utf8')).toBe('cancelled')
  })

  it("keeps the server's error text when isError comes with non-conforming structuredContent", async () => {
    const tool = fixtureTool('error_structured', { outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } })
    const { t } = await loadFixture([tool], cleanups, trusted)
    const result = await t.tools.execute({ callId: 'e', name: 'mcp__fx__error_structured', arguments: {} })
    expect(result.error).toEqual({ name: 'McpCallError', code: 'MCP_SERVER_ERROR' })
    expect(result.content).toEqual([{ type: 'text', text: 'real error: disk full' }])
  })

  it('carries structuredContent that matches the outputSchema, and fails one that does not (2020-12 keywords)', async () => {
    const outputSchema = { type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false } }, required: ['pair'] }
    const { t } = await loadFixture([fixtureTool('structured', { outputSchema })], cleanups, trusted)
    const good = await t.tools.execute({ callId: 'g', name: 'mcp__fx__structured', arguments: { value: { pair: ['a', 1] } } })
    expect(good.isError).toBe(false)
    expect(good.structuredContent).toEqual({ pair: ['a', 1] })
    expect(good.meta).not.toHaveProperty('structuredContent')
    const bad = await t.tools.execute({ callId: 'b', name: 'mcp__fx__structured', arguments: { value: { pair: [1, 'a'] } } })
    expect(bad.error?.code).toBe('MCP_INVALID_OUTPUT')
  })

  it('maps every content block 1:1 and turns an unknown type into a text placeholder', async () => {
    const raw = join(dirname(fixtureServer), 'raw-server.mjs')
    const { t } = await loadFixture([fixtureTool('mixed')], cleanups, { config: { trust: true, args: [raw] } })
    const result = await t.tools.execute({ callId: 'm', name: 'mcp__fx__mixed', arguments: {} })
    expect(result.content).toEqual([
      { type: 'text', text: 'hello', annotations: { audience: ['user'], priority: 0.5 } },
      { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' },
      { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' },
      { type: 'resource', resource: { uri: 'file:///b.txt', text: 'bee' } },
      { type: 'text', text: '[MCP content block of type "hologram" is not supported by this client]' },
      { type: 'text', text: '[malformed image block from the MCP server]' },
    ])
  })

  it('bounds text and block counts before the model sees them, with a marker', async () => {
    const { t } = await loadFixture([fixtureTool('huge'), fixtureTool('many_blocks')], cleanups, { config: { trust: true, output: { maxTextBytes: 1_000, maxBlocks: 3 } } })
    const text = await t.tools.execute({ callId: 'h', name: 'mcp__fx__huge', arguments: { bytes: 50_000 } })
    const first = text.content[0]
    expect(first?.type === 'text' && first.text.startsWith('x'.repeat(1_000) + '\n[49000 bytes of this output were cut')).toBe(true)
    expect(text.meta).toMatchObject({ mcp: { truncated: { textBytes: 49_000 } } })
    const blocks = await t.tools.execute({ callId: 'b', name: 'mcp__fx__many_blocks', arguments: { count: 10 } })
    expect(blocks.content).toHaveLength(4)
    expect(blocks.content[3]).toEqual({ type: 'text', text: '[7 more content blocks were dropped by the MCP client]' })
  })

  it('fails one call with MCP_RESULT_TOO_LARGE, restarts the server, and the next call works', async () => {
    const { t, status } = await loadFixture([fixtureTool('huge'), fixtureTool('echo')], cleanups, { config: { trust: true, maxMessageBytes: 200_000 } })
    const first = status.pid as number
    const result = await t.tools.execute({ callId: 'h', name: 'mcp__fx__huge', arguments: { bytes: 500_000 } })
    expect(result.error).toEqual({ name: 'McpCallError', code: 'MCP_RESULT_TOO_LARGE' })
    const next = await t.tools.execute({ callId: 'e', name: 'mcp__fx__echo', arguments: { again: true } })
    expect(next.isError).toBe(false)
    expect(next.content).toEqual([{ type: 'text', text: 'echo {"again":true}' }])
    const now = mcpServerStatus(t.ctx, 'fx')
    expect(now?.restarts).toBe(1)
    expect(now?.pid).not.toBe(first)
    expect(alive(first)).toBe(false)
  })

  it('fails the in-flight call at once when the server crashes, restarts it, and does not replay the call', async () => {
    const { t, fx } = await loadFixture([fixtureTool('crash'), fixtureTool('echo')], cleanups, { config: { timeouts: { call: 50_000 }, tools: { crash: { approval: 'allow' }, echo: { approval: 'allow' } } } })
    const started = Date.now()
    const result = await t.tools.execute({ callId: 'c', name: 'mcp__fx__crash', arguments: {} })
    expect(result.error).toEqual({ name: 'McpCallError', code: 'MCP_SERVER_CRASHED' })
    expect(Date.now() - started).toBeLessThan(40_000) // long before the call's 50 s budget
    const next = await t.tools.execute({ callId: 'e', name: 'mcp__fx__echo', arguments: {} })
    expect(next.isError).toBe(false)
    expect(mcpServerStatus(t.ctx, fx.config.id)?.restarts).toBe(1)
  })

  it('suspends a server that keeps crashing (circuit breaker) and fails calls with MCP_UNAVAILABLE', async () => {
    const { t } = await loadFixture([fixtureTool('crash')], cleanups, { config: { trust: true, restart: { maxRestarts: 1, initialDelayMs: 10, maxDelayMs: 10 }, tools: { crash: { approval: 'allow', idempotent: false } } } })
    await t.tools.execute({ callId: 'c1', name: 'mcp__fx__crash', arguments: {} })
    await until(() => mcpServerStatus(t.ctx, 'fx')?.state === 'ready', 15_000, 'the restart')
    await t.tools.execute({ callId: 'c2', name: 'mcp__fx__crash', arguments: {} })
    await until(() => mcpServerStatus(t.ctx, 'fx')?.state === 'suspended', 15_000, 'the breaker')
    const result = await t.tools.execute({ callId: 'c3', name: 'mcp__fx__crash', arguments: {} })
    expect(result.error).toEqual({ name: 'McpCallError', code: 'MCP_UNAVAILABLE' })
    expect(t.tools.schemas().map((schema) => schema.name)).toEqual(['mcp__fx__crash']) // registrations stay stable
  })
})

describe('replay after a crash', () => {
  it('sends a call again once when a trusted server marks the tool idempotent, and never for an untrusted one', async () => {
    const idempotent = fixtureTool('crash', { annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true } })
    const trustedServer = await loadFixture([idempotent], cleanups, { config: { trust: true, restart: { maxRestarts: 5, initialDelayMs: 10, maxDelayMs: 10 } } })
    const replayed = await trustedServer.t.tools.execute({ callId: 'c', name: 'mcp__fx__crash', arguments: {} })
    expect(replayed.error?.code).toBe('MCP_SERVER_CRASHED') // it crashes every time: sent twice, then reported
    await until(() => mcpServerStatus(trustedServer.t.ctx, 'fx')?.restarts === 2, 15_000, 'two restarts (one per attempt)')
    // An untrusted server's tools all ask: allowed here by the host, so the call runs (and is not replayed).
    const untrustedServer = await loadFixture([idempotent], cleanups, { id: 'un', config: { tools: { crash: { approval: 'allow' } }, restart: { maxRestarts: 5, initialDelayMs: 10, maxDelayMs: 10 } } })
    await untrustedServer.t.tools.execute({ callId: 'c', name: 'mcp__un__crash', arguments: {} })
    await until(() => mcpServerStatus(untrustedServer.t.ctx, 'un')?.state === 'ready', 15_000, 'the restart')
    expect(mcpServerStatus(untrustedServer.t.ctx, 'un')?.restarts).toBe(1)
  })
})

// A malformed answer to a request ("result": null, an array, both or neither of result and error) was dropped by the
// SDK as an unknown message, and the call waited for its whole idle budget (MCP_TIMEOUT after a minute by default).
// Every such answer must fail its request at once with MCP_PROTOCOL_ERROR, over stdio and over HTTP.
import { dirname, join } from 'node:path'
import { createToolContext } from '@dsh/tools-testing'
import { afterEach, describe, expect, it } from 'vitest'
import { mcpServer, whenMcpServerReady } from './index.js'
import { fixtureServer, fixtureTool } from './test-support/fixtures.js'
import { expectNoLeftovers, loadFixture, recordPids } from './test-support/load.js'
import { startMalformedHttpServer } from './test-support/malformed-http-server.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await expectNoLeftovers()
})

const malformedServer = join(dirname(fixtureServer), 'malformed-server.mjs')
// The idle budget a broken client waits for, far above what the fixed one takes. Measured here: the ten stdio calls
// take about 110 ms in all, and each HTTP call 25-50 ms; unfixed, a stdio call and an event-stream call waited the
// whole idle budget (8,004 ms with an 8,000 ms budget), and a JSON body failed at once with a dump of zod issues.
const idleMs = 120_000
const textOf = (result: { content: readonly { type: string; text?: string }[] }): string => result.content.map((block) => block.text ?? '').join('\n')

describe('a malformed answer to tools/call', () => {
  it('fails the call at once with MCP_PROTOCOL_ERROR over stdio, whatever is wrong with it, and the session stays usable', async () => {
    const names = ['null_result', 'array_result', 'string_result', 'both', 'neither', 'bad_error', 'no_jsonrpc', 'wrong_shape', 'array_structured', 'ok']
    const { t } = await loadFixture(names.map((name) => fixtureTool(name)), cleanups, {
      config: { trust: true, args: [malformedServer], timeouts: { call: idleMs, callTotal: idleMs * 2 } },
    })
    const started = Date.now()
    const texts: Record<string, string> = {}
    for (const name of names.slice(0, -1)) {
      const result = await t.tools.execute({ callId: name, name: `mcp__fx__${name}`, arguments: {} })
      expect(result.error, name).toEqual({ name: 'McpCallError', code: 'MCP_PROTOCOL_ERROR' })
      texts[name] = textOf(result)
    }
    // Nine calls; a single one waiting for its idle budget would take two minutes.
    expect(Date.now() - started).toBeLessThan(30_000)
    expect(texts.null_result).toBe('the MCP tool "null_result" of server "fx" failed: The MCP server sent a malformed response: its "result" is null, not an object.')
    expect(texts.array_result).toContain('its "result" is an array, not an object')
    expect(texts.string_result).toContain('its "result" is a string, not an object')
    expect(texts.both).toContain('it carries both "result" and "error"')
    expect(texts.neither).toContain('it carries neither "result" nor "error"')
    expect(texts.bad_error).toContain('its "error" is not an object with an integer "code" and a string "message"')
    expect(texts.no_jsonrpc).toContain('not a well-formed JSON-RPC 2.0 response')
    // A result object of the wrong shape for tools/call, or a 2025-era structuredContent that is not an object: a
    // protocol error too, never MCP_INVALID_OUTPUT (there is no outputSchema to mismatch).
    expect(texts.wrong_shape).toMatch(/Invalid result for tools\/call/)
    expect(texts.array_structured).toMatch(/Invalid result for tools\/call/)
    const ok = await t.tools.execute({ callId: 'ok', name: 'mcp__fx__ok', arguments: {} })
    expect(ok.isError).toBe(false)
    expect(ok.content).toEqual([{ type: 'text', text: 'fine' }])
  })

  it('fails the call at once over Streamable HTTP, in a JSON body and in an event stream', async () => {
    const server = await startMalformedHttpServer()
    cleanups.push(() => server.close())
    const t = await createToolContext()
    recordPids(t)
    cleanups.push(() => t.dispose())
    await t.load(mcpServer, { id: 'web', url: server.url, protocol: 'legacy', trust: true, timeouts: { call: idleMs, callTotal: idleMs * 2 } })
    expect((await whenMcpServerReady(t.ctx, 'web')).state).toBe('ready')
    const started = Date.now()
    for (const name of ['null_json', 'null_sse', 'array_sse']) {
      const result = await t.tools.execute({ callId: name, name: `mcp__web__${name}`, arguments: {} })
      expect(result.error, name).toEqual({ name: 'McpCallError', code: 'MCP_PROTOCOL_ERROR' })
      expect(textOf(result), name).toMatch(/sent a malformed response: its "result" is (null|an array), not an object/)
    }
    expect(Date.now() - started).toBeLessThan(30_000)
    const ok = await t.tools.execute({ callId: 'ok', name: 'mcp__web__ok_sse', arguments: {} })
    expect(ok.content).toEqual([{ type: 'text', text: 'fine' }])
  })
})

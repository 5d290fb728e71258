// A call that the plugin's unload interrupted said "it is being restarted" (MCP_SERVER_CRASHED): nothing restarts an
// unloaded server, and a model told so waits for it or retries. It must say "unloaded", with a code of its own.
import { afterEach, describe, expect, it } from 'vitest'
import { fixtureTool, sleep } from './test-support/fixtures.js'
import { expectNoLeftovers, loadFixture } from './test-support/load.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await expectNoLeftovers()
})

describe('unloading the plugin during a call', () => {
  it('fails the call with MCP_SERVER_UNLOADED, saying the server was unloaded, not that it restarts', async () => {
    const { t, loaded } = await loadFixture([fixtureTool('sleep')], cleanups, { config: { trust: true } })
    const pending = t.tools.execute({ callId: 's', name: 'mcp__fx__sleep', arguments: { ms: 30_000 } })
    await sleep(300) // the call is on the wire
    await loaded.dispose()
    const result = await pending
    expect(result.error).toEqual({ name: 'McpCallError', code: 'MCP_SERVER_UNLOADED' })
    const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
    expect(text).toBe(
      'The MCP server "fx" was unloaded while the MCP tool "sleep" of server "fx" ran or waited to run; the call did not complete and may or may not have taken effect. ' +
        "The server's tools are gone until the harness loads it again.",
    )
    expect(text).not.toMatch(/restart/)
  })
})

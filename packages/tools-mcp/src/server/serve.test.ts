import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LocalBashTools } from '@dsh/tool-bash'
import { defineTool } from '@dsh/tools-registry'
import { createToolContext } from '@dsh/tools-testing'
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterEach, describe, expect, it } from 'vitest'
import { mcpServer, whenMcpServerReady } from '../index.js'
import { createToolServer, serveToolsHttp } from './index.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function servedRegistry(token?: string) {
  const cwd = mkdtempSync(join(tmpdir(), 'mcp-serve-'))
  cleanups.push(() => rmSync(cwd, { recursive: true, force: true }))
  const t = await createToolContext({ plugins: [[LocalBashTools, { executor: { cwd } }]] })
  cleanups.push(() => t.dispose())
  t.tools.register(
    defineTool({
      name: 'shout',
      description: 'Upper-cases a word.',
      parameters: { word: { type: 'string', required: true } },
      concurrencySafe: true,
      execute: ({ word }) => word.toUpperCase(),
    }),
  )
  const served = await serveToolsHttp(t.ctx, token === undefined ? {} : { token })
  cleanups.push(() => served.close())
  return { t, served, cwd }
}

describe('serving a registry over MCP', () => {
  for (const mode of ['legacy', 'auto'] as const) {
    it(`answers the official SDK client (${mode}): tools/list from schemas(), calls through execute, no hint derived from concurrencySafe`, async () => {
      const { served } = await servedRegistry()
      const client = new Client({ name: 'sdk-client', version: '1.0.0' }, { versionNegotiation: { mode } })
      await client.connect(new StreamableHTTPClientTransport(new URL(served.url)))
      cleanups.push(() => client.close())
      expect(client.getProtocolEra()).toBe(mode === 'legacy' ? 'legacy' : 'modern')
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name).sort()).toEqual(['bash', 'bash_kill', 'bash_output', 'shout'])
      // concurrencySafe is a scheduling fact, not a promise that the tool changes nothing: no readOnlyHint from it.
      expect(tools.find((tool) => tool.name === 'shout')?.annotations).toBeUndefined()
      expect(tools.find((tool) => tool.name === 'bash')?.annotations?.readOnlyHint).not.toBe(true)
      const shout = await client.callTool({ name: 'shout', arguments: { word: 'hey' } })
      expect(shout.content).toEqual([{ type: 'text', text: 'HEY' }])
      const bad = await client.callTool({ name: 'shout', arguments: { word: 3 } })
      expect(bad.isError).toBe(true)
      expect(bad._meta?.['dsh/error']).toEqual({ name: 'ToolArgsError', code: 'INVALID_ARGS' })
    })
  }

  it('sends list_changed when the registry changes, and denies an ask the client cannot answer (no elicitation), saying so', async () => {
    const t = await createToolContext()
    cleanups.push(() => t.dispose())
    t.tools.on('tools/pre-execute', () => ({ kind: 'ask', reason: 'always ask' }))
    const { server, dispose } = createToolServer(t.ctx)
    cleanups.push(dispose)
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await server.connect(serverSide)
    const client = new Client({ name: 'sdk-client', version: '1.0.0' })
    let changes = 0
    client.setNotificationHandler('notifications/tools/list_changed', () => void (changes += 1))
    await client.connect(clientSide)
    cleanups.push(() => client.close())
    t.tools.register(defineTool({ name: 'late', description: 'Registered after connect.', parameters: {}, execute: () => 'ok' }))
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(changes).toBeGreaterThanOrEqual(1)
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['late'])
    const asked = await client.callTool({ name: 'late', arguments: {} })
    expect(asked.isError).toBe(true)
    expect(asked._meta?.['dsh/error']).toEqual({ name: 'ToolDeniedError', code: 'APPROVAL_UNAVAILABLE' })
    expect(asked.content).toEqual([{ type: 'text', text: expect.stringContaining('did not declare the elicitation capability') }])
  })

  it('refuses a request without the bearer token, or from a foreign origin', async () => {
    const { served } = await servedRegistry('t0ken')
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
    expect((await fetch(served.url, { method: 'POST', headers, body })).status).toBe(401)
    const foreign = await fetch(served.url, { method: 'POST', headers: { ...headers, authorization: 'Bearer t0ken', origin: 'https://evil.example' }, body })
    expect(foreign.status).toBe(403)
  })

  it('round trip: our client plugin against our server in front of a registry with the bash tool', async () => {
    const { served } = await servedRegistry('t0ken')
    const client = await createToolContext()
    cleanups.push(() => client.dispose())
    await client.load(mcpServer, { id: 'remote', url: served.url, headers: { Authorization: 'Bearer t0ken' }, protocol: 'legacy', trust: true, tools: { bash: { approval: 'allow' } } })
    const status = await whenMcpServerReady(client.ctx, 'remote')
    expect(status.state).toBe('ready')
    // shout is concurrencySafe on the serving side but declares no readOnlyHint: nothing tells this client it is.
    expect(client.tools.executionMode({ name: 'mcp__remote__shout' })).toBe('serial')
    const result = await client.tools.execute({ callId: 'b', name: 'mcp__remote__bash', arguments: { command: 'echo round trip', description: 'echo' } })
    expect(result.isError).toBe(false)
    expect(result.content).toEqual([{ type: 'text', text: 'round trip' }])
  })
})

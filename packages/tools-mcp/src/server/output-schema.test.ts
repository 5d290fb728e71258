import { defineTool } from '@dsh/tools-registry'
import { createToolContext, type ToolTestContext } from '@dsh/tools-testing'
import { Client, InMemoryTransport } from '@modelcontextprotocol/client'
import { afterEach, describe, expect, it } from 'vitest'
import { mcpServer, whenMcpServerReady } from '../index.js'
import { createToolServer, serveToolsHttp } from './index.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const statsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { words: { type: 'integer', required: true }, longest: { type: 'string' } },
} as const

/** A registry with an object-output tool, a string-output tool, a plain tool and a raw tool that breaks its own outputSchema. */
async function registry(): Promise<ToolTestContext> {
  const t = await createToolContext()
  cleanups.push(() => t.dispose())
  t.tools.register(
    defineTool({
      name: 'stats',
      description: 'Counts the words of a text.',
      parameters: { text: { type: 'string', required: true } },
      output: {
        schema: statsSchema,
        render: (_args, value) => `${value.words} words`,
      },
      execute: ({ text }) => {
        const words = text.split(/\s+/).filter((word) => word !== '')
        return { words: words.length, longest: [...words].sort((a, b) => b.length - a.length)[0] ?? '' }
      },
    }),
  )
  t.tools.register(
    defineTool({
      name: 'shout',
      description: 'Upper-cases a word.',
      parameters: { word: { type: 'string', required: true } },
      output: { schema: { type: 'string' }, render: (_args, value) => value },
      execute: ({ word }) => word.toUpperCase(),
    }),
  )
  t.tools.register(defineTool({ name: 'plain', description: 'Says ok.', parameters: {}, execute: () => 'ok' }))
  t.tools.register({
    name: 'liar',
    description: 'Declares a count but returns a string for it.',
    parameters: { type: 'object', properties: {} },
    outputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
    execute: async () => ({ content: [{ type: 'text', text: 'many' }], structuredContent: { count: 'many' } }),
  })
  return t
}

async function sdkClient(t: ToolTestContext): Promise<Client> {
  const { server, dispose } = createToolServer(t.ctx)
  cleanups.push(dispose)
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: 'sdk-client', version: '1.0.0' })
  await client.connect(clientSide)
  cleanups.push(() => client.close())
  return client
}

describe('serving output schemas over MCP', () => {
  it('the official SDK client sees outputSchema for an object output only, and structuredContent that validates against it', async () => {
    const t = await registry()
    const client = await sdkClient(t)
    const { tools } = await client.listTools()
    const byName = new Map(tools.map((tool) => [tool.name, tool]))
    expect(byName.get('stats')?.outputSchema).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: { words: { type: 'integer' }, longest: { type: 'string' } },
      required: ['words'],
    })
    expect(byName.get('stats')?.outputSchema).toEqual(t.tools.outputSchema('stats'))
    // A string output is not an object: no outputSchema, and its value travels as the rendered text only.
    expect(byName.get('shout')).not.toHaveProperty('outputSchema')
    expect(byName.get('plain')).not.toHaveProperty('outputSchema')
    // The model-facing schemas are untouched by it.
    for (const schema of t.tools.schemas()) expect(Object.keys(schema).sort()).toEqual(['description', 'name', 'parameters'])

    // The SDK validates structuredContent against the listed outputSchema (it throws when it does not match).
    const stats = await client.callTool({ name: 'stats', arguments: { text: 'a quick brown fox' } })
    expect(stats.isError).toBeFalsy()
    expect(stats.structuredContent).toEqual({ words: 4, longest: 'quick' })
    expect(stats.content).toEqual([{ type: 'text', text: '4 words' }])
    const shout = await client.callTool({ name: 'shout', arguments: { word: 'hey' } })
    expect(shout.content).toEqual([{ type: 'text', text: 'HEY' }])
    expect(shout).not.toHaveProperty('structuredContent')
    // And it does check: a tool that breaks its listed outputSchema is not a success for the SDK client.
    const liar = await client.callTool({ name: 'liar', arguments: {} }).then(
      (result) => result,
      (error: unknown) => error,
    )
    expect(liar instanceof Error || (liar as { isError?: unknown }).isError === true).toBe(true)
  })

  it('a failed call of a tool with an outputSchema is an error result without structuredContent', async () => {
    const t = await registry()
    const client = await sdkClient(t)
    await client.listTools()
    const bad = await client.callTool({ name: 'stats', arguments: { text: 3 } })
    expect(bad.isError).toBe(true)
    expect(bad).not.toHaveProperty('structuredContent')
    expect(bad._meta?.['dsh/error']).toEqual({ name: 'ToolArgsError', code: 'INVALID_ARGS' })
  })

  it('a successful result whose structuredContent a post-execute listener dropped is reported as INVALID_TOOL_OUTPUT, not as an unchecked success', async () => {
    const t = await registry()
    t.tools.on('tools/post-execute', () => ({ kind: 'accept', structuredContent: undefined }))
    const client = await sdkClient(t)
    await client.listTools()
    const dropped = await client.callTool({ name: 'stats', arguments: { text: 'one two' } })
    expect(dropped.isError).toBe(true)
    expect(dropped._meta?.['dsh/error']).toEqual({ name: 'ToolOutputError', code: 'INVALID_TOOL_OUTPUT' })
    expect(dropped.content).toContainEqual({ type: 'text', text: '2 words' })
  })

  it('our client against our server: structuredContent is validated against the served outputSchema, and carried', async () => {
    const t = await registry()
    const served = await serveToolsHttp(t.ctx)
    cleanups.push(() => served.close())
    const client = await createToolContext()
    cleanups.push(() => client.dispose())
    // Tools not announced read-only ask before they run; these two are allowed outright.
    await client.load(mcpServer, { id: 'remote', url: served.url, protocol: 'legacy', trust: true, tools: { stats: { approval: 'allow' }, liar: { approval: 'allow' } } })
    expect((await whenMcpServerReady(client.ctx, 'remote')).state).toBe('ready')
    // The client registers the server's outputSchema with the tool, so this registry could serve it again.
    expect(client.tools.outputSchema('mcp__remote__stats')).toEqual(t.tools.outputSchema('stats'))
    expect(client.tools.outputSchema('mcp__remote__shout')).toBeUndefined()

    const stats = await client.tools.execute({ callId: 's', name: 'mcp__remote__stats', arguments: { text: 'to be or not' } })
    expect(stats.isError).toBe(false)
    expect(stats.structuredContent).toEqual({ words: 4, longest: 'not' })
    const liar = await client.tools.execute({ callId: 'l', name: 'mcp__remote__liar', arguments: {} })
    expect(liar.isError).toBe(true)
    expect(liar.error?.code).toBe('MCP_INVALID_OUTPUT')
    expect(liar).not.toHaveProperty('structuredContent')
  })
})

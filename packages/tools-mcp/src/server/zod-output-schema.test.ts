// A zod `output.schema` (defineTool of @dsh/tools-schema, through @dsh/tools-registry) served over MCP: the tool is
// listed with the outputSchema zod's JSON Schema gives, our client registers it with that schema, and checks every
// structuredContent against it. zod is not a dependency of this package: the test uses the copy the MCP SDK ships,
// typed with the SDK's own `StandardSchemaWithJSON`.
import { createRequire } from 'node:module'
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server'
import { defineTool } from '@dsh/tools-registry'
import { createToolContext, type ToolTestContext } from '@dsh/tools-testing'
import { afterEach, describe, expect, it } from 'vitest'
import { mcpServer, whenMcpServerReady } from '../index.js'
import { serveToolsHttp } from './index.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** The part of zod 4 this test uses. */
interface Zod {
  object(shape: Record<string, unknown>): { strict(): unknown }
  number(): { int(): { min(value: number): unknown } }
  string(): { max(length: number): unknown }
}
const sdkRequire = createRequire(createRequire(import.meta.url).resolve('@modelcontextprotocol/server'))
const z = sdkRequire('zod') as Zod

interface Stats {
  words: number
  longest: string
}
const statsSchema = z.object({ words: z.number().int().min(0), longest: z.string().max(12) }).strict() as StandardSchemaWithJSON<Stats, Stats>

/** A registry with the zod-output tool, served over HTTP; `tamper` makes a post-execute listener break the value. */
async function servedRegistry(): Promise<{ t: ToolTestContext; url: string; tamper: () => void }> {
  const t = await createToolContext()
  cleanups.push(() => t.dispose())
  t.tools.register(
    defineTool({
      name: 'stats',
      description: 'Counts the words of a text.',
      parameters: { text: { type: 'string', required: true } },
      output: { schema: statsSchema, render: (_args, value) => `${value.words} words, longest ${value.longest}` },
      execute: ({ text }) => {
        const words = text.split(/\s+/).filter((word) => word !== '')
        return { words: words.length, longest: [...words].sort((a, b) => b.length - a.length)[0] ?? '' }
      },
    }),
  )
  let tampering = false
  t.ctx.on('tools/post-execute', (_exec, result, next) => (tampering && !result.isError ? { kind: 'accept', structuredContent: { words: -1, longest: 'x' } } : next()))
  const http = await serveToolsHttp(t.ctx)
  cleanups.push(() => http.close())
  return { t, url: http.url, tamper: () => void (tampering = true) }
}

describe('a zod output.schema served over MCP', () => {
  for (const protocol of ['legacy', 'modern'] as const) {
    it(`is the outputSchema our client (${protocol}) registers and checks structuredContent against`, async () => {
      const { t, url, tamper } = await servedRegistry()
      const served = t.tools.outputSchema('stats')
      expect(served).toMatchObject({
        type: 'object',
        properties: { words: { type: 'integer', minimum: 0 }, longest: { type: 'string', maxLength: 12 } },
        required: ['words', 'longest'],
        additionalProperties: false,
      })

      const client = await createToolContext()
      cleanups.push(() => client.dispose())
      await client.load(mcpServer, { id: 'remote', url, protocol, tools: { stats: { approval: 'allow' } } })
      expect((await whenMcpServerReady(client.ctx, 'remote')).state).toBe('ready')
      expect(client.tools.outputSchema('mcp__remote__stats')).toEqual(served)

      const good = await client.tools.execute({ callId: 'g', name: 'mcp__remote__stats', arguments: { text: 'a quick brown fox' } })
      expect(good.isError).toBe(false)
      expect(good.structuredContent).toEqual({ words: 4, longest: 'quick' })
      expect(good.content).toEqual([{ type: 'text', text: '4 words, longest quick' }])

      // The served side now sends a value that breaks zod's constraints: our client refuses it.
      tamper()
      const bad = await client.tools.execute({ callId: 'b', name: 'mcp__remote__stats', arguments: { text: 'a quick brown fox' } })
      expect(bad.error).toEqual({ name: 'McpCallError', code: 'MCP_INVALID_OUTPUT' })
      expect(bad).not.toHaveProperty('structuredContent')
    })
  }
})

import { ToolRegistry } from '@dsh/tools-registry'
import { defineTool } from '@dsh/tools-schema'
import { createTestAgent } from '@dsh/tools-testing'
import { Context } from 'cordis'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { CodeMode } from './code-mode.js'
import { renderSdk, schemaType, toolIdentifier, type SdkSource } from './sdk.js'

/** Parse errors of `text` as a TypeScript declaration file (none means the SDK is valid TypeScript). */
function parseErrors(text: string): string[] {
  const file = ts.createSourceFile('sdk.d.ts', text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS)
  return ((file as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics ?? []).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
}

const source = (name: string, description: string, parameters: Record<string, unknown>, outputSchema?: Record<string, unknown>): SdkSource => ({
  schema: { name, description, parameters: { type: 'object', ...parameters } },
  ...(outputSchema === undefined ? {} : { outputSchema: outputSchema as SdkSource['outputSchema'] }),
})

describe('the SDK a program is written against', () => {
  const tools: SdkSource[] = [
    source('write_file', 'Write a file.\nIt is replaced when it exists.', {
      properties: { path: { type: 'string', description: 'Where */ it goes' }, content: { type: 'string' }, mode: { enum: ['overwrite', 'append'] } },
      required: ['path', 'content'],
    }),
    source('read_file', 'Read a file.', { properties: { path: { type: 'string' }, offset: { type: 'integer' } }, required: ['path'] }, {
      type: 'object',
      properties: { content: { type: 'string' }, lines: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['content', 'lines'],
      additionalProperties: false,
    }),
    source('mcp__memory__read-graph', 'Reads the graph (an MCP tool).', { properties: {} }),
    source('search', 'Search.', { properties: { query: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] }, limit: { type: ['integer', 'null'] } } }),
  ]

  it('is deterministic, sorted by tool name, valid TypeScript, with JSDoc from the descriptions (golden file)', async () => {
    const first = renderSdk(tools, { compactAfter: 40 })
    const again = renderSdk([...tools].reverse(), { compactAfter: 40 })
    expect(again.text).toBe(first.text)
    expect(first.tools).toEqual([
      { identifier: 'mcp__memory__read_graph', tool: 'mcp__memory__read-graph' },
      { identifier: 'read_file', tool: 'read_file' },
      { identifier: 'search', tool: 'search' },
      { identifier: 'write_file', tool: 'write_file' },
    ])
    expect(parseErrors(first.text)).toEqual([])
    expect(first.text).toContain('/** Where *\\/ it goes */')
    expect(first.text).toContain('(tool: mcp__memory__read-graph)')
    await expect(first.text).toMatchFileSnapshot('./__snapshots__/sdk-golden.txt')
  })

  it('leaves out both tools of a pair that map to one identifier, naming them', () => {
    const sdk = renderSdk([source('a-b', 'One.', { properties: {} }), source('a_b', 'Two.', { properties: {} }), source('c', 'Three.', { properties: {} })], { compactAfter: 40 })
    expect(sdk.tools.map((tool) => tool.tool)).toEqual(['c'])
    expect(sdk.omitted).toEqual([
      { tool: 'a-b', why: 'its name and "a_b" both become the identifier a_b' },
      { tool: 'a_b', why: 'its name and "a-b" both become the identifier a_b' },
    ])
    expect(sdk.text).toContain('// Not callable from a program: a-b (its name and "a_b" both become the identifier a_b).')
    expect(parseErrors(sdk.text)).toEqual([])
  })

  it('maps names that cannot be identifiers, and dangerous ones, to safe identifiers', () => {
    expect(['read-file', '9lives', 'then', 'constructor', '__proto__', '$search', 'a.b/c', 'class'].map(toolIdentifier)).toEqual([
      'read_file',
      '_9lives',
      'then_',
      'constructor_',
      '__proto___',
      '_$search',
      'a_b_c',
      'class_',
    ])
  })

  it('past compactAfter, lists names with one line each and offers $search / $describe', () => {
    const sdk = renderSdk(tools, { compactAfter: 2 })
    expect(sdk.compact).toBe(true)
    expect(sdk.text).toContain('$search(query: string)')
    expect(sdk.text).toContain('/** Write a file. (see $describe("write_file")) */\n  write_file(args: object): Promise<unknown>')
    expect(sdk.text).not.toContain('It is replaced')
    expect(parseErrors(sdk.text)).toEqual([])
  })

  it('types every schema it meets, and falls back to unknown for what it does not know', () => {
    expect(schemaType({ type: 'string' })).toBe('string')
    expect(schemaType({ const: 3 })).toBe('3')
    expect(schemaType({ type: 'array', items: { enum: ['a', 'b'] } })).toBe('Array<"a" | "b">')
    expect(schemaType({ type: 'object', additionalProperties: { type: 'number' } })).toBe('{\n  [key: string]: number\n}')
    expect(schemaType({ $ref: '#/x' })).toBe('unknown')
    expect(schemaType('nonsense')).toBe('unknown')
    let deep: Record<string, unknown> = { type: 'string' }
    for (let level = 0; level < 20; level++) deep = { type: 'array', items: deep }
    expect(schemaType(deep)).toContain('unknown')
  })

  it("is the agent's nested view: run_code never, tools its restrictions hide never, tools a direct-only restriction hides yes", async () => {
    const ctx = new Context()
    await ctx.plugin(ToolRegistry)
    const fiber = await ctx.plugin(CodeMode)
    for (const name of ['read_file', 'write_file', 'delete_file']) {
      ctx.tools.register(defineTool({ name, description: `The ${name} tool.`, parameters: { path: { type: 'string', required: true } }, execute: () => 'ok' }))
    }
    const agent = createTestAgent('coder')
    ctx.tools.scope(agent).restrict({ deny: ['delete_file'] })
    ctx.codeMode.setMode(agent, 'code')
    expect(ctx.tools.schemas(agent).map((schema) => schema.name)).toEqual(['run_code'])
    expect(ctx.codeMode.sdk(agent).tools.map((tool) => tool.tool)).toEqual(['read_file', 'write_file'])
    expect(ctx.codeMode.sdk().tools.map((tool) => tool.tool)).toEqual(['delete_file', 'read_file', 'write_file'])
    await fiber.dispose()
  })
})

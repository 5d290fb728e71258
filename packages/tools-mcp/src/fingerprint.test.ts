import { createHash } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fingerprintTool } from './fingerprint.js'
import type { McpToolDefinition } from './session-types.js'

/** The canonical form the fingerprint is defined by, written recursively as the spec reads (a test oracle). */
function oracle(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(oracle).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined)
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${oracle(item)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

const definition = (inputSchema: unknown, extra: Record<string, unknown> = {}): McpToolDefinition =>
  ({ name: 'tool', description: 'A tool.', inputSchema, ...extra }) as McpToolDefinition

describe('tool fingerprints', () => {
  it('keep the value they had: a fingerprint pinned before stays valid', () => {
    // Computed by the first (recursive) implementation; `pinned` configs in the wild hold such values.
    const tool = definition({ type: 'object', properties: { path: { type: 'string' }, depth: { type: 'integer' } }, required: ['path'] }, { annotations: { readOnlyHint: true } })
    expect(fingerprintTool(tool)).toBe('sha256:00b0a296851e00c29e6ab715cf0f492ea533b276184c1bc294105ab46dbabfff')
  })

  it('hash a definition nested 100,000 levels deep instead of overflowing the stack (a RangeError that failed the whole listing)', () => {
    let schema: Record<string, unknown> = { type: 'string' }
    for (let depth = 0; depth < 100_000; depth += 1) schema = { type: 'array', items: schema }
    const tool = definition({ type: 'object', properties: { deep: schema } })
    expect(fingerprintTool(tool)).toMatch(/^sha256:[0-9a-f]{64}$/)
    let nested: unknown[] = []
    for (let depth = 0; depth < 100_000; depth += 1) nested = [nested]
    expect(fingerprintTool(definition({ type: 'object', examples: nested }))).toMatch(/^sha256:[0-9a-f]{64}$/)
  })

  it('are the canonical JSON the recursive definition gives, for any JSON (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.option(fc.string(), { nil: undefined }), (schema, title) => {
        const tool = definition(schema, { title })
        const { name, description, inputSchema, outputSchema, annotations, execution } = tool
        const expected = oracle({ name, title, description, inputSchema, outputSchema, annotations, execution })
        expect(fingerprintTool(tool)).toBe(`sha256:${createHash('sha256').update(expected).digest('hex')}`)
      }),
      { numRuns: 300 },
    )
  })

  it('change with every field this client reads, and not with the order of keys', () => {
    const base = definition({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } } })
    const reordered = definition({ properties: { b: { type: 'number' }, a: { type: 'string' } }, type: 'object' })
    expect(fingerprintTool(reordered)).toBe(fingerprintTool(base))
    for (const change of [{ name: 'tool2' }, { title: 'T' }, { description: 'B' }, { outputSchema: { type: 'object' } }, { annotations: { destructiveHint: false } }, { execution: { taskSupport: 'optional' } }]) {
      expect(fingerprintTool({ ...base, ...change } as McpToolDefinition)).not.toBe(fingerprintTool(base))
    }
  })

  it('refuse a cyclic definition with a TypeError instead of looping', () => {
    const schema: Record<string, unknown> = { type: 'object' }
    schema.properties = { self: schema }
    expect(() => fingerprintTool(definition(schema))).toThrow(TypeError)
    const list: unknown[] = [1]
    list.push(list)
    expect(() => fingerprintTool(definition({ type: 'object', examples: list }))).toThrow(/cycle/)
    // The same object twice, side by side, is no cycle.
    const shared = { type: 'string' }
    expect(fingerprintTool(definition({ type: 'object', properties: { a: shared, b: shared } }))).toBe(
      fingerprintTool(definition({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } })),
    )
  })
})

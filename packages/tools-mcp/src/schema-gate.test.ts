import { describe, expect, it } from 'vitest'
import { gateInputSchema } from './schema-gate.js'

const bounds = { maxDepth: 64, maxNodes: 10_000 }

function deep(levels: number): Record<string, unknown> {
  let node: Record<string, unknown> = { type: 'string' }
  for (let index = 0; index < levels; index += 1) node = { type: 'object', properties: { x: node } }
  return node
}

describe('the inputSchema gate', () => {
  it('passes a plain object schema unchanged', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } }
    expect(gateInputSchema(schema, 'transform', bounds)).toEqual({ schema, findings: [], transformed: false })
  })

  it('rejects a remote $ref under every policy but pass, and never fetches it', () => {
    const schema = { type: 'object', properties: { a: { $ref: 'https://example.invalid/schema.json' } } }
    for (const policy of ['reject', 'transform'] as const) {
      const result = gateInputSchema(schema, policy, bounds)
      expect(result.schema).toBeUndefined()
      expect(result.findings.map((finding) => finding.code)).toEqual(['remote-ref'])
      expect(result.findings[0]?.path).toBe('/properties/a/$ref')
    }
    expect(gateInputSchema(schema, 'pass', bounds).schema).toBe(schema)
  })

  it('rejects a schema nested deeper than the bound, whatever the policy', () => {
    for (const policy of ['reject', 'transform', 'pass'] as const) {
      const result = gateInputSchema(deep(200), policy, bounds)
      expect(result.schema).toBeUndefined()
      expect(result.findings[0]?.code).toBe('too-deep')
    }
  })

  it('rejects a schema with more nodes than the bound', () => {
    const properties = Object.fromEntries(Array.from({ length: 200 }, (_, index) => [`p${index}`, { type: 'string' }]))
    const result = gateInputSchema({ type: 'object', properties }, 'transform', { maxDepth: 64, maxNodes: 100 })
    expect(result.findings[0]?.code).toBe('too-many-nodes')
  })

  it('inlines local refs under transform (dropping $defs) and records the finding; reject drops the tool', () => {
    const schema = { type: 'object', $defs: { name: { type: 'string', minLength: 1 } }, properties: { first: { $ref: '#/$defs/name' }, last: { $ref: '#/$defs/name', description: 'family' } } }
    const result = gateInputSchema(schema, 'transform', bounds)
    expect(result.transformed).toBe(true)
    expect(result.schema).toEqual({
      type: 'object',
      properties: { first: { type: 'string', minLength: 1 }, last: { allOf: [{ type: 'string', minLength: 1 }, { description: 'family' }] } },
    })
    expect(result.findings.map((finding) => finding.code)).toEqual(['local-ref'])
    expect(gateInputSchema(schema, 'reject', bounds).schema).toBeUndefined()
  })

  it('rejects recursive and unresolved local refs, which cannot be inlined', () => {
    const recursive = { type: 'object', $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } } }, properties: { root: { $ref: '#/$defs/node' } } }
    expect(gateInputSchema(recursive, 'transform', bounds).findings.map((finding) => finding.code)).toContain('recursive-ref')
    const missing = { type: 'object', properties: { a: { $ref: '#/$defs/nope' } } }
    expect(gateInputSchema(missing, 'transform', bounds).findings.map((finding) => finding.code)).toEqual(['unresolved-ref'])
  })

  it('accepts the draft-07 dialect the reference servers declare, keeps 2020-12 keywords, and rejects an unknown dialect', () => {
    const draft7 = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: {} }
    expect(gateInputSchema(draft7, 'transform', bounds).findings).toEqual([])
    const tuple = { type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }] } } }
    expect(gateInputSchema(tuple, 'transform', bounds).schema).toBe(tuple)
    const unknown = { $schema: 'https://example.invalid/my-dialect', type: 'object' }
    expect(gateInputSchema(unknown, 'transform', bounds).findings.map((finding) => finding.code)).toEqual(['dialect'])
  })

  it('adds the missing type: object under transform, and drops a non-object schema', () => {
    expect(gateInputSchema({ properties: { a: { type: 'string' } } }, 'transform', bounds).schema).toEqual({ type: 'object', properties: { a: { type: 'string' } } })
    expect(gateInputSchema({ type: 'string' }, 'transform', bounds).schema).toBeUndefined()
    expect(gateInputSchema('nope', 'pass', bounds).schema).toBeUndefined()
  })
})

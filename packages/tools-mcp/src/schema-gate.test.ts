import { describe, expect, it } from 'vitest'
import { gateInputSchema, gateOutputSchema } from './schema-gate.js'

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

/** Definitions d0 … d(n-1), each using the next twice: a few hundred bytes that expand to 2^n copies of the last. */
function refDag(levels: number, key: '$ref' | '$dynamicRef' = '$ref'): Record<string, unknown> {
  const $defs: Record<string, unknown> = { [`d${levels}`]: { type: 'string', minLength: 1 } }
  for (let index = 0; index < levels; index += 1) $defs[`d${index}`] = { allOf: [{ [key]: `#/$defs/d${index + 1}` }, { [key]: `#/$defs/d${index + 1}` }] }
  return { type: 'object', $defs, properties: { a: { $ref: '#/$defs/d0' } } }
}

describe('the gate measures schemas after $ref expansion', () => {
  it('refuses a small $ref DAG that expands past maxNodes, under every policy, without expanding it', () => {
    const schema = refDag(40) // 41 definitions, 2 KB; expanded, 2^40 copies
    for (const policy of ['reject', 'transform', 'pass'] as const) {
      const started = performance.now()
      const result = gateInputSchema(schema, policy, { maxDepth: 1_000, maxNodes: 10_000 })
      // Measured: about 5 ms (the walk stops at the bound). Expanding it whole, as the gate did, never ends.
      expect(performance.now() - started).toBeLessThan(2_000)
      expect(result.schema).toBeUndefined()
      expect(result.findings).toHaveLength(1)
      expect(result.findings[0]).toMatchObject({ code: 'too-many-nodes', repairable: false })
      expect(result.findings[0]?.message).toContain('after $ref expansion')
    }
    // With the default bounds the same DAG is refused by its expanded depth (each level nests two deeper) or size.
    expect(gateInputSchema(schema, 'pass', bounds).findings[0]?.code).toBe('too-deep')
    expect(gateInputSchema(refDag(20), 'pass', bounds).findings[0]?.code).toBe('too-many-nodes')
    // The same shape through $dynamicRef pointers is expanded (and bounded) the same way.
    expect(gateInputSchema(refDag(20, '$dynamicRef'), 'pass', bounds).findings[0]?.code).toBe('too-many-nodes')
  })

  it('counts every use of a definition: a DAG that fits the bound expanded is inlined in full', () => {
    const result = gateInputSchema(refDag(8), 'transform', bounds) // 2^8 leaves, about 1,300 nodes
    expect(result.transformed).toBe(true)
    expect(JSON.stringify(result.schema).match(/minLength/g)).toHaveLength(256)
    expect(gateInputSchema(refDag(8), 'transform', { maxDepth: 64, maxNodes: 1_000 }).findings[0]?.code).toBe('too-many-nodes')
  })

  it('refuses a chain of definitions whose expanded depth passes maxDepth though each one is shallow', () => {
    const $defs: Record<string, unknown> = { d40: { type: 'string' } }
    for (let index = 0; index < 40; index += 1) $defs[`d${index}`] = { type: 'object', properties: { next: { $ref: `#/$defs/d${index + 1}` } } }
    const schema = { type: 'object', $defs, properties: { a: { $ref: '#/$defs/d0' } } }
    for (const policy of ['reject', 'transform', 'pass'] as const) {
      const result = gateInputSchema(schema, policy, bounds)
      expect(result.schema).toBeUndefined()
      expect(result.findings[0]).toMatchObject({ code: 'too-deep' })
      expect(result.findings[0]?.path.startsWith('/properties/a/$ref/properties/next/$ref')).toBe(true)
    }
  })

  it('reports a malformed percent-encoding or a non-string $ref as a finding, never a URIError', () => {
    const malformed = { type: 'object', $defs: { ok: { type: 'string' } }, properties: { a: { $ref: '#/$defs/%E0%A4%A' }, b: { $ref: 42 } } }
    for (const policy of ['reject', 'transform', 'pass'] as const) {
      const result = gateInputSchema(malformed, policy, bounds)
      expect(result.findings.map((finding) => finding.code)).toEqual(['invalid-ref', 'invalid-ref'])
      expect(result.findings[0]?.message).toContain('malformed percent-encoding')
    }
    expect(gateInputSchema(malformed, 'transform', bounds).schema).toBeUndefined()
  })

  it('walks a schema nested 100,000 levels without recursion', () => {
    expect(gateInputSchema({ type: 'object', properties: { a: deep(100_000) } }, 'transform', { maxDepth: 300_000, maxNodes: 1_000_000 }).schema).toBeDefined()
    const withRef = { type: 'object', $defs: { leaf: { type: 'string' } }, properties: { a: deep(50_000) } }
    ;(withRef.properties.a as { properties: Record<string, unknown> }).properties.leaf = { $ref: '#/$defs/leaf' }
    const result = gateInputSchema(withRef, 'transform', { maxDepth: 300_000, maxNodes: 1_000_000 })
    expect(result.findings.map((finding) => finding.code)).toEqual(['local-ref'])
  })

  it('quotes at most a bounded part of a megabyte $ref in its finding', () => {
    const result = gateInputSchema({ type: 'object', properties: { a: { $ref: `https://example.invalid/${'x'.repeat(1_000_000)}` } } }, 'transform', bounds)
    expect(result.findings[0]?.code).toBe('remote-ref')
    expect(result.findings[0]?.message.length).toBeLessThan(400)
  })

  it('treats $ref inside const, enum and examples as data, and keeps a property named $ref', () => {
    const schema = { type: 'object', properties: { $ref: { type: 'string' }, a: { const: { $ref: 'https://example.invalid/x' }, examples: [{ $ref: '#/nowhere' }] } } }
    expect(gateInputSchema(schema, 'transform', bounds)).toEqual({ schema, findings: [], transformed: false })
  })
})

describe('the outputSchema gate', () => {
  it('inlines refs and drops $defs and identifiers in the schema results are checked against', () => {
    const schema = { $id: 'https://example.invalid/out', type: 'object', $defs: { n: { $id: 'n', type: 'number' } }, properties: { a: { $ref: '#/$defs/n' } }, required: ['a'] }
    const result = gateOutputSchema(schema, 'transform', bounds)
    expect(result.check).toEqual({ type: 'object', properties: { a: { type: 'number' } }, required: ['a'] })
    expect(result.schema).toEqual(result.check)
    expect(result.findings.map((finding) => [finding.code, finding.source])).toEqual([['local-ref', 'outputSchema']])
    expect(gateOutputSchema(schema, 'pass', bounds).schema).toBe(schema)
    expect(gateOutputSchema(schema, 'reject', bounds).schema).toBeUndefined()
  })

  it('leaves out (and reports) a pattern the linear-time engine cannot run, and keeps the ones it can', () => {
    const schema = { type: 'object', properties: { a: { type: 'string', pattern: '^(?=x)' }, b: { type: 'string', pattern: '^(a+)+$' } } }
    const result = gateOutputSchema(schema, 'transform', bounds)
    expect(result.findings.map((finding) => [finding.code, finding.path, finding.repairable])).toEqual([['pattern', '/properties/a/pattern', true]])
    expect(result.check).toEqual({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'string', pattern: '^(a+)+$' } } })
    expect(gateOutputSchema(schema, 'reject', bounds).check).toBeUndefined()
    const pass = gateOutputSchema(schema, 'pass', bounds)
    expect(pass.schema).toBe(schema)
    expect(pass.check).toEqual(result.check)
    const properties = { type: 'object', patternProperties: { '^(?!x)': { type: 'string' } } }
    expect(gateOutputSchema(properties, 'transform', bounds).check).toBeUndefined()
  })

  it('drops a tool whose outputSchema cannot be expanded, under every policy, and bounds it like the input', () => {
    const recursive = { type: 'object', $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } } }, properties: { root: { $ref: '#/$defs/node' } } }
    for (const policy of ['reject', 'transform', 'pass'] as const) {
      expect(gateOutputSchema(recursive, policy, bounds).check).toBeUndefined()
      expect(gateOutputSchema(refDag(20), policy, bounds).findings[0]?.code).toBe('too-many-nodes')
      expect(gateOutputSchema('nope', policy, bounds).findings[0]?.code).toBe('not-object')
    }
    // Not only object schemas: the 2026-07-28 protocol allows any.
    expect(gateOutputSchema({ type: 'array', items: { type: 'string' } }, 'transform', bounds).check).toEqual({ type: 'array', items: { type: 'string' } })
  })
})

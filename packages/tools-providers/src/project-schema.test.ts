import { describe, expect, it } from 'vitest'
import { lintToolSchemas } from './index.js'
import { MAX_PROJECTION_DEPTH, projectSchema } from './project-schema.js'
import { removeOmittedNulls } from './remove-omitted-nulls.js'
import { readFile } from './test-fixtures.js'

const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra })
const keywords = (schema: unknown, profile: Parameters<typeof projectSchema>[1]) => projectSchema(schema, profile, 't').issues.map((issue) => `${issue.kind} ${issue.path} ${issue.keyword}`)

describe('projectSchema', () => {
  it('never drops what a strict profile does not know: unknown keywords, refs and boolean schemas are unsupported', () => {
    const schema = object({ a: { $ref: '#/$defs/x' }, b: { type: 'string', format: 'email', contentEncoding: 'base64' }, c: true }, { $defs: { x: { type: 'string' } } })
    for (const profile of ['openai-strict', 'anthropic-strict', 'gemini-legacy'] as const) {
      expect(keywords(schema, profile)).toEqual(expect.arrayContaining(['unsupported a type', 'unsupported a $ref', 'unsupported b contentEncoding', 'unsupported c schema', 'unsupported  $defs']))
    }
  })

  it('the non-strict profiles send the schema unchanged and report nothing', () => {
    const schema = object({ a: { $ref: '#/$defs/x' } }, { $defs: { x: {} } })
    for (const profile of ['openai', 'anthropic'] as const) expect(projectSchema(schema, profile, 't')).toEqual({ schema, issues: [] })
  })

  it('sends a oneOf as anyOf only when its branches are provably disjoint', () => {
    const byType = object({ v: { oneOf: [{ type: 'string' }, { type: 'integer' }] } }, { required: ['v'] })
    expect(projectSchema(byType, 'anthropic-strict', 't').schema['properties']).toEqual({ v: { anyOf: [{ type: 'string' }, { type: 'integer' }] } })
    const overlapping = object({ v: { oneOf: [{ type: 'integer' }, { type: 'number' }] } }, { required: ['v'] })
    expect(keywords(overlapping, 'openai-strict')).toEqual(['unsupported v oneOf'])
    const tagged = (kind: string) => ({ type: 'object', properties: { kind: { type: 'string', const: kind }, n: { type: 'number' } }, required: ['kind'], additionalProperties: false })
    expect(keywords(object({ v: { oneOf: [tagged('a'), tagged('b')] } }, { required: ['v'] }), 'openai-strict')).toEqual([])
    expect(keywords(object({ v: { oneOf: [tagged('a'), tagged('a')] } }, { required: ['v'] }), 'openai-strict')).toEqual(['unsupported v oneOf'])
  })

  it('reports an optional property that accepts null as narrowed under openai-strict', () => {
    expect(keywords(object({ v: { oneOf: [{ type: 'string' }, { type: 'null' }] } }), 'openai-strict')).toEqual(['narrowed v null'])
  })

  it('keeps "__proto__" and "constructor" as ordinary property names in the projection and the inverse mapping', () => {
    const properties = JSON.parse('{"__proto__": {"type": "string"}, "constructor": {"type": "integer"}}') as Record<string, unknown>
    const { schema } = projectSchema(object(properties), 'openai-strict', 't')
    const projected = schema['properties'] as Record<string, unknown>
    expect(Object.keys(projected)).toEqual(['__proto__', 'constructor'])
    expect(Object.getPrototypeOf(projected)).toBe(Object.prototype)
    const value = JSON.parse('{"__proto__": null, "constructor": 3}') as unknown
    const restored = removeOmittedNulls(object(properties), value) as Record<string, unknown>
    expect(Object.keys(restored)).toEqual(['constructor'])
    const kept = removeOmittedNulls(object(properties), JSON.parse('{"__proto__": "x"}')) as Record<string, unknown>
    expect(Object.keys(kept)).toEqual(['__proto__'])
    expect(Object.getPrototypeOf(kept)).toBe(Object.prototype)
  })

  it('gives up on a cyclic or absurdly deep schema with an issue instead of overflowing the stack', () => {
    const cyclic: Record<string, unknown> = { type: 'array' }
    cyclic['items'] = cyclic
    expect(keywords(object({ a: cyclic }), 'openai-strict')).toContain(`unsupported a${'[]'.repeat(MAX_PROJECTION_DEPTH)} depth`)
  })

  it('a top level that is not an object schema is unsupported', () => {
    expect(keywords({ type: 'array' }, 'openai-strict')).toEqual(['unsupported  type'])
    expect(keywords('x', 'gemini-legacy')).toEqual(['unsupported  type'])
  })

  it('the inverse mapping leaves invalid values for the validator and never throws', () => {
    const original = readFile.parameters
    for (const value of [null, 3, 'x', [], { path: null }, { options: 'x', limit: null }, { options: [null] }]) {
      expect(() => removeOmittedNulls(original, value)).not.toThrow()
    }
    expect(removeOmittedNulls(original, { path: null, limit: null })).toEqual({ path: null })
  })
})

describe('lintToolSchemas', () => {
  it('lists every issue of every tool for one profile without building', () => {
    expect(lintToolSchemas([readFile], 'gemini-legacy').map((issue) => issue.message)).toEqual([
      'tool "read_file" loses default at "limit" on gemini-legacy: moved into the description (an annotation: validation is unchanged)',
      "tool \"read_file\" loses additionalProperties at \"options\" on gemini-legacy: Gemini (OpenAPI parameters) is not told that other keys are rejected; only the tool's own argument validation, if it checks them, rejects them",
    ])
    expect(lintToolSchemas([readFile], 'openai')).toEqual([])
  })
})

describe('projectSchema: what strict mode and the OpenAPI subset need spelled out', () => {
  it('openai-strict lists required on every object, also an empty one', () => {
    const { schema } = projectSchema(object({ o: { type: 'object', properties: {}, additionalProperties: false } }, { required: ['o'] }), 'openai-strict', 't')
    expect(schema).toEqual({ type: 'object', properties: { o: { type: 'object', properties: {}, required: [], additionalProperties: false } }, required: ['o'], additionalProperties: false })
  })

  it('gemini-legacy keeps both descriptions when "X or null" merges into one node', () => {
    const schema = object({ v: { description: 'Outer.', oneOf: [{ type: 'string', description: 'Inner.' }, { type: 'null' }] } })
    expect((projectSchema(schema, 'gemini-legacy', 't').schema['properties'] as Record<string, unknown>)['v']).toEqual({ type: 'string', description: 'Outer. Inner.', nullable: true })
  })
})

describe('projectSchema: a raw "T or null" type list', () => {
  const schema = object({ v: { type: ['string', 'null'], maxLength: 3, description: 'Name.' } }, { required: ['v'] })

  it('is sent as anyOf by the strict profiles and as nullable by gemini-legacy', () => {
    expect((projectSchema(schema, 'openai-strict', 't').schema['properties'] as Record<string, unknown>)['v']).toEqual({
      description: 'Name.',
      anyOf: [{ type: 'string', description: '(maxLength: 3)' }, { type: 'null' }],
    })
    expect((projectSchema(schema, 'gemini-legacy', 't').schema['properties'] as Record<string, unknown>)['v']).toEqual({ type: 'string', maxLength: 3, description: 'Name.', nullable: true })
  })

  it('other type lists stay unsupported', () => {
    expect(keywords(object({ v: { type: ['string', 'integer'] } }), 'gemini-legacy')).toEqual(['unsupported v type'])
    expect(keywords(object({ v: { type: ['string', 'null'], enum: ['a', null] } }), 'openai-strict')).toContain('unsupported v type')
  })
})

describe('projectSchema: regressions the ajv property test found', () => {
  it('gemini-legacy: a oneOf of "T or null" and null (which rejects null: it matches both) is not sent as nullable', () => {
    const schema = object({ a: { oneOf: [{ type: ['string', 'null'] }, { type: 'null' }] } })
    expect(keywords(schema, 'gemini-legacy')).toEqual(['unsupported a oneOf'])
  })
})

import { Ajv2020 } from 'ajv/dist/2020.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { selectBranch } from './branch-match.js'
import { isRecord } from './json-equal.js'
import { projectSchema } from './project-schema.js'
import { removeOmittedNulls } from './remove-omitted-nulls.js'
import type { SchemaProfile } from './schema-issue.js'

// The oracle, configured as TOOLCHAIN.md says (own properties only, every error so `required: [""]` counts).
const ajv = new Ajv2020({ strict: false, allErrors: true, ownProperties: true, validateFormats: false })
const validates = (schema: unknown, value: unknown): boolean => ajv.validate(schema as object, value) === true

type Schema = Record<string, unknown>
// No "__proto__": ajv 8.20 does not see it as a property (tools-schema's differential test keeps it out too); the unit
// tests check that the projection and the inverse mapping keep it as an ordinary key.
const names = ['a', 'b', 'kind', 'constructor']

/** Schemas of the shapes the DSL emits, with the value constraints and annotations raw JSON Schema adds. */
const schemaArbitrary = fc.letrec<{ node: Schema; object: Schema }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ type: fc.constant('string') }, { requiredKeys: ['type'] }).chain((base) =>
      fc.record({ minLength: fc.nat(3), maxLength: fc.integer({ min: 3, max: 6 }), enum: fc.uniqueArray(fc.constantFrom('x', 'y', 'zz', ''), { minLength: 1, maxLength: 3 }), default: fc.constant('x') }, { requiredKeys: [] }).map((extra) => ({ ...base, ...extra })),
    ),
    fc.record({ type: fc.constantFrom('number', 'integer'), minimum: fc.integer({ min: -2, max: 2 }), exclusiveMaximum: fc.integer({ min: 3, max: 9 }), multipleOf: fc.constantFrom(1, 2) }, { requiredKeys: ['type'] }),
    fc.constant({ type: 'boolean' }),
    fc.record({ type: fc.constant(['string', 'null']), maxLength: fc.nat(4), description: fc.constant('T or null') }, { requiredKeys: ['type'] }),
    fc.constant({ type: ['null', 'integer'] }),
    fc.constant({ type: 'null' }),
    fc.constant({}),
    fc.record({ type: fc.constant('string'), const: fc.constantFrom('on', 'off') }, { requiredKeys: ['type', 'const'] }),
    tie('object'),
    fc.record({ type: fc.constant('array'), items: tie('node'), minItems: fc.nat(2), uniqueItems: fc.boolean() }, { requiredKeys: ['type', 'items'] }),
    fc.array(tie('node'), { minLength: 2, maxLength: 3 }).map((oneOf) => ({ oneOf })),
    fc.tuple(tie('object'), tie('object')).map(([left, right]) => ({ oneOf: [discriminate(left, 'one'), discriminate(right, 'two')] })),
    tie('node').map((inner) => ({ oneOf: [inner, { type: 'null' }] })),
  ),
  object: fc
    .tuple(fc.uniqueArray(fc.constantFrom(...names), { maxLength: 3 }), fc.array(tie('node'), { minLength: 3, maxLength: 3 }), fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }), fc.boolean())
    .map(([keys, nodes, required, additionalProperties]) => objectSchema(keys, nodes, required, additionalProperties)),
})).node

function objectSchema(keys: string[], nodes: Schema[], required: boolean[], additionalProperties: boolean | undefined): Schema {
  const properties: Schema = {}
  keys.forEach((key, index) => Object.defineProperty(properties, key, { value: nodes[index], enumerable: true, writable: true, configurable: true }))
  const requiredNames = keys.filter((_, index) => required[index])
  return { type: 'object', properties, ...(requiredNames.length > 0 ? { required: requiredNames } : {}), ...(additionalProperties === undefined ? {} : { additionalProperties }) }
}

/** An object branch told apart from its siblings by a required `kind` const. */
function discriminate(object: Schema, kind: string): Schema {
  const properties = { ...(object['properties'] as Schema), kind: { type: 'string', const: kind } }
  const required = [...new Set([...((object['required'] as string[] | undefined) ?? []), 'kind'])]
  return { ...object, properties, required }
}

/** A tool's parameters: an object at the top level, implicitly open (as the DSL emits it). */
const parametersArbitrary = fc
  .tuple(fc.uniqueArray(fc.constantFrom(...names), { maxLength: 3 }), fc.array(schemaArbitrary, { minLength: 3, maxLength: 3 }), fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }))
  .map(([keys, nodes, required]) => objectSchema(keys, nodes, required, undefined))

/** Values shaped by a schema (often valid, sometimes not), so that both directions get exercised. */
function valueFor(schema: unknown, depth = 0): fc.Arbitrary<unknown> {
  const anything = fc.jsonValue({ maxDepth: 1 })
  if (!isRecord(schema) || depth > 4) return anything
  const branches = (schema['oneOf'] ?? schema['anyOf']) as unknown[] | undefined
  if (Array.isArray(branches)) return fc.oneof(...branches.map((branch) => valueFor(branch, depth + 1)))
  if (Object.hasOwn(schema, 'const')) return fc.oneof(fc.constant(schema['const']), anything)
  if (Array.isArray(schema['enum'])) return fc.oneof(fc.constantFrom(...(schema['enum'] as unknown[])), anything)
  switch (schema['type']) {
    case 'string':
      return fc.string({ maxLength: 7 })
    case 'number':
      return fc.oneof(fc.integer({ min: -3, max: 10 }), fc.double({ min: -3, max: 10, noNaN: true }).filter((value) => !Object.is(value, -0)))
    case 'integer':
      return fc.integer({ min: -3, max: 10 })
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'array':
      return fc.array(valueFor(schema['items'], depth + 1), { maxLength: 3 })
    case 'object': {
      const properties = (schema['properties'] ?? {}) as Schema
      const keys = Object.keys(properties)
      const entries = keys.map((key) => fc.option(valueFor(properties[key], depth + 1), { nil: undefined, freq: 3 }))
      return fc.tuple(...entries, fc.option(fc.constant('extra'), { nil: undefined, freq: 4 })).map((picked) => {
        const out: Schema = {}
        keys.forEach((key, index) => {
          if (picked[index] !== undefined) Object.defineProperty(out, key, { value: picked[index], enumerable: true, writable: true, configurable: true })
        })
        if (picked[keys.length] !== undefined && !Object.hasOwn(out, 'extra')) out['extra'] = 1
        return out
      })
    }
    default:
      return anything
  }
}

/** What the model sends under openai-strict for a value the tool accepts: `null` for every omitted optional property. */
function addNulls(schema: unknown, value: unknown): unknown {
  if (!isRecord(schema)) return value
  const branches = (schema['oneOf'] ?? schema['anyOf']) as unknown[] | undefined
  if (Array.isArray(branches)) {
    const branch = selectBranch(branches, value)
    return branch === undefined ? value : addNulls(branch, value)
  }
  if (Array.isArray(value)) return value.map((item) => addNulls(schema['items'], item))
  const properties = schema['properties']
  if (!isRecord(value) || !isRecord(properties)) return value
  const out: Schema = {}
  for (const key of Object.keys(value)) Object.defineProperty(out, key, { value: addNulls(properties[key], value[key]), enumerable: true, writable: true, configurable: true })
  for (const key of Object.keys(properties)) if (!Object.hasOwn(out, key)) Object.defineProperty(out, key, { value: null, enumerable: true, writable: true, configurable: true })
  return out
}

/** The gemini-legacy projection in JSON Schema terms, so ajv can judge it: `nullable` is "or null". */
function legacyAsJsonSchema(schema: unknown): unknown {
  if (!isRecord(schema)) return schema
  const out: Schema = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable') continue
    if (key === 'items') out[key] = legacyAsJsonSchema(value)
    else if (key === 'properties' && isRecord(value)) {
      const properties: Schema = {}
      for (const name of Object.keys(value)) Object.defineProperty(properties, name, { value: legacyAsJsonSchema(value[name]), enumerable: true, writable: true, configurable: true })
      out[key] = properties
    } else out[key] = value
  }
  return schema['nullable'] === true ? { anyOf: [out, { type: 'null' }] } : out
}

const hasUndeclaredTopLevelKey = (schema: Schema, value: unknown): boolean =>
  isRecord(value) && Object.keys(value).some((key) => !Object.hasOwn(schema['properties'] as Schema, key))

function checkProfile(profile: SchemaProfile): void {
  const provider = (projected: Schema): unknown => (profile === 'gemini-legacy' ? legacyAsJsonSchema(projected) : projected)
  const inverse = (original: Schema, value: unknown): unknown => (profile === 'openai-strict' ? removeOmittedNulls(original, value) : value)
  const forward = (original: Schema, value: unknown): unknown => (profile === 'openai-strict' ? addNulls(original, value) : value)
  let checkedSound = 0
  let checkedComplete = 0
  fc.assert(
    fc.property(
      parametersArbitrary.chain((original) => fc.tuple(fc.constant(original), fc.array(valueFor(original), { minLength: 8, maxLength: 8 }))),
      ([original, values]) => {
        const { schema: projected, issues } = projectSchema(original, profile, 'tool')
        if (issues.some((issue) => issue.kind === 'unsupported')) return
        const providerSchema = provider(projected)
        const widened = issues.some((issue) => issue.kind === 'widened')
        const narrowed = issues.some((issue) => issue.kind === 'narrowed')
        for (const value of values) {
          const sent = forward(original, value)
          for (const candidate of [value, sent]) {
            // Sound: whatever the provider's schema admits is, after the inverse mapping, what the tool admits.
            if (!widened && validates(providerSchema, candidate)) {
              checkedSound += 1
              expect(validates(original, inverse(original, candidate)), JSON.stringify({ original, projected, candidate })).toBe(true)
            }
          }
          // Complete: whatever the tool admits can be sent (undeclared top-level keys aside: strict closes the top level).
          if (!narrowed && validates(original, value) && !(profile !== 'gemini-legacy' && hasUndeclaredTopLevelKey(original, value))) {
            checkedComplete += 1
            expect(validates(providerSchema, sent), JSON.stringify({ original, projected, sent })).toBe(true)
            expect(inverse(original, sent)).toEqual(value)
          }
        }
      },
    ),
    { numRuns: 300 },
  )
  // The generators must reach both claims, or the property proves nothing.
  expect(checkedSound).toBeGreaterThan(50)
  expect(checkedComplete).toBeGreaterThan(50)
}

describe('schema profiles against ajv', () => {
  for (const profile of ['openai-strict', 'anthropic-strict', 'gemini-legacy', 'openai', 'anthropic', 'gemini'] as const) {
    it(`${profile}: a value the provider schema admits is admitted by the tool after the inverse mapping, and the other way round where no issue says otherwise`, () => {
      checkProfile(profile)
    })
  }

  it('openai-strict: the projection holds a strict schema (every object closed, every property required)', () => {
    fc.assert(
      fc.property(parametersArbitrary, (original) => {
        const { schema, issues } = projectSchema(original, 'openai-strict', 'tool')
        if (issues.some((issue) => issue.kind === 'unsupported')) return
        const walk = (node: unknown): void => {
          if (!isRecord(node)) return
          if (node['type'] === 'object') {
            expect(node['additionalProperties']).toBe(false)
            expect([...((node['required'] as string[] | undefined) ?? [])].sort()).toEqual(Object.keys(node['properties'] as Schema).sort())
          }
          expect(node).not.toHaveProperty('oneOf')
          expect(node).not.toHaveProperty('default')
          for (const value of Object.values(node)) {
            if (Array.isArray(value)) value.forEach(walk)
            else walk(value)
          }
          if (isRecord(node['properties'])) Object.values(node['properties']).forEach(walk)
        }
        walk(schema)
      }),
      { numRuns: 300 },
    )
  })
})

// Differential test: random DSL schemas and random valid and near-valid values; ajv (draft 2020-12) compiling the
// emitted JSON Schema must accept and reject exactly what our validator accepts and rejects.
//
// At least 10,000 value cases per run. A longer run: DSH_FUZZ_RUNS=<spec count> (default 2,500 specs × 4 values).
// Each rejected value also checks that firstViolation (one accept-only pass) reports what a full walk reports first.
// Reproduce a failure with DSH_FUZZ_SEED=<seed> (fast-check prints the seed and path of a failing case).
//
// Deliberate differences kept out of the generated cases: -0 (lossless JSON rejects it; ajv accepts it as a
// number), non-JSON values (ajv does not look at them), and a property named "__proto__" (ajv 8.20 does not see
// such a property in `properties`: it accepts any value for it and, with additionalProperties: false, rejects it as
// undeclared; validator.test.ts checks that we treat it as ordinary data), and a required property named "" (ajv
// 8.20 never reports it missing: its generated check treats the empty name as "nothing missing").
import { Ajv2020 } from 'ajv/dist/2020.js'
import fc from 'fast-check'
import { afterAll, describe, expect, test } from 'vitest'
import { compileParameters, compileValueSchema, parameterNode, valueNode } from './compile-schema.js'
import { compileNode, Sink } from './compile-validator.js'
import type { SchemaNode } from './schema-node.js'
import type { ParameterSchemaSpec, SchemaProp, ValueSchemaSpec } from './schema-spec.js'
import { schemaSpecToJsonSchema, valueSchemaSpecToJsonSchema } from './schema-spec-to-json-schema.js'
import type { Validator } from './validator.js'

const specRuns = Number(process.env['DSH_FUZZ_RUNS'] ?? 2500)
const valuesPerSpec = 4
// Generous: the default run takes a few seconds; a long run takes longer.
const timeout = 60_000 + specRuns * 4
const seed = process.env['DSH_FUZZ_SEED'] === undefined ? undefined : Number(process.env['DSH_FUZZ_SEED'])

// ownProperties: ajv otherwise reads `constructor`, `toString`, … through the prototype (its default is fast, not
// exact); with it, ajv reads own properties only, as JSON and our validator do.
const ajv = new Ajv2020({ strict: true, allErrors: false, ownProperties: true })

type Spec = Record<string, unknown>

const keyPool = ['a', 'b', 'kind', 'x y', 'constructor', 'toString', 'hasOwnProperty', '0', '-']
const literalPools = {
  string: ['', 'a', 'b', 'x y', 'édition'],
  number: [0, 1, 1.5, -2.25, 1e21, -1e-7],
  integer: [0, 1, -3, 42, 9007199254740991],
  boolean: [true, false],
  null: [null],
} as const
type ScalarType = keyof typeof literalPools
const scalarTypes = Object.keys(literalPools) as ScalarType[]

/** A JSON value with no -0 anywhere (lossless JSON rejects -0, ajv accepts it). */
const jsonValue: fc.Arbitrary<unknown> = fc
  .jsonValue({ maxDepth: 3 })
  .map((value) => JSON.parse(JSON.stringify(value)) as unknown)

function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

const scalarSpec: fc.Arbitrary<Spec> = fc.constantFrom(...scalarTypes).chain((type) => {
  const pool = literalPools[type] as readonly unknown[]
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant({ type }) },
    { weight: 1, arbitrary: fc.uniqueArray(fc.constantFrom(...pool), { minLength: 1, maxLength: 3 }).map((members) => ({ type, enum: members })) },
    { weight: 1, arbitrary: fc.constantFrom(...pool).map((literal) => ({ type, const: literal })) },
  )
})

const { value: valueSpec } = fc.letrec<{ value: Spec; property: Spec; properties: Spec }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 4, depthIdentifier: 'spec' },
    { weight: 5, arbitrary: scalarSpec },
    { weight: 1, arbitrary: fc.constant({ type: 'json' }) },
    { weight: 2, arbitrary: fc.option(tie('value'), { nil: undefined }).map((items) => (items === undefined ? { type: 'array' } : { type: 'array', items })) },
    {
      weight: 2,
      arbitrary: fc.record({ additionalProperties: fc.boolean(), properties: tie('properties') }).map((object) => ({ type: 'object', ...object })),
    },
    { weight: 1, arbitrary: fc.array(tie('value'), { minLength: 2, maxLength: 3 }).map((branches) => ({ oneOf: branches })) },
    // A union told apart by a `kind` literal (the validator dispatches on it instead of trying every branch).
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: 2, maxLength: 3 }),
          fc.array(fc.tuple(tie('properties'), fc.boolean(), fc.boolean(), fc.boolean()), { minLength: 3, maxLength: 3 }),
        )
        .map(([tags, shapes]) => ({
          oneOf: tags.map((tag, index) => {
            const [properties, additionalProperties, required, asEnum] = shapes[index] as [Spec, boolean, boolean, boolean]
            const kind = { type: 'string', ...(asEnum ? { enum: [tag, `${tag}2`] } : { const: tag }), ...(required ? { required: true } : {}) }
            const withKind: Spec = {}
            setKey(withKind, 'kind', kind)
            for (const [key, value] of Object.entries(properties)) if (key !== 'kind') setKey(withKind, key, value)
            return { type: 'object', additionalProperties, properties: withKind }
          }),
        })),
    },
  ),
  property: fc.record({ spec: tie('value'), required: fc.boolean() }).map(({ spec, required }) => (required ? { ...spec, required: true } : spec)),
  properties: fc.uniqueArray(fc.constantFrom(...keyPool), { maxLength: 4 }).chain((keys) =>
    fc.tuple(...keys.map(() => tie('property'))).map((specs) => {
      const map: Spec = {}
      keys.forEach((key, index) => setKey(map, key, specs[index]))
      return map
    }),
  ),
}))

/** A value for `spec`: valid by construction, except where a node is replaced by random JSON (near-valid). */
function valueFor(spec: Spec, depth = 0): fc.Arbitrary<unknown> {
  const valid = validValueFor(spec, depth)
  return fc.oneof({ weight: 9, arbitrary: valid }, { weight: 1, arbitrary: jsonValue })
}

function validValueFor(spec: Spec, depth: number): fc.Arbitrary<unknown> {
  if (Array.isArray(spec['oneOf'])) return fc.constantFrom(...(spec['oneOf'] as Spec[])).chain((branch) => valueFor(branch, depth + 1))
  const type = spec['type'] as string
  if (type === 'json') return jsonValue
  if (type === 'array') {
    const items = spec['items'] as Spec | undefined
    return fc.array(items === undefined ? jsonValue : valueFor(items, depth + 1), { maxLength: depth > 2 ? 1 : 3 })
  }
  if (type === 'object') return objectFor(spec['properties'] as Spec | undefined, spec['additionalProperties'] === true, depth)
  if (Array.isArray(spec['enum'])) return fc.constantFrom(...(spec['enum'] as unknown[]))
  if ('const' in spec) return fc.oneof(fc.constant(spec['const']), fc.constantFrom(...(literalPools[type as ScalarType] as readonly unknown[])))
  return fc.oneof(fc.constantFrom(...(literalPools[type as ScalarType] as readonly unknown[])), jsonValue)
}

function objectFor(properties: Spec | undefined, open: boolean, depth: number): fc.Arbitrary<unknown> {
  const entries = Object.entries(properties ?? {}) as [string, Spec][]
  const present = entries.map(([key, spec]) =>
    fc.tuple(fc.constant(key), fc.integer({ min: 0, max: 9 }), valueFor(stripRequired(spec), depth + 1)).map(([name, roll, value]) => {
      // A required property is left out one time in ten, an optional one half the time.
      const keep = spec['required'] === true ? roll > 0 : roll >= 5
      return keep ? ([name, value] as const) : undefined
    }),
  )
  const extras = fc.array(fc.tuple(fc.constantFrom(...keyPool, 'extra'), jsonValue), { maxLength: open ? 2 : 1 })
  return fc.tuple(fc.tuple(...present), extras, fc.boolean()).map(([declared, extra, withExtras]) => {
    const value: Record<string, unknown> = {}
    for (const entry of declared) if (entry !== undefined) setKey(value, entry[0], entry[1])
    if (withExtras) for (const [key, item] of extra) if (!Object.hasOwn(value, key)) setKey(value, key, item)
    return value
  })
}

function stripRequired(spec: Spec): Spec {
  const { required: _required, ...rest } = spec
  return rest
}

const parameterMap = fc.uniqueArray(fc.constantFrom(...keyPool), { maxLength: 5 }).chain((keys) =>
  fc.tuple(...keys.map(() => fc.record({ spec: valueSpec, required: fc.boolean() }))).map((specs) => {
    const map: Spec = {}
    keys.forEach((key, index) => {
      const { spec, required } = specs[index] as { spec: Spec; required: boolean }
      setKey(map, key, required ? { ...spec, required: true } : spec)
    })
    return map
  }),
)

const counts = { specs: 0, values: 0, accepted: 0, rejected: 0 }

afterAll(() => {
  console.log(
    `ajv differential: ${counts.specs} schemas, ${counts.values} values (${counts.accepted} accepted, ${counts.rejected} rejected by both)`,
  )
})

/** The first violation of a full walk that stops at one (what `firstViolation` answers without a second walk). */
function walkedFirst(node: SchemaNode, value: unknown): unknown {
  const sink = new Sink(1, 1)
  return compileNode(node)(value, sink) ? undefined : sink.violations()[0]
}

function agree(jsonSchema: object, node: SchemaNode, validator: Validator<unknown>, values: unknown[]): void {
  expect(ajv.validateSchema(jsonSchema), JSON.stringify(ajv.errors)).toBe(true)
  const oracle = ajv.compile(jsonSchema)
  counts.specs++
  for (const value of values) {
    const expected = oracle(value) as boolean
    expect(validator.is(value), JSON.stringify({ value, jsonSchema })).toBe(expected)
    expect(validator.validate(value).ok).toBe(expected)
    expect(validator.firstViolation(value), JSON.stringify({ value, jsonSchema })).toEqual(walkedFirst(node, value))
    counts.values++
    if (expected) counts.accepted++
    else counts.rejected++
  }
}

describe('our validator agrees with ajv (draft 2020-12) on every case', () => {
  test('parameter maps', () => {
    fc.assert(
      fc.property(
        parameterMap.chain((spec) => fc.tuple(fc.constant(spec), fc.array(objectFor(spec, true, 0), { minLength: valuesPerSpec, maxLength: valuesPerSpec }))),
        ([spec, values]) => {
          const parameters = spec as unknown as ParameterSchemaSpec
          agree(schemaSpecToJsonSchema(parameters), parameterNode(parameters), compileParameters(parameters), values)
        },
      ),
      { numRuns: Math.ceil(specRuns / 2), ...(seed === undefined ? {} : { seed }) },
    )
  }, timeout)

  test('value specs (arrays, objects, oneOf, scalars, json)', () => {
    fc.assert(
      fc.property(
        valueSpec.chain((spec) => fc.tuple(fc.constant(spec), fc.array(valueFor(spec), { minLength: valuesPerSpec, maxLength: valuesPerSpec }))),
        ([spec, values]) => {
          const schema = spec as unknown as ValueSchemaSpec
          agree(valueSchemaSpecToJsonSchema(schema), valueNode(schema), compileValueSchema(schema), values)
        },
      ),
      { numRuns: Math.ceil(specRuns / 2), ...(seed === undefined ? {} : { seed }) },
    )
  }, timeout)

  test('both sides saw at least 10,000 values, and both verdicts often', () => {
    expect(counts.values).toBeGreaterThanOrEqual(10_000)
    expect(counts.accepted).toBeGreaterThan(counts.values / 5)
    expect(counts.rejected).toBeGreaterThan(counts.values / 10)
  })
})

// Keep the SchemaProp type honest: every generated property is one.
export type GeneratedProperty = SchemaProp

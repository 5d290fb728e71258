// Differential test: random DSL schemas and random valid and near-valid values; ajv (draft 2020-12) compiling the
// emitted JSON Schema must accept and reject exactly what our validator accepts and rejects.
//
// At least 10,000 value cases per run. A longer run: DSH_FUZZ_RUNS=<spec count> (default 2,500 specs × 5 values).
// Each rejected value also checks that firstViolation (one accept-only pass) reports what a full walk reports first.
// Reproduce a failure with DSH_FUZZ_SEED=<seed> (fast-check prints the seed and path of a failing case).
//
// Deliberate differences kept out of the generated cases: -0 (lossless JSON rejects it; ajv accepts it as a
// number), non-JSON values (ajv does not look at them), and a property named "__proto__" (ajv 8.20 does not see
// such a property in `properties`: it accepts any value for it and, with additionalProperties: false, rejects it as
// undeclared; validator.test.ts checks that we treat it as ordinary data), and a required property named "" (ajv
// 8.20 never reports it missing: its generated check treats the empty name as "nothing missing"). Values on which
// ajv itself throws would be left out and counted (none are expected since its uniqueItems is replaced, below).
//
// Two keywords of the oracle are replaced. ajv's `uniqueItems` (fast-deep-equal) compares two objects' `constructor`
// properties before their keys, so `[{ "constructor": {} }, { "constructor": {} }]` is unique to it although the two
// elements are equal JSON (ownProperties does not reach that comparison), and it calls a `toString` or `valueOf`
// property as a method (a TypeError for `[{ toString: 'a' }, { toString: 'a' }]`): the oracle's `uniqueItems` is JSON
// equality, written on its own in test-support.ts (own keys only). ajv's `multipleOf` divides the doubles (`0.3 / 0.1` is 2.9999999999999996,
// so it rejects 0.3, and a quotient from 2^53 to 10^21 always looks whole to it, so it accepts 1e21 as a multiple of
// 1.5). JSON Schema divides the decimals the JSON text holds, as our validators do (constraints.ts): the oracle's
// `multipleOf` is that definition, written on its own in test-support.ts (decimal texts scaled to integers).
import { Ajv2020 } from 'ajv/dist/2020.js'
import fc from 'fast-check'
import { afterAll, describe, expect, test } from 'vitest'
import { compileParameters, compileValueSchema, parameterNode, valueNode } from './compile-schema.js'
import { compileNode } from './compile-validator.js'
import { Sink } from './validation-sink.js'
import type { SchemaNode } from './schema-node.js'
import type { ParameterSchemaSpec, SchemaProp, ValueSchemaSpec } from './schema-spec.js'
import { schemaSpecToJsonSchema, valueSchemaSpecToJsonSchema } from './schema-spec-to-json-schema.js'
import type { Validator } from './validator.js'
import { objectFor, parameterMap, valueFor, valueSpec } from './schema-arbitraries.js'
import { backendUnderTest } from './backend-under-test.setup.js'
import { decimalMultiple, jsonUnique } from './test-support.js'

const specRuns = Number(process.env['DSH_FUZZ_RUNS'] ?? 2500)
const valuesPerSpec = 5
// Generous: a test of the default run takes about 10 s alone on 2 cores, and over 70 s when the machine is busy with
// other test runs (it compiles every spec three times, once with ajv); a long run takes longer.
const timeout = 240_000 + specRuns * 40
const seed = process.env['DSH_FUZZ_SEED'] === undefined ? undefined : Number(process.env['DSH_FUZZ_SEED'])

// ownProperties: ajv otherwise reads `constructor`, `toString`, … through the prototype (its default is fast, not
// exact); with it, ajv reads own properties only, as JSON and our validator do.
const ajv = new Ajv2020({ strict: true, allErrors: false, ownProperties: true })

ajv.removeKeyword('uniqueItems')
ajv.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', errors: false, validate: (unique: boolean, value: unknown[]) => !unique || jsonUnique(value) })
ajv.removeKeyword('multipleOf')
ajv.addKeyword({ keyword: 'multipleOf', type: 'number', schemaType: 'number', errors: false, validate: (divisor: number, value: number) => decimalMultiple(value, divisor) })

const counts = { specs: 0, values: 0, accepted: 0, rejected: 0, oracleThrew: 0, backends: { generated: 0, closures: 0 } }

afterAll(() => {
  console.log(
    `ajv differential: ${counts.specs} schemas, ${counts.values} values (${counts.accepted} accepted, ${counts.rejected} rejected by ajv and both backends; ${counts.oracleThrew} left out where ajv threw; ` +
      `default backend: ${counts.backends.generated} values generated, ${counts.backends.closures} closures; 0 disagreements)`,
  )
})

/** The first violation of a full walk that stops at one (what `firstViolation` answers without a second walk). */
function walkedFirst(node: SchemaNode, value: unknown): unknown {
  const sink = new Sink(1, 1)
  return compileNode(node)(value, sink) ? undefined : sink.violations()[0]
}

/**
 * Both backends, compared with ajv and with each other on every value: verdicts, every violation (paths, keywords,
 * messages) and the first violation.
 */
function agree(jsonSchema: object, node: SchemaNode, validators: readonly [Validator<unknown>, Validator<unknown>], values: unknown[]): void {
  const [validator, closures] = validators
  expect(closures.backend).toBe('closures')
  expect(ajv.validateSchema(jsonSchema), JSON.stringify(ajv.errors)).toBe(true)
  const oracle = ajv.compile(jsonSchema)
  counts.specs++
  for (const value of values) {
    let expected: boolean
    try {
      expected = oracle(value) as boolean
    } catch (error) {
      // ajv's uniqueItems compares objects with fast-deep-equal, which calls a `toString` or `valueOf` key of the
      // value as a method and throws when it holds data: no verdict to compare with (see the header).
      if (!(error instanceof TypeError)) throw error
      counts.oracleThrew++
      continue
    }
    expect(validator.is(value), JSON.stringify({ value, jsonSchema })).toBe(expected)
    expect(validator.validate(value).ok).toBe(expected)
    expect(validator.firstViolation(value), JSON.stringify({ value, jsonSchema })).toEqual(walkedFirst(node, value))
    expect(closures.is(value), JSON.stringify({ value, jsonSchema, backend: 'closures' })).toBe(expected)
    expect(closures.validate(value)).toEqual(validator.validate(value))
    expect(closures.firstViolation(value)).toEqual(validator.firstViolation(value))
    counts.backends[validator.backend]++
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
          const validators = [compileParameters(parameters), compileParameters(parameters, { backend: 'closures' })] as const
          agree(schemaSpecToJsonSchema(parameters), parameterNode(parameters), validators, values)
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
          const validators = [compileValueSchema(schema), compileValueSchema(schema, { backend: 'closures' })] as const
          agree(valueSchemaSpecToJsonSchema(schema), valueNode(schema), validators, values)
        },
      ),
      { numRuns: Math.ceil(specRuns / 2), ...(seed === undefined ? {} : { seed }) },
    )
  }, timeout)

  test('both sides saw at least 10,000 values, and both verdicts often', () => {
    // The default backend is the one of this test project: generated code unless the project asks for closures.
    expect(counts.backends[backendUnderTest]).toBe(counts.values)
    expect(counts.values).toBeGreaterThanOrEqual(10_000)
    expect(counts.accepted).toBeGreaterThan(counts.values / 5)
    expect(counts.rejected).toBeGreaterThan(counts.values / 10)
  })
})

describe("the oracle's uniqueItems", () => {
  test('regression (seed 41049009): equal objects with an own "constructor" or "toString" property are duplicates', () => {
    const parameters = JSON.parse(
      '{"x y": {"type": "array", "uniqueItems": true, "items": {"type": "object", "additionalProperties": false, "properties": {"constructor": {"type": "object", "additionalProperties": false, "properties": {}, "required": true}}}}}',
    ) as ParameterSchemaSpec
    const duplicates = JSON.parse('{"x y": [{"constructor": {}}, {"constructor": {}}]}') as unknown
    const distinct = JSON.parse('{"x y": [{"constructor": {}}]}') as unknown
    const jsonSchema = schemaSpecToJsonSchema(parameters)
    expect(ajv.validate(jsonSchema, duplicates)).toBe(false)
    const validators = [compileParameters(parameters), compileParameters(parameters, { backend: 'closures' })] as const
    for (const validator of validators) expect(validator.is(duplicates)).toBe(false)
    agree(jsonSchema, parameterNode(parameters), validators, [duplicates])
    const strings = compileValueSchema({ type: 'array', uniqueItems: true, items: { type: 'json' } })
    expect(strings.is(JSON.parse('[{"toString": "a"}, {"toString": "a"}]'))).toBe(false)
    expect(ajv.validate({ type: 'array', uniqueItems: true }, JSON.parse('[{"toString": "a"}, {"toString": "a"}]'))).toBe(false)
    expect(ajv.validate(jsonSchema, distinct)).toBe(true)
    for (const validator of validators) expect(validator.is(distinct)).toBe(true)
  })
})

// Keep the SchemaProp type honest: every generated property is one.
export type GeneratedProperty = SchemaProp

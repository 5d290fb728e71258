import { isJsonValue } from '@dsh/tools-core'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, test } from 'vitest'
import { OutputSchemaError } from './output-schema-error.js'
import { StructuredValueError } from './structured-value-error.js'
import {
  assertStructuredSchemaNode,
  assertSupportedOutputSchema,
  validateStructuredValue,
  type StructuredOutputSchema,
  type StructuredSchemaNode,
} from './structured-output.js'

function problemsOf(schema: unknown, assert: (schema: unknown) => void = assertSupportedOutputSchema): string[] {
  try {
    assert(schema)
  } catch (error) {
    if (!OutputSchemaError.isInstance(error)) throw error
    expect(error.code).toBe('UNSUPPORTED_OUTPUT_SCHEMA')
    return error.problems.map((problem) => `${problem.path}: ${problem.message}`)
  }
  return []
}

const review: StructuredOutputSchema = {
  type: 'object',
  description: 'A code review verdict',
  properties: {
    verdict: { type: 'string', enum: ['approve', 'request-changes'] },
    score: { type: 'integer', title: 'Score', default: 3, examples: [1, 5] },
    comments: {
      type: 'array',
      items: {
        type: 'object',
        properties: { file: { type: 'string' }, line: { type: 'integer' }, note: { type: 'string' } },
        required: ['file', 'note'],
        additionalProperties: false,
      },
    },
    meta: { type: 'object' },
    done: { type: 'boolean', const: true },
    nothing: { type: 'null' },
    ratio: { type: 'number' },
  },
  required: ['verdict', 'comments'],
  additionalProperties: false,
}

describe('assertSupportedOutputSchema', () => {
  test('accepts the subset, and ajv agrees it is valid JSON Schema', () => {
    expect(problemsOf(review)).toEqual([])
    expect(new Ajv2020({ strict: true }).validateSchema(review)).toBe(true)
  })

  test('rejects every keyword outside the subset, listing all of them with paths', () => {
    expect(
      problemsOf({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 1, pattern: '^[a-z', minimum: 1 },
          kind: { oneOf: [{ type: 'string' }, { type: 'null' }] },
          tags: { type: ['string', 'null'] },
          list: { type: 'array', items: { $ref: '#/$defs/item' }, uniqueItems: 'yes' },
          extra: { type: 'json' },
        },
        required: ['name', 'missing', 'name'],
        additionalProperties: { type: 'string' },
        $defs: { item: { type: 'string' } },
      }),
    ).toEqual([
      '$schema: "$schema" is not supported: schema metadata is not supported; the emitted schema carries none',
      '$defs: "$defs" is not supported: references are not supported; write the schema inline',
      'additionalProperties: additionalProperties must be true or false, got an object',
      'required[1]: "missing" is not declared in properties',
      'required[2]: "name" is listed twice',
      'properties.name.minimum: "minimum" only applies to types "number" and "integer"',
      'properties.name.pattern: pattern "^[a-z" does not compile as an ECMA-262 regular expression with the u flag: Invalid regular expression: /^[a-z/u: Unterminated character class',
      'properties.kind: missing "type" (one of object, array, string, number, integer, boolean, null)',
      'properties.kind.oneOf: "oneOf" is not supported in the structured-output subset',
      'properties.tags.type: type arrays are not supported; give one type',
      'properties.list.items: missing "type" (one of object, array, string, number, integer, boolean, null)',
      'properties.list.items.$ref: "$ref" is not supported: references are not supported; write the schema inline',
      'properties.list.uniqueItems: uniqueItems must be true or false, got the string "yes"',
      'properties.extra.type: unknown type "json"; expected one of object, array, string, number, integer, boolean, null',
    ])
  })

  test('keywords on the wrong type, wrong-typed literals, annotations that are not JSON', () => {
    expect(
      problemsOf({
        type: 'object',
        properties: {
          a: { type: 'string', items: { type: 'string' }, required: [] },
          b: { type: 'array', enum: [[1]] },
          c: { type: 'integer', enum: [1, 'two'] },
          d: { type: 'string', const: 3 },
          e: { type: 'string', description: 3, default: 10n },
          f: { type: 'boolean', examples: true },
        },
      }),
    ).toEqual([
      'properties.a.items: "items" only applies to type "array"',
      'properties.a.required: "required" only applies to type "object"',
      'properties.b.enum: "enum" only applies to scalar types (string, number, integer, boolean, null)',
      "properties.c.enum[1]: expected an integer (the node's type), got the string \"two\"",
      "properties.d.const: expected a string (the node's type), got the number 3",
      'properties.e.description: description must be a string, got the number 3',
      'properties.e.default: must be lossless JSON: the BigInt 10n is not a JSON number (at the root)',
      'properties.f.examples: expected an array of examples, got true',
    ])
  })

  test('the root must be an object schema', () => {
    expect(problemsOf({ type: 'string' })).toEqual([
      'type: a structured-output schema must have type "object"',
    ])
    expect(problemsOf({ type: 'string', format: 'x' })).toEqual([
      'type: a structured-output schema must have type "object"',
      'format: "format" is not supported: formats are not checked; use pattern, or check the value in code after validation',
    ])
    expect(problemsOf({ type: 'string' }, assertStructuredSchemaNode)).toEqual([])
  })

  test('non-plain objects, cycles and hostile schemas are reported', () => {
    const cyclic: Record<string, unknown> = { type: 'object' }
    cyclic['properties'] = { self: cyclic }
    expect(problemsOf(cyclic)).toEqual(['properties.self: the schema contains itself (a cycle)'])
    expect(problemsOf(new Map())).toEqual([
      'type: a structured-output schema must have type "object"',
      ': expected a schema object like { type: "string" }, got a Map (not JSON)',
    ])
    const hostile = {
      type: 'object',
      get properties(): unknown {
        throw new Error('nope')
      },
    }
    expect(problemsOf(hostile)).toEqual([': reading the schema threw: nope'])
  })

  test('the message lists every violation', () => {
    try {
      assertSupportedOutputSchema({ type: 'object', properties: { a: { type: 'string', format: 'date' } }, anyOf: [] })
      expect.unreachable()
    } catch (error) {
      expect((error as Error).message).toBe(
        'The output schema is outside the supported subset (2 problems):\n' +
          '- anyOf: "anyOf" is not supported: use oneOf with branches that cannot overlap\n' +
          '- properties.a.format: "format" is not supported: formats are not checked; use pattern, or check the value in code after validation',
      )
    }
  })
})

describe('validateStructuredValue', () => {
  test('a matching value comes back as a detached, deep-frozen copy', () => {
    const value = { verdict: 'approve', comments: [{ file: 'a.ts', note: 'ok', line: 3 }], meta: { any: [1] } }
    const result = validateStructuredValue(review, value)
    expect(result.ok).toBe(true)
    if (!result.ok) return
    expect(result.value).toEqual(value)
    expect(result.value).not.toBe(value)
    expect(Object.isFrozen(result.value)).toBe(true)
    expect(isJsonValue(result.value)).toBe(true)
  })

  test('violations come back as a StructuredValueError written for the model', () => {
    const result = validateStructuredValue(review, { verdict: 'maybe', comments: [{ file: 1 }], extra: true, done: false })
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(StructuredValueError.isInstance(result.error)).toBe(true)
    expect(result.error.code).toBe('INVALID_STRUCTURED_VALUE')
    expect(result.error.message).toBe(
      'The value does not match the required output schema (5 problems):\n' +
        '- verdict: expected one of "approve", "request-changes", got "maybe"\n' +
        '- comments[0].file: expected a string, got the number 1\n' +
        '- comments[0].note: is required but missing\n' +
        '- extra: is not an allowed property (allowed: verdict, score, comments, meta, done, nothing, ratio)\n' +
        '- done: expected true, got false\n' +
        'Produce a value that matches the schema.',
    )
  })

  test('a value that is not lossless JSON is rejected before the schema is applied', () => {
    const result = validateStructuredValue(review, { verdict: 'approve', comments: [], ratio: Number.NaN })
    expect(result.ok ? [] : result.error.violations).toEqual([
      { path: 'ratio', segments: ['ratio'], keyword: 'json', message: 'is not lossless JSON: NaN is not a JSON number' },
    ])
  })

  test('an open object (additionalProperties absent) accepts other keys', () => {
    const open: StructuredSchemaNode = { type: 'object', properties: { a: { type: 'string' } } }
    expect(validateStructuredValue(open, { a: 'x', b: [1, { c: null }] }).ok).toBe(true)
  })

  test('never throws for any value; throws OutputSchemaError for an unsupported schema', () => {
    const hostile = {
      get verdict(): string {
        throw new Error('boom')
      },
    }
    const result = validateStructuredValue(review, hostile)
    expect(result.ok ? '' : result.error.message).toContain('- verdict: is not lossless JSON: reading the value threw: boom')
    expect(() => validateStructuredValue({ type: 'string', format: 'email' } as StructuredSchemaNode, 'x')).toThrow(OutputSchemaError)
  })
})

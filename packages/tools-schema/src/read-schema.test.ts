import { describe, expect, test } from 'vitest'
import { compileParameters, compileValueSchema } from './compile-schema.js'
import { defineParameters, defineValueSchema } from './define-parameters.js'
import { JsonSchemaError } from './json-schema-error.js'
import { MAX_SCHEMA_DEPTH } from './read-schema.js'
import type { ParameterSchemaSpec, ValueSchemaSpec } from './schema-spec.js'

/** The problems a parameter map is rejected with, as `path: message` lines (the spec is untyped on purpose). */
function parameterProblems(spec: unknown): string[] {
  try {
    compileParameters(spec as ParameterSchemaSpec, { cache: false })
  } catch (error) {
    if (!JsonSchemaError.isInstance(error)) throw error
    expect(error.code).toBe('UNSUPPORTED_SCHEMA')
    return error.problems.map((problem) => `${problem.path}: ${problem.message}`)
  }
  return []
}

function valueProblems(spec: unknown): string[] {
  try {
    compileValueSchema(spec as ValueSchemaSpec, { cache: false })
  } catch (error) {
    if (!JsonSchemaError.isInstance(error)) throw error
    return error.problems.map((problem) => `${problem.path}: ${problem.message}`)
  }
  return []
}

describe('supported specs are accepted', () => {
  test('every node type, annotations, nesting', () => {
    expect(
      parameterProblems({
        path: { type: 'string', required: true, description: 'd', title: 't', default: '/', examples: ['/a'] },
        count: { type: 'number', enum: [1.5, 2] },
        limit: { type: 'integer', const: 3 },
        flag: { type: 'boolean', enum: [true] },
        nothing: { type: 'null', const: null },
        anything: { type: 'json', default: { a: [1, null] } },
        options: { type: 'object', additionalProperties: true, properties: { x: { type: 'string', required: true } } },
        closed: { type: 'object', additionalProperties: false },
        list: { type: 'array', items: { type: 'array', items: { type: 'string' } } },
        any: { type: 'array' },
        either: { oneOf: [{ type: 'string' }, { type: 'null' }], description: 'a string or null' },
      }),
    ).toEqual([])
  })

  test('the empty parameter map', () => {
    expect(parameterProblems({})).toEqual([])
  })

  test('odd property names, including __proto__ and constructor', () => {
    const spec = JSON.parse('{"__proto__": {"type": "string"}, "constructor": {"type": "integer"}, "a b": {"type": "null"}}')
    expect(parameterProblems(spec)).toEqual([])
  })

  test('null-prototype spec objects', () => {
    const spec = Object.assign(Object.create(null) as object, { path: Object.assign(Object.create(null) as object, { type: 'string' }) })
    expect(parameterProblems(spec)).toEqual([])
  })

  test('defineParameters and defineValueSchema return the spec itself', () => {
    const parameters = { path: { type: 'string' } } as const
    expect(defineParameters(parameters)).toBe(parameters)
    const schema = { type: 'string' } as const
    expect(defineValueSchema(schema)).toBe(schema)
  })
})

describe('every problem is reported, with its path, in one error', () => {
  test('several problems at several depths', () => {
    expect(
      parameterProblems({
        host: { type: 'string', pattern: '^[a-z', minLength: -1 },
        port: { type: 'integer', minimum: 1, minLength: 1 },
        servers: {
          type: 'array',
          items: {
            type: 'object',
            properties: { tags: { type: 'array', items: { $ref: '#/defs/tag' } } },
          },
        },
      }),
    ).toEqual([
      'host.minLength: minLength must be a non-negative integer, got the number -1',
      'host.pattern: pattern "^[a-z" does not compile as an ECMA-262 regular expression with the u flag: Invalid regular expression: /^[a-z/u: Unterminated character class',
      'port.minLength: "minLength" only applies to type "string"',
      'servers.items: an object must say additionalProperties: true (other keys allowed, any JSON) or false (no other keys)',
      'servers.items.properties.tags.items: missing "type" (one of string, number, integer, boolean, null, object, array, json) or "oneOf"',
      'servers.items.properties.tags.items.$ref: "$ref" is not supported: references are not supported; write the schema inline',
    ])
  })

  test('the error message lists every problem', () => {
    let message = ''
    try {
      defineParameters({ a: { type: 'string', format: 'uri' }, b: { type: 'number', multipleOf: 0 } } as unknown as ParameterSchemaSpec)
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toBe(
      'The schema is not supported (2 problems):\n' +
        '- a.format: "format" is not supported: formats are not checked; use pattern, or check the value in code after validation\n' +
        '- b.multipleOf: multipleOf must be a number greater than 0, got the number 0',
    )
  })

  test.each([
    ['anyOf', 'use oneOf with branches that cannot overlap'],
    ['allOf', 'merge the parts into one schema'],
    ['not', 'conditional schemas are not supported; use oneOf'],
    ['$defs', 'references are not supported; write the schema inline'],
    ['nullable', "use oneOf with a { type: 'null' } branch"],
    ['prefixItems', 'use items (one schema for every element), with minItems, maxItems or uniqueItems'],
    ['patternProperties', 'object constraints are not supported; check them in code after validation'],
    ['$schema', 'schema metadata is not supported; the emitted schema carries none'],
  ])('%s is rejected with a hint', (keyword, hint) => {
    expect(valueProblems({ type: 'string', [keyword]: true })).toEqual([`${keyword}: "${keyword}" is not supported: ${hint}`])
  })

  test('an unknown key is never ignored', () => {
    expect(valueProblems({ type: 'string', desc: 'typo' })).toEqual(['desc: unknown keyword "desc"'])
  })

  test('misplaced keywords', () => {
    expect(
      parameterProblems({
        a: { type: 'string', items: { type: 'string' }, properties: {}, additionalProperties: false },
        b: { type: 'array', enum: [[]], const: [] },
        c: { type: 'object', additionalProperties: true, items: { type: 'string' } },
        d: { type: 'json', enum: [1] },
        e: { oneOf: [{ type: 'string' }, { type: 'null' }], additionalProperties: false },
      }),
    ).toEqual([
      'a.items: "items" only applies to type "array"',
      'a.properties: "properties" only applies to type "object"',
      'a.additionalProperties: "additionalProperties" only applies to type "object"',
      'b.enum: "enum" only applies to scalar types (string, number, integer, boolean, null)',
      'b.const: "const" only applies to scalar types (string, number, integer, boolean, null)',
      'c.items: "items" only applies to type "array"',
      'd.enum: "enum" only applies to scalar types (string, number, integer, boolean, null)',
      'e.additionalProperties: "additionalProperties" only applies to type "object"',
    ])
  })

  test('required outside a parameter map, and required: false', () => {
    expect(
      parameterProblems({
        list: { type: 'array', items: { type: 'string', required: true } },
        maybe: { type: 'string', required: false },
        either: { oneOf: [{ type: 'string', required: true }, { type: 'null' }] },
      }),
    ).toEqual([
      'list.items.required: "required" is only allowed on a property in parameters or properties',
      'maybe.required: required must be true; leave it out for an optional property',
      'either.oneOf[0].required: "required" is only allowed on a property in parameters or properties',
    ])
    expect(valueProblems({ type: 'string', required: true })).toEqual([
      'required: "required" is only allowed on a property in parameters or properties',
    ])
  })

  test('types: missing, unknown, arrays, next to oneOf', () => {
    expect(
      parameterProblems({
        a: { description: 'no type' },
        b: { type: 'date' },
        c: { type: ['string', 'null'] },
        d: { type: 'string', oneOf: [{ type: 'string' }, { type: 'null' }] },
        e: { type: 7 },
      }),
    ).toEqual([
      'a: missing "type" (one of string, number, integer, boolean, null, object, array, json) or "oneOf"',
      'b.type: unknown type "date"; expected one of string, number, integer, boolean, null, object, array, json',
      'c.type: type arrays are not supported; use oneOf with one branch per type',
      'd.type: a oneOf node has no type of its own; put the type in each branch',
      'e.type: unknown type the number 7; expected one of string, number, integer, boolean, null, object, array, json',
    ])
  })

  test('objects: additionalProperties must be explicit and boolean; properties must be a map', () => {
    expect(
      parameterProblems({
        a: { type: 'object' },
        b: { type: 'object', additionalProperties: { type: 'string' } },
        c: { type: 'object', additionalProperties: true, properties: [] },
        d: { type: 'object', additionalProperties: true, properties: { x: 'string' } },
      }),
    ).toEqual([
      'a: an object must say additionalProperties: true (other keys allowed, any JSON) or false (no other keys)',
      'b.additionalProperties: additionalProperties must be true or false, got an object',
      'c.properties: expected a map of property schemas like { path: { type: "string" } }, got an array',
      'd.properties.x: expected a schema object like { type: "string" }, got the string "string"',
    ])
  })

  test('oneOf needs an array of at least two valid branches', () => {
    expect(
      valueProblems({ oneOf: [{ type: 'string' }] }),
    ).toEqual(['oneOf: oneOf needs at least two branches; with one, use that branch itself'])
    expect(valueProblems({ oneOf: { a: { type: 'string' } } })).toEqual(['oneOf: expected an array of branch schemas, got an object'])
    expect(valueProblems({ oneOf: [{ type: 'string' }, { type: 'object' }] })).toEqual([
      'oneOf[1]: an object must say additionalProperties: true (other keys allowed, any JSON) or false (no other keys)',
    ])
  })

  test('enum and const must be type-correct scalars', () => {
    expect(
      parameterProblems({
        a: { type: 'string', enum: ['x', 1, 'x'] },
        b: { type: 'integer', enum: [1, 1.5, -0] },
        c: { type: 'number', const: Number.NaN },
        d: { type: 'boolean', enum: [] },
        e: { type: 'string', enum: ['x'], const: 'x' },
        f: { type: 'number', enum: [Infinity] },
        g: { type: 'null', enum: 'null' },
      }),
    ).toEqual([
      "a.enum[1]: expected a string (the node's type), got the number 1",
      'a.enum[2]: duplicates an earlier member',
      "b.enum[1]: expected an integer (the node's type), got the number 1.5",
      "b.enum[2]: expected an integer (the node's type), got -0 (not lossless JSON; use 0)",
      "c.const: expected a number (the node's type), got NaN (not a JSON number)",
      'd.enum: an empty enum allows nothing',
      'e.const: use enum or const, not both',
      "f.enum[0]: expected a number (the node's type), got Infinity (not a JSON number)",
      'g.enum: expected an array of allowed values, got the string "null"',
    ])
  })

  test('annotations: strings, lossless JSON, and defaults and examples that match their own node', () => {
    expect(
      parameterProblems({
        a: { type: 'string', description: 42, title: null },
        b: { type: 'string', default: 42 },
        c: { type: 'integer', enum: [1, 2], examples: [1, 3] },
        d: { type: 'json', default: Number.NaN },
        e: { type: 'json', examples: 'x' },
        f: { type: 'object', additionalProperties: false, properties: { x: { type: 'string', required: true } }, default: {} },
        g: { type: 'json', default: new Date(0) },
      }),
    ).toEqual([
      'a.description: description must be a string, got the number 42',
      'a.title: title must be a string, got null',
      'b.default: does not match its own schema: (root): expected a string, got the number 42',
      'c.examples[1]: does not match its own schema: (root): expected one of 1, 2, got 3',
      'd.default: must be lossless JSON: NaN is not a JSON number (at the root)',
      'e.examples: expected an array of examples, got the string "x"',
      'f.default: does not match its own schema: x: is required but missing',
      'g.default: must be lossless JSON: a Date is not JSON (only plain objects and arrays are) (at the root)',
    ])
  })

  test('nodes that are not plain objects', () => {
    expect(
      parameterProblems({
        a: null,
        b: 'string',
        c: new Map(),
        d: [{ type: 'string' }],
      }),
    ).toEqual([
      'a: expected a schema object like { type: "string" }, got null',
      'b: expected a schema object like { type: "string" }, got the string "string"',
      'c: expected a schema object like { type: "string" }, got a Map (not JSON)',
      'd: expected a schema object like { type: "string" }, got an array',
    ])
    expect(parameterProblems('path')).toEqual([': expected a map of property schemas like { path: { type: "string" } }, got the string "path"'])
  })

  test('symbol keys are reported', () => {
    expect(valueProblems({ type: 'string', [Symbol('meta')]: 1 })).toEqual([': symbol keys are not supported'])
  })
})

describe('cycles, depth and hostile specs', () => {
  test('a cycle is reported, not followed', () => {
    const node: Record<string, unknown> = { type: 'object', additionalProperties: false }
    node['properties'] = { self: node }
    expect(parameterProblems({ root: node })).toEqual([
      'root.properties.self: the schema contains itself (a cycle)',
    ])
  })

  test('a cycle through oneOf and items', () => {
    const branches: unknown[] = [{ type: 'string' }]
    const node = { type: 'array', items: { oneOf: branches } }
    branches.push(node)
    expect(valueProblems(node)).toEqual(['items.oneOf[1]: the schema contains itself (a cycle)'])
  })

  test('a shared (non-cyclic) sub-schema is fine', () => {
    const shared = { type: 'string' }
    expect(parameterProblems({ a: shared, b: shared, c: { type: 'array', items: shared } })).toEqual([])
  })

  test(`nesting deeper than ${MAX_SCHEMA_DEPTH} levels is reported once, without overflowing`, () => {
    let spec: unknown = { type: 'string' }
    for (let depth = 0; depth < 100_000; depth++) spec = { type: 'array', items: spec }
    const problems = valueProblems(spec)
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(new RegExp(`: the schema nests deeper than ${MAX_SCHEMA_DEPTH} levels$`))
    expect(problems[0]?.match(/items/g)).toHaveLength(MAX_SCHEMA_DEPTH)
  })

  test(`exactly ${MAX_SCHEMA_DEPTH} levels are allowed`, () => {
    let spec: unknown = { type: 'string' }
    for (let depth = 1; depth < MAX_SCHEMA_DEPTH; depth++) spec = { type: 'array', items: spec }
    expect(valueProblems(spec)).toEqual([])
  })

  test('throwing getters and revoked proxies become problems', () => {
    const hostile = {
      type: 'string',
      get description(): string {
        throw new Error('boom')
      },
    }
    const { proxy, revoke } = Proxy.revocable({ type: 'string' }, {})
    revoke()
    expect(parameterProblems({ a: hostile, b: proxy })).toEqual([
      'a: reading the schema threw: boom',
      'b: reading the schema threw: Cannot perform \'IsArray\' on a proxy that has been revoked',
    ])
  })

  test('each getter of a spec is read once', () => {
    let reads = 0
    const spec = {
      get path() {
        reads++
        return { type: 'string', default: 'x' }
      },
    }
    compileParameters(spec as ParameterSchemaSpec, { cache: false })
    expect(reads).toBe(1)
  })
})

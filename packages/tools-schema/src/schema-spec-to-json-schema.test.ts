import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, test } from 'vitest'
import { defineParameters, defineValueSchema } from './define-parameters.js'
import { JsonSchemaError } from './json-schema-error.js'
import type { ParameterSchemaSpec } from './schema-spec.js'
import { schemaSpecToJsonSchema, valueSchemaSpecToJsonSchema } from './schema-spec-to-json-schema.js'

const ajv = new Ajv2020({ strict: true })

function expectValidJsonSchema(schema: object): void {
  expect(ajv.validateSchema(schema), JSON.stringify(ajv.errors)).toBe(true)
  expect(() => ajv.compile(schema)).not.toThrow()
}

describe('schemaSpecToJsonSchema', () => {
  test('seed 003: primitives, required, integer and null', () => {
    const schema = schemaSpecToJsonSchema({
      path: { type: 'string', required: true },
      limit: { type: 'integer' },
      recursive: { type: 'boolean' },
      parent: { type: 'null' },
    })
    expect(schema).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string' },
        limit: { type: 'integer' },
        recursive: { type: 'boolean' },
        parent: { type: 'null' },
      },
      required: ['path'],
    })
    expectValidJsonSchema(schema)
  })

  test('no required when none is required; the empty map', () => {
    expect(schemaSpecToJsonSchema({ tags: { type: 'array', items: { type: 'string' } } })).toEqual({
      type: 'object',
      properties: { tags: { type: 'array', items: { type: 'string' } } },
    })
    expect(schemaSpecToJsonSchema({})).toEqual({ type: 'object', properties: {} })
  })

  test('nested objects carry additionalProperties; the top level does not', () => {
    expect(
      schemaSpecToJsonSchema({
        options: {
          type: 'object',
          additionalProperties: true,
          properties: { timeout: { type: 'number', required: true }, retries: { type: 'number' } },
        },
      }),
    ).toEqual({
      type: 'object',
      properties: {
        options: {
          type: 'object',
          properties: { timeout: { type: 'number' }, retries: { type: 'number' } },
          required: ['timeout'],
          additionalProperties: true,
        },
      },
    })
  })

  test('json nodes are {} plus their annotations; oneOf, enum and const', () => {
    const schema = schemaSpecToJsonSchema({
      data: { type: 'json' },
      note: { type: 'json', description: 'anything' },
      mode: { type: 'string', enum: ['read', 'write'], required: true },
      kind: { type: 'string', const: 'edit' },
      target: { oneOf: [{ type: 'string' }, { type: 'null' }], description: 'a path or null' },
    })
    expect(schema).toEqual({
      type: 'object',
      properties: {
        data: {},
        note: { description: 'anything' },
        mode: { type: 'string', enum: ['read', 'write'] },
        kind: { type: 'string', const: 'edit' },
        target: { description: 'a path or null', oneOf: [{ type: 'string' }, { type: 'null' }] },
      },
      required: ['mode'],
    })
    expectValidJsonSchema(schema)
  })

  test('keys come in a fixed order, whatever order the spec was written in', () => {
    const schema = schemaSpecToJsonSchema({
      a: {
        examples: [['x']],
        default: ['y'],
        items: { enum: ['x', 'y'], description: 'one item', type: 'string', title: 'Item' },
        description: 'a list',
        title: 'A',
        type: 'array',
        required: true,
      },
    })
    expect(JSON.stringify(schema)).toBe(
      '{"type":"object","properties":{"a":{"type":"array","title":"A","description":"a list",' +
        '"items":{"type":"string","title":"Item","description":"one item","enum":["x","y"]},' +
        '"default":["y"],"examples":[["x"]]}},"required":["a"]}',
    )
  })

  test('property order and required order follow the spec', () => {
    const schema = schemaSpecToJsonSchema({
      z: { type: 'string', required: true },
      a: { type: 'string' },
      m: { type: 'string', required: true },
    })
    expect(Object.keys(schema.properties)).toEqual(['z', 'a', 'm'])
    expect(schema.required).toEqual(['z', 'm'])
  })

  test('a fresh, detached object on each call', () => {
    const defaults = { list: ['x'] }
    const parameters = defineParameters({ a: { type: 'json', default: defaults } })
    const first = schemaSpecToJsonSchema(parameters)
    const second = schemaSpecToJsonSchema(parameters)
    expect(first).not.toBe(second)
    expect(first).toEqual(second)
    ;(first.properties['a'] as { default: { list: string[] } }).default.list.push('mutated')
    defaults.list.push('changed later')
    expect(schemaSpecToJsonSchema(parameters).properties['a']).toEqual({ default: { list: ['x'] } })
  })

  test('a __proto__ property is emitted as data', () => {
    const schema = schemaSpecToJsonSchema(JSON.parse('{"__proto__": {"type": "string", "required": true}}') as ParameterSchemaSpec)
    expect(Object.getPrototypeOf(schema.properties)).toBe(Object.prototype)
    expect(Object.keys(schema.properties)).toEqual(['__proto__'])
    expect(schema.required).toEqual(['__proto__'])
    expect(JSON.stringify(schema)).toBe('{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}')
  })

  test('an unsupported spec throws JsonSchemaError', () => {
    expect(() => schemaSpecToJsonSchema({ a: { type: 'string', format: 'uri' } } as unknown as ParameterSchemaSpec)).toThrow(
      JsonSchemaError,
    )
  })
})

describe('valueSchemaSpecToJsonSchema', () => {
  test('seed 003 count_files output schema', () => {
    const schema = valueSchemaSpecToJsonSchema(
      defineValueSchema({
        type: 'object',
        additionalProperties: false,
        properties: {
          count: { type: 'integer', required: true },
          files: { type: 'array', required: true, items: { type: 'string' } },
        },
      }),
    )
    expect(schema).toEqual({
      type: 'object',
      properties: { count: { type: 'integer' }, files: { type: 'array', items: { type: 'string' } } },
      required: ['count', 'files'],
      additionalProperties: false,
    })
    expectValidJsonSchema(schema)
  })

  test('scalars and a top-level oneOf', () => {
    expect(valueSchemaSpecToJsonSchema({ type: 'string' })).toEqual({ type: 'string' })
    expect(valueSchemaSpecToJsonSchema({ type: 'json' })).toEqual({})
    expect(valueSchemaSpecToJsonSchema({ oneOf: [{ type: 'integer', enum: [1, 2] }, { type: 'boolean', const: true }] })).toEqual({
      oneOf: [
        { type: 'integer', enum: [1, 2] },
        { type: 'boolean', const: true },
      ],
    })
  })
})

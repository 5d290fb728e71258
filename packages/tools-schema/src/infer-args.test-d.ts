import type { JsonValue } from '@dsh/tools-core'
import { describe, expectTypeOf, test } from 'vitest'
import { defineParameters, defineValueSchema } from './define-parameters.js'
import type { InferArgs, InferValue } from './infer-args.js'
import type { ParameterSchemaSpec, ValueSchemaSpec } from './schema-spec.js'

// Every "Inferred type" comment of seed 003 ("Build a tool"), as written there.
describe('seed 003 inferred types', () => {
  test('primitive types', () => {
    const parameters = defineParameters({
      path: { type: 'string', required: true },
      limit: { type: 'integer' },
      recursive: { type: 'boolean' },
      parent: { type: 'null' },
    })
    expectTypeOf<InferArgs<typeof parameters>>().toEqualTypeOf<{
      path: string
      limit?: number
      recursive?: boolean
      parent?: null
    }>()
  })

  test('enums', () => {
    const parameters = defineParameters({
      mode: { type: 'string', required: true, enum: ['read', 'write', 'append'] },
    })
    expectTypeOf<InferArgs<typeof parameters>>().toEqualTypeOf<{ mode: 'read' | 'write' | 'append' }>()
  })

  test('nested objects: the declared fields are inferred; additional JSON-valued keys are allowed', () => {
    const parameters = defineParameters({
      options: {
        type: 'object',
        additionalProperties: true,
        properties: {
          timeout: { type: 'number' },
          retries: { type: 'number' },
        },
      },
    })
    type Options = NonNullable<InferArgs<typeof parameters>['options']>
    expectTypeOf<Options>().toEqualTypeOf<{ [key: string]: JsonValue; timeout?: number; retries?: number }>()
    expectTypeOf<Options['timeout']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<Options['anything']>().toEqualTypeOf<JsonValue>()
    expectTypeOf({ timeout: 1, extra: { deep: [true] } }).toExtend<Options>()
  })

  test('arrays', () => {
    const parameters = defineParameters({
      tags: {
        type: 'array',
        items: { type: 'string' },
      },
    })
    expectTypeOf<InferArgs<typeof parameters>>().toEqualTypeOf<{ tags?: string[] }>()
  })

  test('the count_files output schema', () => {
    const schema = defineValueSchema({
      type: 'object',
      additionalProperties: false,
      properties: {
        count: { type: 'integer', required: true },
        files: { type: 'array', required: true, items: { type: 'string' } },
      },
    })
    expectTypeOf<InferValue<typeof schema>>().toEqualTypeOf<{ count: number; files: string[] }>()
  })
})

describe('InferValue', () => {
  test('scalars, literals and json', () => {
    expectTypeOf<InferValue<{ type: 'string' }>>().toEqualTypeOf<string>()
    expectTypeOf<InferValue<{ type: 'integer' }>>().toEqualTypeOf<number>()
    expectTypeOf<InferValue<{ type: 'null' }>>().toEqualTypeOf<null>()
    expectTypeOf<InferValue<{ type: 'json' }>>().toEqualTypeOf<JsonValue>()
    expectTypeOf<InferValue<{ type: 'string'; const: 'edit' }>>().toEqualTypeOf<'edit'>()
    expectTypeOf<InferValue<{ type: 'integer'; enum: readonly [1, 2, 3] }>>().toEqualTypeOf<1 | 2 | 3>()
    expectTypeOf<InferValue<{ type: 'boolean'; enum: readonly [true] }>>().toEqualTypeOf<true>()
    expectTypeOf<InferValue<{ type: 'string'; enum: readonly string[] }>>().toEqualTypeOf<string>()
    expectTypeOf<InferValue<{ type: 'array' }>>().toEqualTypeOf<JsonValue[]>()
  })

  test('objects: closed, open, empty', () => {
    const closed = defineValueSchema({
      type: 'object',
      additionalProperties: false,
      properties: { a: { type: 'string', required: true }, b: { type: 'number' } },
    })
    expectTypeOf<InferValue<typeof closed>>().toEqualTypeOf<{ a: string; b?: number }>()
    expectTypeOf<InferValue<{ type: 'object'; additionalProperties: true }>>().toEqualTypeOf<{ [key: string]: JsonValue }>()
    expectTypeOf<InferValue<{ type: 'object'; additionalProperties: false }>>().toEqualTypeOf<{ [key: string]: never }>()
    // A wide boolean may be open: the type stays open.
    expectTypeOf<InferValue<{ type: 'object'; additionalProperties: boolean }>>().toEqualTypeOf<{ [key: string]: JsonValue }>()
  })

  test('oneOf is a union, e.g. a discriminated union on a const kind', () => {
    const edit = defineValueSchema({
      oneOf: [
        {
          type: 'object',
          additionalProperties: false,
          properties: { kind: { type: 'string', const: 'insert', required: true }, text: { type: 'string', required: true } },
        },
        {
          type: 'object',
          additionalProperties: false,
          properties: { kind: { type: 'string', const: 'delete', required: true }, count: { type: 'integer', required: true } },
        },
        { type: 'null' },
      ],
    })
    expectTypeOf<InferValue<typeof edit>>().toEqualTypeOf<
      { kind: 'insert'; text: string } | { kind: 'delete'; count: number } | null
    >()
  })

  test('nested arrays of objects keep required and optional keys', () => {
    const parameters = defineParameters({
      servers: {
        type: 'array',
        required: true,
        items: {
          type: 'object',
          additionalProperties: false,
          properties: { host: { type: 'string', required: true }, port: { type: 'integer' } },
        },
      },
    })
    expectTypeOf<InferArgs<typeof parameters>>().toEqualTypeOf<{ servers: { host: string; port?: number }[] }>()
  })

  test('as const satisfies works like defineParameters', () => {
    const parameters = {
      path: { type: 'string', required: true },
      mode: { type: 'string', enum: ['a', 'b'] },
    } as const satisfies ParameterSchemaSpec
    expectTypeOf<InferArgs<typeof parameters>>().toEqualTypeOf<{ path: string; mode?: 'a' | 'b' }>()
  })
})

describe('the depth bound', () => {
  test('wide spec types infer without blowing up', () => {
    expectTypeOf<InferArgs<ParameterSchemaSpec>>().toExtend<Record<string, unknown>>()
    expectTypeOf<InferValue<ValueSchemaSpec>>().toExtend<JsonValue>()
  })

  test('below the bound, values are JsonValue', () => {
    type Nest<T, Depth extends unknown[]> = Depth['length'] extends 16
      ? T
      : Nest<{ type: 'array'; items: T }, [...Depth, unknown]>
    type Deep = Nest<{ type: 'string' }, []>
    type Value = InferValue<Deep>
    // The outer levels are arrays; the innermost levels (past MaxInferDepth) are JsonValue.
    expectTypeOf<Value>().toExtend<unknown[]>()
    expectTypeOf<Value>().toExtend<JsonValue>()
    expectTypeOf<Value>().not.toEqualTypeOf<string[][][][][][][][][][][][][][][][]>()
  })
})

describe('type errors', () => {
  test('an explicit object without additionalProperties', () => {
    // @ts-expect-error additionalProperties is required on every explicit object
    defineParameters({ options: { type: 'object', properties: {} } })
    // @ts-expect-error also in a value spec
    defineValueSchema({ type: 'object' })
  })

  test('a oneOf with one branch', () => {
    // @ts-expect-error oneOf needs at least two branches
    defineValueSchema({ oneOf: [{ type: 'string' }] })
  })

  test('a wrong-typed enum or const', () => {
    // @ts-expect-error string enum with numbers
    defineParameters({ mode: { type: 'string', enum: [1, 2] } })
    // @ts-expect-error integer enum with strings
    defineParameters({ level: { type: 'integer', enum: ['low'] } })
    // @ts-expect-error boolean const with a string
    defineValueSchema({ type: 'boolean', const: 'yes' })
  })

  test('required: false', () => {
    // @ts-expect-error required is `true` or absent
    defineParameters({ path: { type: 'string', required: false } })
  })

  test('an unknown type and type next to oneOf', () => {
    // @ts-expect-error there is no 'date' type
    defineValueSchema({ type: 'date' })
    // @ts-expect-error a oneOf node has no type
    defineValueSchema({ type: 'string', oneOf: [{ type: 'string' }, { type: 'null' }] })
  })

  test('a wrong-typed default', () => {
    // @ts-expect-error a string node's default is a string
    defineParameters({ path: { type: 'string', default: 3 } })
  })
})

describe('type errors for keywords the DSL rejects', () => {
  test('unsupported JSON Schema keywords', () => {
    // @ts-expect-error format is not supported
    defineParameters({ path: { type: 'string', format: 'uri' } })
    // @ts-expect-error prefixItems is not supported
    defineValueSchema({ type: 'array', prefixItems: [] })
    // @ts-expect-error anyOf is not supported (use oneOf)
    defineValueSchema({ anyOf: [{ type: 'string' }, { type: 'null' }] })
  })

  test('value constraints on the node types they apply to, and a type error elsewhere', () => {
    const spec = defineParameters({
      path: { type: 'string', minLength: 1, maxLength: 4096, pattern: '^/', required: true },
      offset: { type: 'integer', minimum: 0, exclusiveMaximum: 1e9, multipleOf: 1 },
      ratio: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
      tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 8, uniqueItems: true },
    })
    expectTypeOf<InferArgs<typeof spec>>().toEqualTypeOf<{ path: string; offset?: number; ratio?: number; tags?: string[] }>()
    // @ts-expect-error minimum belongs to numbers
    defineValueSchema({ type: 'string', minimum: 1 })
    // @ts-expect-error minLength belongs to strings
    defineValueSchema({ type: 'integer', minLength: 1 })
    // @ts-expect-error minItems belongs to arrays
    defineValueSchema({ type: 'string', minItems: 1 })
    // @ts-expect-error pattern belongs to strings
    defineValueSchema({ type: 'array', pattern: 'x' })
    // @ts-expect-error no constraint applies to booleans
    defineValueSchema({ type: 'boolean', maxLength: 1 })
    // @ts-expect-error no constraint applies to objects
    defineValueSchema({ type: 'object', additionalProperties: true, maxItems: 1 })
    // @ts-expect-error a bound is a number
    defineValueSchema({ type: 'number', minimum: '1' })
  })

  test('misplaced keywords', () => {
    // @ts-expect-error items belongs to arrays
    defineValueSchema({ type: 'string', items: { type: 'string' } })
    // @ts-expect-error enum belongs to scalars
    defineValueSchema({ type: 'object', additionalProperties: true, enum: ['a'] })
  })
})

import type { ToolDefinition } from '@dsh/tools-core'
import { toStandardJsonSchema } from '@valibot/to-json-schema'
import { type } from 'arktype'
import * as v from 'valibot'
import { describe, expectTypeOf, test } from 'vitest'
import { defineTool, type DefinedTool } from './define-tool.js'
import type { StandardSchemaWithJsonSchema } from './standard-schema.js'

describe('defineTool with a valibot schema (toStandardJsonSchema)', () => {
  const connect = toStandardJsonSchema(v.object({ host: v.string(), port: v.optional(v.number()), retries: v.optional(v.number(), 3) }))

  test('a wrapped valibot schema is a StandardSchemaWithJsonSchema; a bare one is not (it has no jsonSchema)', () => {
    expectTypeOf(connect).toExtend<StandardSchemaWithJsonSchema>()
    expectTypeOf(v.object({ a: v.string() })).not.toExtend<StandardSchemaWithJsonSchema>()
  })

  test('a bare valibot schema as parameters is a type error (it would be refused at definition too)', () => {
    defineTool({
      name: 'connect',
      description: 'Connects.',
      // @ts-expect-error valibot schemas need toStandardJsonSchema
      parameters: v.object({ host: v.string() }),
      execute: () => 'ok',
    })
  })

  test('execute and the presenters get the output type (defaults applied)', () => {
    const tool = defineTool({
      name: 'connect',
      description: 'Connects.',
      parameters: connect,
      execute(args) {
        expectTypeOf(args).toEqualTypeOf<{ host: string; port?: number | undefined; retries: number }>()
        return 'ok'
      },
      presentCall(args) {
        expectTypeOf(args.retries).toEqualTypeOf<number>()
        return undefined
      },
    })
    expectTypeOf(tool).toExtend<ToolDefinition>()
    expectTypeOf(tool.invoke).parameter(0).toEqualTypeOf<{ host: string; port?: number | undefined; retries: number }>()
  })

  test('a valibot output schema: the body returns its input type, render and invoke see its output type', () => {
    const tool = defineTool({
      name: 'lookup',
      description: 'Looks up.',
      parameters: toStandardJsonSchema(v.object({ id: v.string() })),
      output: {
        schema: toStandardJsonSchema(v.object({ id: v.string(), tags: v.optional(v.array(v.string()), []) })),
        render: (args, value) => {
          expectTypeOf(args).toEqualTypeOf<{ id: string }>()
          expectTypeOf(value).toEqualTypeOf<{ id: string; tags: string[] }>()
          return value.id
        },
      },
      execute: (args) => ({ id: args.id }),
    })
    expectTypeOf(tool).toEqualTypeOf<DefinedTool<{ id: string }, { id: string; tags: string[] }>>()
  })

  test('reading an undeclared property, or returning the wrong output type, is a type error', () => {
    defineTool({
      name: 'lookup',
      description: 'Looks up.',
      parameters: toStandardJsonSchema(v.object({ id: v.string() })),
      output: { schema: toStandardJsonSchema(v.object({ id: v.string() })), render: (_args, value) => value.id },
      // @ts-expect-error id must be a string
      execute: () => ({ id: 1 }),
    })
    defineTool({
      name: 'connect',
      description: 'Connects.',
      parameters: connect,
      execute(args) {
        // @ts-expect-error not declared
        return args.user
      },
    })
  })
})

describe('defineTool with an arktype type', () => {
  const connect = type({ host: 'string', 'port?': 'number', retries: 'number = 3' })

  test('an arktype type is a StandardSchemaWithJsonSchema', () => {
    expectTypeOf(connect).toExtend<StandardSchemaWithJsonSchema>()
  })

  test('execute and the presenters get the output type (defaults applied)', () => {
    const tool = defineTool({
      name: 'connect',
      description: 'Connects.',
      parameters: connect,
      execute(args) {
        expectTypeOf(args).toEqualTypeOf<{ host: string; port?: number; retries: number }>()
        return 'ok'
      },
      presentCall(args) {
        expectTypeOf(args.retries).toEqualTypeOf<number>()
        return undefined
      },
    })
    expectTypeOf(tool).toExtend<ToolDefinition>()
    expectTypeOf(tool.invoke).parameter(0).toEqualTypeOf<{ host: string; port?: number; retries: number }>()
  })

  test('an arktype output schema: the body returns its input type, render and invoke see its output type', () => {
    const tool = defineTool({
      name: 'lookup',
      description: 'Looks up.',
      parameters: type({ id: 'string' }),
      output: {
        schema: type({ id: 'string', tags: 'string[] = []' }),
        render: (args, value) => {
          expectTypeOf(args).toEqualTypeOf<{ id: string }>()
          expectTypeOf(value).toEqualTypeOf<{ id: string; tags: string[] }>()
          return value.id
        },
      },
      execute: (args) => ({ id: args.id }),
    })
    expectTypeOf(tool).toEqualTypeOf<DefinedTool<{ id: string }, { id: string; tags: string[] }>>()
  })

  test('reading an undeclared property, or returning the wrong output type, is a type error', () => {
    defineTool({
      name: 'lookup',
      description: 'Looks up.',
      parameters: type({ id: 'string' }),
      output: { schema: type({ id: 'string' }), render: (_args, value) => value.id },
      // @ts-expect-error id must be a string
      execute: () => ({ id: 1 }),
    })
    defineTool({
      name: 'connect',
      description: 'Connects.',
      parameters: connect,
      execute(args) {
        // @ts-expect-error not declared
        return args.user
      },
    })
  })
})

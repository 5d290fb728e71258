import type { ToolDefinition } from '@dsh/tools-core'
import { describe, expectTypeOf, test } from 'vitest'
import { z } from 'zod'
import { defineTool, type DefinedTool } from './define-tool.js'
import type { StandardSchemaWithJsonSchema } from './standard-schema.js'

describe('defineTool with a zod schema', () => {
  test('a zod 4 schema is a StandardSchemaWithJsonSchema', () => {
    expectTypeOf(z.object({ a: z.string() })).toExtend<StandardSchemaWithJsonSchema<{ a: string }, { a: string }>>()
  })

  test('execute gets the output type of the parameters schema (defaults applied)', () => {
    const tool = defineTool({
      name: 'connect',
      description: 'Connects.',
      parameters: z.object({ host: z.string(), port: z.number().optional(), retries: z.number().default(3) }),
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

  test('a zod output schema: the body returns its input type, render and invoke see its output type', () => {
    const tool = defineTool({
      name: 'lookup',
      description: 'Looks up.',
      parameters: z.object({ id: z.string() }),
      output: {
        schema: z.object({ id: z.string(), tags: z.array(z.string()).default([]) }),
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

  test('DSL parameters with a zod output schema', () => {
    const tool = defineTool({
      name: 'count',
      description: 'Counts.',
      parameters: { text: { type: 'string', required: true } },
      output: { schema: z.object({ words: z.number() }), render: (_args, value) => String(value.words) },
      execute: (args) => ({ words: args.text.split(' ').length }),
    })
    expectTypeOf(tool.invoke).returns.toEqualTypeOf<Promise<{ words: number }>>()
  })

  test('a body returning the wrong type for a zod output schema is a type error', () => {
    defineTool({
      name: 'lookup',
      description: 'Looks up.',
      parameters: z.object({ id: z.string() }),
      output: { schema: z.object({ id: z.string() }), render: (_args, value) => value.id },
      // @ts-expect-error id must be a string
      execute: () => ({ id: 1 }),
    })
  })

  test('reading a property the zod schema does not declare is a type error', () => {
    defineTool({
      name: 'connect',
      description: 'Connects.',
      parameters: z.object({ host: z.string() }),
      execute(args) {
        // @ts-expect-error not declared
        return args.port
      },
    })
  })
})

describe('a Standard JSON Schema whose converter names the targets it supports', () => {
  /** As the MCP SDK and some libraries declare it: a union of dialects, not `string`. */
  interface NarrowTargetSchema {
    readonly '~standard': {
      readonly version: 1
      readonly vendor: string
      readonly types?: { readonly input: { q: string }; readonly output: { q: string } } | undefined
      readonly validate: (value: unknown) => { readonly value: { q: string }; readonly issues?: undefined }
      readonly jsonSchema: {
        readonly input: (options: { readonly target: 'draft-2020-12' | 'draft-07' }) => Record<string, unknown>
        readonly output: (options: { readonly target: 'draft-2020-12' | 'draft-07' }) => Record<string, unknown>
      }
    }
  }

  test('is accepted as parameters and as output.schema, with its types inferred', () => {
    const schema = null as unknown as NarrowTargetSchema
    expectTypeOf(schema).toExtend<StandardSchemaWithJsonSchema<{ q: string }, { q: string }>>()
    defineTool({
      name: 'narrow',
      description: 'Narrow targets.',
      parameters: schema,
      output: { schema, render: (_args, value) => value.q },
      execute(args) {
        expectTypeOf(args).toEqualTypeOf<{ q: string }>()
        return args
      },
    })
  })

  test('a converter that cannot produce draft 2020-12 is refused', () => {
    interface Draft07Only {
      readonly '~standard': Omit<NarrowTargetSchema['~standard'], 'jsonSchema'> & {
        readonly jsonSchema: {
          readonly input: (options: { readonly target: 'draft-07' }) => Record<string, unknown>
          readonly output: (options: { readonly target: 'draft-07' }) => Record<string, unknown>
        }
      }
    }
    expectTypeOf<Draft07Only>().not.toExtend<StandardSchemaWithJsonSchema>()
  })
})

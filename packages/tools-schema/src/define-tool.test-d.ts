import type { ContentBlock, ToolArgumentsCheck, ToolDefinition, ToolExecuteObjectReturn, ToolExecution, ToolExecutionPolicy } from '@dsh/tools-core'
import { describe, expectTypeOf, test } from 'vitest'
import { defineTool, type DefinedTool } from './define-tool.js'

describe('defineTool typing', () => {
  test('seed 003 minimal example: args and the output value are inferred', () => {
    const tool = defineTool({
      name: 'greet',
      description: 'Greet someone by name.',
      parameters: {
        name: { type: 'string', required: true, description: 'The name to greet' },
      },
      output: {
        schema: { type: 'string' },
        render: (_args, value) => {
          expectTypeOf(value).toEqualTypeOf<string>()
          return [{ type: 'text', text: value }]
        },
      },
      async execute(args) {
        expectTypeOf(args).toEqualTypeOf<{ name: string }>()
        return `Hello, ${args.name}!`
      },
    })
    expectTypeOf(tool).toExtend<ToolDefinition>()
    expectTypeOf(tool).toEqualTypeOf<DefinedTool<{ name: string }, string>>()
    expectTypeOf(tool.invoke).parameter(0).toEqualTypeOf<{ name: string }>()
    expectTypeOf(tool.invoke).returns.toEqualTypeOf<Promise<string>>()
  })

  test('seed 003 complete example: count_files', () => {
    const tool = defineTool({
      name: 'count_files',
      description: 'Count files in a directory.',
      parameters: {
        path: { type: 'string', required: true, description: 'Directory path' },
        extension: { type: 'string', description: 'Filter by extension (e.g. ".ts")' },
      },
      output: {
        schema: {
          type: 'object',
          additionalProperties: false,
          properties: {
            count: { type: 'integer', required: true },
            files: { type: 'array', required: true, items: { type: 'string' } },
          },
        },
        render: (_args, value) => [{ type: 'text', text: `Found ${value.count} files.` }],
      },
      async execute(args, exec) {
        expectTypeOf(args).toEqualTypeOf<{ path: string; extension?: string }>()
        expectTypeOf(exec).toEqualTypeOf<ToolExecution>()
        return { count: 0, files: [] }
      },
      presentResult(args, result) {
        expectTypeOf(args.path).toEqualTypeOf<string>()
        // No presentationMeta: the canonical value is not a replayable projection, so there is no meta.
        expectTypeOf(result.meta).toEqualTypeOf<undefined>()
        expectTypeOf(result).not.toHaveProperty('structuredContent')
        return undefined
      },
    })
    expectTypeOf(tool.invoke).returns.toEqualTypeOf<Promise<{ count: number; files: string[] }>>()
    expectTypeOf(tool.validateArguments).returns.toEqualTypeOf<ToolArgumentsCheck>()
  })

  test('user guide 003: presentationMeta(args, value) types the meta presentResult reads', () => {
    defineTool({
      name: 'count_files',
      description: 'Count files in a directory.',
      parameters: { path: { type: 'string', required: true } },
      output: {
        schema: {
          type: 'object',
          additionalProperties: false,
          properties: { count: { type: 'integer', required: true }, files: { type: 'array', required: true, items: { type: 'string' } } },
        },
        render: (_args, value) => `Found ${value.count} files.`,
        presentationMeta: (args, value) => {
          expectTypeOf(args).toEqualTypeOf<{ path: string }>()
          expectTypeOf(value).toEqualTypeOf<{ count: number; files: string[] }>()
          return { path: args.path, shown: value.files.slice(0, 3) }
        },
      },
      execute: async () => ({ count: 0, files: [] }),
      presentResult(_args, result) {
        expectTypeOf(result.meta).toEqualTypeOf<{ path: string; shown: string[] } | undefined>()
        return result.meta === undefined ? undefined : { card: 'generic', title: result.meta.path }
      },
    })
  })

  test('seed 001/004 content form: content blocks, a string, or { content, meta }', () => {
    const blocks = defineTool({
      name: 'read_file',
      description: 'Read a file from disk.',
      parameters: {
        path: { type: 'string', required: true, description: 'Absolute file path' },
        offset: { type: 'number' },
        limit: { type: 'number' },
      },
      async execute(args) {
        expectTypeOf(args).toEqualTypeOf<{ path: string; offset?: number; limit?: number }>()
        return [{ type: 'text', text: args.path }]
      },
      presentCall(args) {
        expectTypeOf(args).toEqualTypeOf<{ path: string; offset?: number; limit?: number }>()
        return { card: 'generic', title: args.path, kind: 'read' }
      },
    })
    expectTypeOf(blocks.invoke).returns.toEqualTypeOf<Promise<ToolExecuteObjectReturn>>()
    defineTool({ name: 'a', description: 'd', parameters: {}, execute: () => 'text' })
    defineTool({ name: 'b', description: 'd', parameters: {}, execute: async () => ({ content: [], meta: { exit: 0 } }) })
  })

  test('the body must return what output.schema declares', () => {
    defineTool({
      name: 'wrong',
      description: 'd',
      parameters: {},
      output: { schema: { type: 'integer' }, render: (_args, value) => String(value) },
      // @ts-expect-error a string is not the declared integer
      execute: async () => 'not a number',
    })
  })

  test('without output, the body returns content', () => {
    defineTool({
      name: 'wrong',
      description: 'd',
      parameters: {},
      // @ts-expect-error a number is not content
      execute: async () => 42,
    })
  })

  test('title and annotations: a string and the MCP hints, as booleans', () => {
    const tool = defineTool({
      name: 'read',
      description: 'd',
      title: 'Read a file',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      parameters: {},
      execute: () => 'x',
    })
    expectTypeOf(tool.title).toEqualTypeOf<string | undefined>()
    expectTypeOf(tool.annotations?.readOnlyHint).toEqualTypeOf<boolean | undefined>()
    defineTool({
      name: 'bad',
      description: 'd',
      // @ts-expect-error hints are booleans
      annotations: { readOnlyHint: 'yes' },
      parameters: {},
      execute: () => 'x',
    })
    defineTool({
      name: 'bad',
      description: 'd',
      // @ts-expect-error a title is a string
      title: 42,
      parameters: {},
      execute: () => 'x',
    })
  })

  test('render returns content blocks or a string', () => {
    const render = (_args: object, value: string): ContentBlock[] | string => value
    defineTool({
      name: 'ok',
      description: 'd',
      parameters: {},
      output: { schema: { type: 'string' }, render },
      execute: () => 'x',
    })
  })

  test('args are typed for enums, nested objects and oneOf', () => {
    defineTool({
      name: 'edit',
      description: 'd',
      parameters: {
        mode: { type: 'string', required: true, enum: ['read', 'write'] },
        change: {
          required: true,
          oneOf: [
            { type: 'object', additionalProperties: false, properties: { kind: { type: 'string', const: 'a', required: true } } },
            { type: 'object', additionalProperties: false, properties: { kind: { type: 'string', const: 'b', required: true }, n: { type: 'integer' } } },
          ],
        },
      },
      execute(args) {
        expectTypeOf(args.mode).toEqualTypeOf<'read' | 'write'>()
        expectTypeOf(args.change).toEqualTypeOf<{ kind: 'a' } | { kind: 'b'; n?: number }>()
        return []
      },
    })
  })
})

describe('execution', () => {
  test('takes the task policy, and the body sees the declared parameters only', () => {
    const tool = defineTool({
      name: 'slow_job',
      description: 'd',
      parameters: { size: { type: 'integer', required: true } },
      execution: { background: 'optional', autoBackgroundAfterMs: 1_000, maxRuntimeMs: 60_000 },
      execute(args) {
        expectTypeOf(args).toEqualTypeOf<{ size: number }>()
        return 'ok'
      },
    })
    expectTypeOf(tool.execution).toEqualTypeOf<ToolExecutionPolicy | undefined>()
    defineTool({
      name: 'slow_job',
      description: 'd',
      parameters: {},
      // @ts-expect-error -- not a background mode
      execution: { background: 'later' },
      execute: () => 'ok',
    })
  })
})

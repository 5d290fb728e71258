import * as schema from '@dsh/tools-schema'
import type { Context } from 'cordis'
import { describe, expectTypeOf, it } from 'vitest'
import { defineTool, type DefinedTool, type InferArgs, type ToolRegistry } from './index.js'

declare const ctx: Context

describe('defineTool from @dsh/tools-registry', () => {
  it('is the tools-schema helper, with the same inference', () => {
    expectTypeOf(defineTool).toEqualTypeOf(schema.defineTool)
    const tool = defineTool({
      name: 'echo',
      description: 'Echoes text.',
      parameters: { text: { type: 'string', required: true }, times: { type: 'integer' } },
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ text: string; times?: number }>()
        return args.text
      },
    })
    expectTypeOf(tool.invoke).parameter(0).toEqualTypeOf<{ text: string; times?: number }>()
    expectTypeOf(tool).toExtend<DefinedTool<{ text: string; times?: number }, unknown>>()
    type Spec = { n: { type: 'number'; required: true } }
    expectTypeOf<InferArgs<Spec>>().toEqualTypeOf<schema.InferArgs<Spec>>()
  })

  it('comes with the ctx.tools typing', () => {
    expectTypeOf(ctx.tools).toEqualTypeOf<ToolRegistry>()
  })
})

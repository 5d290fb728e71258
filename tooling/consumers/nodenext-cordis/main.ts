// A harness type-checked with module and moduleResolution NodeNext (TypeScript's choice for Node.js), using the
// cordis types shim: `paths` maps `cordis` to a CommonJS-scoped copy of its declarations. Node.js itself still loads
// the real cordis; the shim is for the type-checker only.
import { defineTool, ToolRegistry } from '@dsh/tools-registry'
import { Context } from 'cordis'

const ctx = new Context()
await ctx.plugin(ToolRegistry)

// A plugin of our own: the `ctx.tools` typing comes from the registry's `declare module 'cordis'`, which must
// augment the same module the shim provides.
function apply(pluginCtx: Context): void {
  pluginCtx.tools.register(
    defineTool({
      name: 'add',
      description: 'Add two integers.',
      parameters: { a: { type: 'integer', required: true }, b: { type: 'integer', required: true } },
      execute: ({ a, b }) => String(a + b),
    }),
  )
}
await ctx.plugin({ name: 'add-tool', inject: ['tools'], apply })

const tools: ToolRegistry = ctx.tools
console.log(`schemas: ${tools.schemas().map((schema) => schema.name).join(', ')}`)
const result = await tools.execute({ callId: 'call_1', name: 'add', arguments: { a: 2, b: 3 } })
const first = result.content[0]
console.log(`sum: ${first?.type === 'text' ? first.text : '(none)'} isError ${result.isError}`)

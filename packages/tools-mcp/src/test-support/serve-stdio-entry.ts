// What serve-stdio-child.mjs runs: a registry with two tools, served on this process's stdin/stdout. The process
// ends when its client closes stdin or sends SIGTERM.
import { defineTool, ToolRegistry } from '@dsh/tools-registry'
import { Context } from 'cordis'
import { serveUntilClosed } from './serve-until-closed.js'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
ctx.tools.register(
  defineTool({
    name: 'add',
    description: 'Adds two numbers.',
    parameters: { a: { type: 'number', required: true }, b: { type: 'number', required: true } },
    concurrencySafe: true,
    // What the client reads: the author's declaration, never derived from concurrencySafe.
    title: 'Add two numbers',
    annotations: { readOnlyHint: true },
    output: {
      schema: { type: 'object', additionalProperties: false, properties: { sum: { type: 'number', required: true } } },
      render: (_args, value) => `The sum is ${value.sum}.`,
    },
    execute: ({ a, b }) => ({ sum: a + b }),
  }),
)
ctx.tools.register(defineTool({ name: 'pid', description: 'The serving process id.', parameters: {}, execute: () => String(process.pid) }))
// Changes the registry while a client is connected: the client should hear list_changed and list `grown`.
ctx.tools.register(
  defineTool({
    name: 'grow',
    description: 'Registers the tool grown.',
    parameters: {},
    execute: () => {
      if (ctx.tools.get('grown') === undefined) ctx.tools.register(defineTool({ name: 'grown', description: 'Registered by grow.', parameters: {}, execute: () => 'grown' }))
      return 'grew'
    },
  }),
)

await serveUntilClosed(ctx)
process.stderr.write(`serving a registry over stdio as ${process.pid}\n`)

// An entry for serve-stdio-child.mjs (its first argument): a registry served on this process's stdin/stdout whose
// tools write to stdout the way real code does (`console.log`, `process.stdout.write` without a newline), beside a
// tool with a declared title and hints and one that a policy listener asks about. The process ends when its client
// closes stdin or sends SIGTERM.
import { defineTool, ToolRegistry } from '@dsh/tools-registry'
import { Context } from 'cordis'
import { serveUntilClosed } from './serve-until-closed.js'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
ctx.tools.register(
  defineTool({
    name: 'noisy',
    description: 'Logs to stdout, then answers.',
    parameters: {},
    execute: () => {
      console.log('tool log line')
      console.info({ note: 'an object logged with console.info' })
      // No newline: the next protocol message would start with this text.
      process.stdout.write('partial line without newline')
      return 'quiet result'
    },
  }),
)
ctx.tools.register(
  defineTool({
    name: 'read_notes',
    description: 'Reads the notes.',
    title: 'Read the notes',
    annotations: { readOnlyHint: true, openWorldHint: false },
    concurrencySafe: true,
    parameters: {},
    execute: () => 'the notes',
  }),
)
ctx.tools.register(
  defineTool({
    name: 'rm',
    description: 'Removes a file (pretends to).',
    parameters: { path: { type: 'string', required: true } },
    execute: ({ path }) => `removed ${path}`,
  }),
)
ctx.tools.on('tools/pre-execute', (exec, next) => (exec.name === 'rm' ? { kind: 'ask', reason: 'it deletes a file' } : next()))

await serveUntilClosed(ctx)

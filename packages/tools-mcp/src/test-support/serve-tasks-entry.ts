// An entry for serve-stdio-child.mjs (its first argument): a registry with `slow`, a tool that may run as a task
// (700 ms, foreground budget 200 ms), served on this process's stdin/stdout. It appends `aborted` to the file named by
// TASK_MARKER when its `exec.signal` aborts, so a test in another process sees that a `tasks/cancel` reached it.
import { appendFileSync } from 'node:fs'
import { defineTool, ToolRegistry } from '@dsh/tools-registry'
import { Context } from 'cordis'
import { serveUntilClosed } from './serve-until-closed.js'

const marker = process.env.TASK_MARKER as string
const ctx = new Context()
await ctx.plugin(ToolRegistry)
ctx.tools.register(
  defineTool({
    name: 'slow',
    description: 'Takes 700 ms.',
    parameters: {},
    concurrencySafe: true,
    execution: { background: 'optional', autoBackgroundAfterMs: 200 },
    execute: (_args, exec) =>
      new Promise<string>((resolve) => {
        const timer = setTimeout(() => resolve('slow done'), 700)
        exec.signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer)
            appendFileSync(marker, 'aborted\n')
            resolve('aborted')
          },
          { once: true },
        )
      }),
  }),
)

await serveUntilClosed(ctx)

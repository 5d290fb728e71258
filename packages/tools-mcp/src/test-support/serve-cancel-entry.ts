// An entry for serve-stdio-child.mjs (its first argument): a registry with one tool, `wait`, served on this process's
// stdin/stdout. `wait` runs until its `exec.signal` aborts; it appends `started` and then `aborted <reason>` to the
// file named by CANCEL_MARKER, so a test in another process sees whether a client's cancellation reached the tool.
import { appendFileSync } from 'node:fs'
import { defineTool, ToolRegistry } from '@dsh/tools-registry'
import { Context } from 'cordis'
import { serveUntilClosed } from './serve-until-closed.js'

const marker = process.env.CANCEL_MARKER as string
const ctx = new Context()
await ctx.plugin(ToolRegistry)
ctx.tools.register(
  defineTool({
    name: 'wait',
    description: 'Waits until the call is cancelled.',
    parameters: {},
    execute: (_args, exec) =>
      new Promise<string>((resolve) => {
        appendFileSync(marker, 'started\n')
        exec.signal.addEventListener(
          'abort',
          () => {
            appendFileSync(marker, `aborted ${String(exec.signal.reason)}\n`)
            resolve('aborted')
          },
          { once: true },
        )
      }),
  }),
)

await serveUntilClosed(ctx)

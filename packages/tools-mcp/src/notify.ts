import type { Context } from 'cordis'
import type { McpListenEvent, McpProgressEvent, McpServerStatus } from './mcp-events.js'

/** The events tools-mcp tells its observers of, with what each carries. */
interface Notices {
  'mcp/status': McpServerStatus
  'mcp/progress': McpProgressEvent
  'mcp/listen': McpListenEvent
}

function text(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error)
  } catch {
    return 'an unprintable value'
  }
}

/**
 * Tells the observers of `name` (cordis `ctx.on`), each called synchronously as `ctx.emit` would call it, and observes
 * what they do: a throw, or the rejection of the promise an `async` observer returns, is logged on the `mcp` logger
 * and changes nothing here. Never throws, never leaves a rejection unhandled.
 */
export function notify<Name extends keyof Notices>(ctx: Context, name: Name, payload: Notices[Name]): void {
  const report = (error: unknown): void => {
    try {
      const reasons = error instanceof AggregateError ? error.errors : [error]
      for (const reason of reasons) ctx.logger('mcp').warn(`an ${name} observer failed: ${text(reason)}`)
    } catch {
      // A logger that throws must not turn a notice into a failure.
    }
  }
  try {
    // `parallel` calls every listener at once, as `emit` does, and settles when they have: a rejection is ours to see.
    ;(ctx.parallel as (name: string, payload: unknown) => Promise<void>).call(ctx, name, payload).then(undefined, report)
  } catch (error) {
    report(error)
  }
}

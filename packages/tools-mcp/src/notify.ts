import { notifyListeners } from '@dsh/tools-registry'
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
 * Tells the observers of `name` (cordis `ctx.on`), each called synchronously as `ctx.emit` would call it: one that
 * throws, or an `async` one whose promise rejects, is logged on the `mcp` logger and changes nothing here.
 */
export function notify<Name extends keyof Notices>(ctx: Context, name: Name, payload: Notices[Name]): void {
  notifyListeners(ctx, name, [payload], (reason) => ctx.logger('mcp').warn(`an ${name} observer failed: ${text(reason)}`))
}

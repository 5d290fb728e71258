// The SDK's `Server` validates every `tools/call` result as a `CallToolResult` (`_wrapHandler`). A task result is not
// one: on a 2025-era connection the SDK refuses a `CreateTaskResult` (-32602, "content is required when the body
// carries 'task'"), and on a 2026-07-28 one it passes `resultType: 'task'` through but adds `content: []` to it.
// The SDK 2.4 has no tasks runtime, so this subclass lets a result marked with `taskResult` leave the handler as it is,
// through the SDK's own hook for role-specific handler wrapping; everything else (request validation, the
// input-required seam, result validation) stays the SDK's.
import { Server, type JSONRPCRequest, type Result, type ServerContext } from '@modelcontextprotocol/server'

const marked = new WeakSet<object>()

/** Marks `result` as a task result (`CreateTaskResult` of either generation) for {@link TaskResultServer}. */
export function taskResult<T extends object>(result: T): T {
  marked.add(result)
  return result
}

/** Carries a marked result past the SDK's `tools/call` result validation. */
class TaskResultEscape {
  constructor(readonly result: object) {}
}

type WrappedHandler = (request: JSONRPCRequest, context: ServerContext) => Promise<Result>

/** A `Server` whose `tools/call` handler may answer with a task result (see {@link taskResult}). */
export class TaskResultServer extends Server {
  protected override _wrapHandler(method: string, handler: WrappedHandler): WrappedHandler {
    if (method !== 'tools/call') return super._wrapHandler(method, handler)
    const validated = super._wrapHandler(method, async (request, context) => {
      const result = await handler(request, context)
      if (marked.has(result)) throw new TaskResultEscape(result)
      return result
    })
    return async (request, context) => {
      try {
        return await validated(request, context)
      } catch (error) {
        if (error instanceof TaskResultEscape) return error.result as Result
        throw error
      }
    }
  }
}

import { AsyncLocalStorage } from 'node:async_hooks'
import type { ToolExecution } from '@dsh/tools-core'
import { withServedContext, type ServedCallInfo } from '../trace-context.js'

/** The served call whose `ctx.tools.execute` is running in this async context. */
const running = new AsyncLocalStorage<ServedCallInfo>()
/** Executions already matched, so a later read (outside the call's async context) still answers. */
const matched = new WeakMap<object, ServedCallInfo>()

/**
 * What the MCP request that started `execution` said, when `execution` is a `tools/call` served by
 * `createToolServer` (and so `serveToolsHttp`, `serveToolsStdio`, `createToolsHttpHandler`): the request's JSON-RPC
 * id, the session id, the protocol revision, the transport. `undefined` for every other call, sub-calls of a served
 * call included. Read it in a registry listener (`tools/pre-execute`, `tools/execute`, `tools/result`) of the call:
 * it is found from the call's async context the first time, and remembered for that execution object after.
 */
export function servedCallInfo(execution: Readonly<ToolExecution>): ServedCallInfo | undefined {
  if (typeof execution !== 'object' || execution === null) return undefined
  const known = matched.get(execution)
  if (known !== undefined) return known
  const info = running.getStore()
  if (info === undefined || execution.parent !== undefined || execution.callId !== info.callId) return undefined
  matched.set(execution, info)
  return info
}

/**
 * Runs a served call's `ctx.tools.execute` (`run`) so that {@link servedCallInfo} knows it and, with
 * `@opentelemetry/api` installed, in the trace context extracted from the request's `_meta`.
 */
export function runServedCall<T>(info: ServedCallInfo, meta: unknown, run: () => Promise<T>): Promise<T> {
  return running.run(info, () => withServedContext(meta, info, run))
}

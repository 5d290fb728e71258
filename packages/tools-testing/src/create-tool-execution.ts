import {
  createToolExecutionToken,
  snapshotJson,
  type Agent,
  type CallId,
  type ToolExecution,
  type ToolExecutionToken,
} from '@dsh/tools-core'
import { InvalidTestOptionError } from './invalid-test-option-error.js'

/** Options of {@link createToolExecution}. */
export interface ToolExecutionOptions {
  /** The tool the call is for. */
  readonly name: string
  /** The call's arguments (default `{}`): copied into detached, deep-frozen lossless JSON, as the registry does. */
  readonly arguments?: unknown
  /** The model's id for the call (default `test_call_<n>`, a fresh one each time). */
  readonly callId?: CallId | undefined
  /** The call's signal (default: one that never fires). */
  readonly signal?: AbortSignal | undefined
  /** The agent the call runs for (default none). */
  readonly agent?: Agent | undefined
  /** The token of an enclosing execution, for a sub-dispatch (default none). */
  readonly parent?: ToolExecutionToken | undefined
}

let nextCallId = 1

/**
 * Builds the `ToolExecution` a tool's `execute(args, exec)` or a `defineTool` tool's `invoke(args, exec)` receives
 * from the registry, for unit tests that call a tool directly: a fresh `token` (`createToolExecutionToken`), a
 * `callId`, the arguments as detached, deep-frozen lossless JSON, and always a `signal`. The identity fields are
 * read-only, as in the pipeline; only `signal` may be reassigned.
 *
 * @example
 * ```ts
 * const exec = createToolExecution({ name: 'word_count', arguments: { text: 'a b' } })
 * const value = await wordCountTool.invoke(exec.arguments, exec)
 * ```
 * @throws {@link InvalidTestOptionError} when `name` is not a string, `signal` not an `AbortSignal`, or the
 * arguments are not lossless JSON.
 */
export function createToolExecution(options: ToolExecutionOptions): ToolExecution {
  const { name, callId, signal, agent, parent } = options
  if (typeof name !== 'string') throw new InvalidTestOptionError('name', 'expected a string')
  if (callId !== undefined && typeof callId !== 'string') throw new InvalidTestOptionError('callId', 'expected a string')
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new InvalidTestOptionError('signal', 'expected an AbortSignal')
  const snapshot = snapshotJson(options.arguments === undefined ? {} : options.arguments)
  if (!snapshot.ok) throw new InvalidTestOptionError('arguments', snapshot.error.message)
  const execution = { signal: signal ?? new AbortController().signal } as ToolExecution
  const fixed = (value: unknown): PropertyDescriptor => ({ value, enumerable: true, writable: false, configurable: false })
  Object.defineProperties(execution, {
    callId: fixed(callId ?? `test_call_${nextCallId++}`),
    name: fixed(name),
    arguments: fixed(snapshot.value),
    agent: fixed(agent),
    parent: fixed(parent),
    token: fixed(createToolExecutionToken(`dsh.tool-execution(${name})`)),
  })
  return Object.seal(execution)
}

import type { TaskProgress, ToolExecution } from '@dsh/tools-core'

/**
 * What a tool's body gets when its call runs as a task: `taskOf(exec)`. Everything it reports goes to UIs, MCP
 * clients and `task_output` readers; progress and status never reach the model's context by themselves.
 */
export interface TaskContext {
  /** The task's id. */
  readonly id: string
  /**
   * The task's own signal: fired by `task_kill`, by the task's maximum run time, and when the task layer is
   * unloaded; while the call is still in the foreground, by the caller's abort too. Use it, not a signal read later
   * from `exec.signal`: once the call has moved to the background, `exec.signal` is the finished call's and never
   * fires.
   */
  readonly signal: AbortSignal
  /** Appends output (a string is UTF-8): windowed in memory, spilled beyond, read back by `task_output`. */
  output(chunk: string | Uint8Array): void
  /** Reports progress (UIs and MCP). */
  progress(progress: TaskProgress): void
  /** Sets the task's status message (UIs and MCP's `statusMessage`). */
  status(message: string): void
}

/**
 * The task context of each execution running as a task (set by the layer's wrapper, for the body to find). One map
 * per process, whichever copy of this package set or reads it: a harness that ends up with two installed copies
 * (the layer from one, a tool package's `taskOf` from another) still finds the context.
 */
const contexts: WeakMap<object, TaskContext> = ((globalThis as Record<symbol, unknown>)[Symbol.for('@dsh/tool-tasks/task-contexts')] ??= new WeakMap<
  object,
  TaskContext
>()) as WeakMap<object, TaskContext>

/**
 * The task context of `exec` when its call runs as a task (it was started in the background, or may move there),
 * `undefined` otherwise. Call it at the start of the body, with the `exec` the body was given.
 */
export function taskOf(exec: Readonly<ToolExecution>): TaskContext | undefined {
  return contexts.get(exec)
}

/** Attaches `context` to `exec` (the layer's wrapper, before the body runs). */
export function attachTaskContext(exec: Readonly<ToolExecution>, context: TaskContext): void {
  contexts.set(exec, context)
}

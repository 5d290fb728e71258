import type { ContentBlock, TaskStatus, ToolErrorInfo } from '@dsh/tools-core'

/**
 * What a store keeps of a finished task's result: exactly what the model was shown when `task_output` delivered it
 * (after `tools/post-execute` review), never the body's own result before that review. A task whose result was never
 * delivered has none in the store: after a restart it reads as "the host restarted before its result was read".
 */
export interface StoredTaskResult {
  readonly content: readonly ContentBlock[]
  readonly isError: boolean
  readonly error?: ToolErrorInfo | undefined
}

/** One task as a store keeps it: JSON, written when it starts and at each change that matters. */
export interface StoredTask {
  /** The task's id (unique across restarts: a store never sees one twice for two tasks). */
  readonly id: string
  /** The owner's `Agent.id`, or `null` for a call without an agent. */
  readonly owner: string | null
  readonly tool: string
  readonly callId: string
  readonly title: string
  readonly status: TaskStatus
  readonly startedAt: number
  readonly endedAt?: number | undefined
  /** Why it failed or was cancelled, when it did. */
  readonly error?: ToolErrorInfo | undefined
  /** The delivered result (see {@link StoredTaskResult}), once `task_output` has delivered it. */
  readonly result?: StoredTaskResult | undefined
  /** Where its output beyond the in-memory window went, if anywhere (a file the layer wrote). */
  readonly spillPath?: string | undefined
  /** Output bytes it produced in all. */
  readonly outputBytes: number
}

/**
 * Where the task layer keeps tasks across host restarts. The layer calls `load` once when it starts (before it
 * accepts a call), `save` when a task starts and whenever its status, delivered result or spill path changes (the
 * latest record of an id wins), `drop` when a task is forgotten (retention, eviction, `task_kill` of a finished
 * one), and `close` when it is unloaded. `save` and `drop` must not throw for a well-formed record; a store that
 * cannot write reports it through `onError` and keeps going (the task layer's in-memory state stays authoritative
 * while the host runs).
 */
export interface TaskStore {
  /** Every task the store holds, latest record per id, in start order. */
  load(): Promise<StoredTask[]>
  /** Records `task` (a new one, or a newer version of an id already saved). */
  save(task: StoredTask): void
  /** Forgets the task `id`. */
  drop(id: string): void
  /** Flushes and releases the store (no call after it). */
  close(): Promise<void>
}

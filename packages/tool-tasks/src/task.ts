import {
  isTerminalTaskStatus,
  type Agent,
  type ContentBlock,
  type TaskProgress,
  type TaskSnapshot,
  type TaskStatus,
  type ToolErrorInfo,
} from '@dsh/tools-core'
import { TaskOutput, type TaskOutputLimits } from './task-output.js'

/** The body's own result, as the task keeps it until `task_output` delivers it (a frozen JSON snapshot). */
export interface TaskFinal {
  readonly content: readonly ContentBlock[]
  readonly isError: boolean
  readonly error?: ToolErrorInfo | undefined
  readonly meta?: unknown
  readonly structuredContent?: unknown
}

/** Who started a task: the agent (held weakly, with the chain of its parents for notices) and its id. */
export interface TaskOwner {
  /** The agent itself while it lives (`undefined`: a call without an agent, or a task restored from a store). */
  readonly agent: WeakRef<Agent> | undefined
  /** Its parents, nearest first, held weakly: where a notice goes when the owner is gone. */
  readonly parents: readonly WeakRef<Agent>[]
  /** Its `Agent.id` (`null` without an agent): how a restored task finds its owner again. */
  readonly id: string | null
}

/**
 * One task: its identity, its status (a state machine whose terminal states never change), its output, its final
 * result and who is waiting on it. Owned by the {@link TaskService}; tools read it only through the service.
 */
export class Task {
  status: TaskStatus = 'working'
  endedAt: number | undefined
  statusMessage: string | undefined
  progressReport: TaskProgress | undefined
  /** Why it failed or was cancelled. */
  error: ToolErrorInfo | undefined
  /** The body's result, once it settled (before a terminal status set by a kill or the time limit, or not at all). */
  final: TaskFinal | undefined
  /** The result as `task_output` delivered it (reviewed), once it has. */
  delivered: { readonly content: readonly ContentBlock[]; readonly isError: boolean; readonly error?: ToolErrorInfo | undefined } | undefined
  /** True once the call moved to the background (the model holds the id). */
  background = false
  /** True when the task was stopped by `task_kill`, by the time limit, or by unload (no notice then). */
  stopped = false
  /** The owner's cursor for reads without `since`. */
  readCursor = 0
  /** The body has settled (its outcome recorded or, after a terminal stop, ignored). */
  bodySettled = false
  readonly controller = new AbortController()
  readonly output: TaskOutput | undefined
  private waiters: Array<() => void> = []
  private readonly settledWaiters: Array<() => void> = []

  constructor(
    readonly id: string,
    readonly tool: string,
    readonly callId: string,
    readonly title: string,
    readonly owner: TaskOwner,
    readonly startedAt: number,
    limits: TaskOutputLimits | undefined,
  ) {
    this.output = limits === undefined ? undefined : new TaskOutput(id, limits)
  }

  /** True in a terminal status. */
  get terminal(): boolean {
    return isTerminalTaskStatus(this.status)
  }

  /**
   * Moves to `status` unless the task is already terminal (a terminal status never changes: false then). A terminal
   * status records the end time and wakes every waiter.
   */
  transition(status: TaskStatus, error?: ToolErrorInfo): boolean {
    if (this.terminal) return false
    this.status = status
    if (error !== undefined) this.error = error
    if (isTerminalTaskStatus(status)) this.endedAt = Date.now()
    this.wake()
    return true
  }

  /** Wakes every reader waiting for a change (new output, a status, the end). */
  wake(): void {
    const waiters = this.waiters
    this.waiters = []
    for (const waiter of waiters) waiter()
  }

  /** Resolves at the next change, or after `ms` (the timer is cleared when a change comes first). */
  changed(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms)
      function done(): void {
        clearTimeout(timer)
        resolve()
      }
      this.waiters.push(done)
    })
  }

  /** Marks the body settled and wakes who waits for it (a kill's grace). */
  markBodySettled(): void {
    this.bodySettled = true
    for (const waiter of this.settledWaiters.splice(0)) waiter()
  }

  /** Resolves true when the body has settled, false after `ms`. */
  bodySettledWithin(ms: number): Promise<boolean> {
    if (this.bodySettled) return Promise.resolve(true)
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const index = this.settledWaiters.indexOf(done)
        if (index >= 0) this.settledWaiters.splice(index, 1)
        resolve(false)
      }, ms)
      const done = (): void => {
        clearTimeout(timer)
        resolve(true)
      }
      this.settledWaiters.push(done)
    })
  }

  /** The task as lists, cards and notices show it (frozen, JSON-safe). */
  snapshot(): TaskSnapshot {
    const total = this.output?.total ?? 0
    return Object.freeze({
      id: this.id,
      tool: this.tool,
      callId: this.callId,
      status: this.status,
      title: this.title,
      startedAt: this.startedAt,
      ...(this.endedAt === undefined ? {} : { endedAt: this.endedAt }),
      ...(this.statusMessage === undefined ? {} : { statusMessage: this.statusMessage }),
      ...(this.progressReport === undefined ? {} : { progress: this.progressReport }),
      outputBytes: total,
      unreadBytes: Math.max(0, total - this.readCursor),
    })
  }
}

import type { Agent } from '@dsh/tools-core'
import type { BashExecutor, BashRequest, BashTask, BashTaskOutcome, BashTaskOutput } from './bash-executor.js'
import { BashAbortedError } from './bash-aborted-error.js'
import { BashTaskLimitError } from './bash-task-limit-error.js'
import type { ResolvedBashToolsConfig } from './bash-tools-config.js'
import { describeTaskEnd } from './format-bash-output.js'
import { UnknownBashTaskError } from './unknown-bash-task-error.js'

/** The plugin name completion notices carry in their `source`. */
export const NOTICE_PLUGIN = 'bash'

/** Task ids are unique in the process (so never reused by a reloaded plugin): `bash_1`, `bash_2`, … */
let taskSerial = 0

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function'
}

/** One background task as the tools know it: the executor's handle plus its id, owner and bookkeeping. */
export interface TaskRecord {
  readonly id: string
  /** The agent that started it (`undefined` for calls without an agent). Compared by identity, as scopes are. */
  readonly owner: Agent | undefined
  readonly task: BashTask
  /** Set when `bash_kill` stopped it: no completion notice then, the caller already knows. */
  killedByTool: boolean
  /** `performance.now()` when it settled, else `undefined`. */
  finishedAt: number | undefined
}

/** A read of a task: the output since the previous read, and its outcome when the read found it ended. */
export interface TaskRead {
  readonly record: TaskRecord
  readonly output: BashTaskOutput
  readonly outcome: BashTaskOutcome | undefined
}

/**
 * The background tasks of one plugin instance: ids, owners (by agent object), the per-agent cap on running tasks,
 * retention of finished tasks until their final output is read, completion notices, and stopping everything on
 * disposal. It drives tasks only through the executor's {@link BashTask} handles.
 */
export class BackgroundTasks {
  private readonly config: ResolvedBashToolsConfig
  private readonly log: (message: string, error?: unknown) => void
  private readonly tasks = new Map<string, TaskRecord>()
  /** Running tasks plus starts in flight, per owner. */
  private readonly running = new Map<Agent | undefined, number>()
  /** Starts in flight (until the task is recorded, or stopped because the tools were unloaded meanwhile). */
  private readonly starting = new Set<Promise<unknown>>()
  private disposed = false

  constructor(config: ResolvedBashToolsConfig, log: (message: string, error?: unknown) => void) {
    this.config = config
    this.log = log
  }

  /**
   * Starts `request` in the background for `owner`. Throws {@link BashTaskLimitError} when the owner is at its cap
   * (nothing is started), and whatever the executor's `start` throws (an invalid request, a missing directory).
   */
  start(executor: BashExecutor, owner: Agent | undefined, request: BashRequest): Promise<TaskRecord> {
    const operation = this.launch(executor, owner, request)
    this.starting.add(operation)
    const settled = (): void => {
      this.starting.delete(operation)
    }
    operation.then(settled, settled)
    return operation
  }

  private async launch(executor: BashExecutor, owner: Agent | undefined, request: BashRequest): Promise<TaskRecord> {
    if (this.disposed) throw new BashAbortedError('dispose', 'The bash tools are being unloaded; nothing was started.')
    const limit = this.config.maxBackgroundTasks
    const count = this.running.get(owner) ?? 0
    if (count >= limit) {
      const ids = this.list(owner)
        .filter((record) => record.task.status === 'running')
        .map((record) => record.id)
      throw new BashTaskLimitError(
        limit,
        `Cannot start another background task: ${count} of at most ${limit} are already running for this agent` +
          `${ids.length > 0 ? ` (${ids.join(', ')})` : ''}. Stop one with bash_kill, or wait until one finishes.`,
      )
    }
    this.running.set(owner, count + 1)
    let counted = true
    const release = (): void => {
      if (!counted) return
      counted = false
      const left = (this.running.get(owner) ?? 1) - 1
      if (left <= 0) this.running.delete(owner)
      else this.running.set(owner, left)
    }
    let task: BashTask
    try {
      task = await executor.start(request)
    } catch (error) {
      release()
      throw error
    }
    if (this.disposed) {
      release()
      await task.kill()
      throw new BashAbortedError('dispose', 'The bash tools were unloaded while the task started; it was stopped.')
    }
    taskSerial += 1
    const record: TaskRecord = { id: `bash_${taskSerial}`, owner, task, killedByTool: false, finishedAt: undefined }
    this.tasks.set(record.id, record)
    task.onDone((outcome) => {
      release()
      record.finishedAt = performance.now()
      if (this.tasks.get(record.id) !== record) return
      this.prune(owner)
      this.notify(record, outcome)
    })
    return record
  }

  /** The output since the previous read. A read that finds the task ended is its last: the task is forgotten. */
  read(owner: Agent | undefined, taskId: string): TaskRead {
    const record = this.find(owner, taskId)
    const output = record.task.read()
    const outcome = output.status === 'running' ? undefined : record.task.outcome
    if (outcome !== undefined) this.tasks.delete(record.id)
    return { record, output, outcome }
  }

  /**
   * Stops the task (SIGTERM to its process group, SIGKILL after the executor's grace), waits until its processes
   * are gone, and returns its remaining output. The task is forgotten afterwards.
   */
  async kill(owner: Agent | undefined, taskId: string): Promise<TaskRead & { readonly alreadyEnded: boolean }> {
    const record = this.find(owner, taskId)
    const alreadyEnded = record.task.status !== 'running'
    if (!alreadyEnded) record.killedByTool = true
    const outcome = await record.task.kill()
    const output = record.task.read()
    this.tasks.delete(record.id)
    return { record, output, outcome, alreadyEnded }
  }

  /** Stops every running task and waits until all of them (and starts in flight) have settled. */
  async dispose(): Promise<void> {
    if (this.disposed) return
    this.disposed = true
    const records = [...this.tasks.values()]
    this.tasks.clear()
    await Promise.allSettled(this.starting)
    await Promise.all(records.map((record) => record.task.kill()))
  }

  private list(owner: Agent | undefined): TaskRecord[] {
    return [...this.tasks.values()].filter((record) => record.owner === owner)
  }

  private find(owner: Agent | undefined, taskId: string): TaskRecord {
    const record = this.tasks.get(taskId)
    if (record !== undefined && record.owner === owner) return record
    const own = this.list(owner).map((task) => `${task.id} (${task.task.status === 'running' ? 'running' : 'finished'})`)
    throw new UnknownBashTaskError(
      taskId,
      `No background task ${JSON.stringify(taskId)} for this agent: the id is wrong, or the task finished and its final ` +
        `output was already read. ${own.length > 0 ? `Your background tasks: ${own.join(', ')}.` : 'You have no background tasks.'}`,
    )
  }

  /** Forgets the owner's oldest finished tasks beyond `maxFinishedTasks`. */
  private prune(owner: Agent | undefined): void {
    const finished = this.list(owner)
      .filter((record) => record.finishedAt !== undefined)
      .sort((a, b) => (a.finishedAt as number) - (b.finishedAt as number))
    for (let index = 0; index < finished.length - this.config.maxFinishedTasks; index++) {
      this.tasks.delete((finished[index] as TaskRecord).id)
    }
  }

  private notify(record: TaskRecord, outcome: BashTaskOutcome): void {
    if (!this.config.notifyOnCompletion || this.disposed || record.killedByTool) return
    const agent = record.owner
    if (agent === undefined || typeof agent.inject !== 'function') return
    const command = record.task.command.split('\n', 1)[0] ?? ''
    const shown = command.length > 120 ? `${command.slice(0, 117)}...` : command
    const text =
      `Background task ${record.id} (\`${shown}\`) ${describeTaskEnd(outcome)}. ` +
      `Read the rest of its output with bash_output (task_id "${record.id}").`
    const failed = (error: unknown): void =>
      this.log(`could not tell agent ${JSON.stringify(agent.id)} that background task ${record.id} ended`, error)
    try {
      const returned: unknown = agent.inject([{ type: 'text', text }], { source: { kind: 'plugin', plugin: NOTICE_PLUGIN } })
      if (isThenable(returned)) returned.then(undefined, failed)
    } catch (error) {
      failed(error)
    }
  }
}

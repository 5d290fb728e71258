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

/**
 * The tasks of one owner (an agent, or every call without one). It holds no reference to the agent itself, so an
 * agent that is otherwise gone can be collected although its tasks are still recorded.
 */
interface OwnerTasks {
  readonly tasks: Map<string, TaskRecord>
  /** Running tasks plus starts in flight. */
  running: number
}

/** Why a finished task was dropped unread, remembered (for its owner only) so `bash_output` can say it expired. */
interface DroppedTask {
  readonly owner: WeakRef<Agent> | undefined
  readonly why: string
}

/** Dropped task ids remembered in all, oldest forgotten first: a bound on what expiry notes themselves keep. */
const DROPPED_IDS_KEPT = 256

/** One background task as the tools know it: the executor's handle plus its id, owner and bookkeeping. */
export interface TaskRecord {
  readonly id: string
  /**
   * The agent that started it, held weakly (`undefined` for calls without an agent): a finished task never keeps
   * its agent alive. Compared by identity, as scopes are.
   */
  readonly owner: WeakRef<Agent> | undefined
  /** The owner's bucket. */
  readonly bucket: OwnerTasks
  readonly task: BashTask
  /** Set when `bash_kill` stopped it: no completion notice then, the caller already knows. */
  killedByTool: boolean
  /** `performance.now()` when it settled, else `undefined`. */
  finishedAt: number | undefined
  /** Drops the finished, unread task when its retention time is up. */
  expiry: ReturnType<typeof setTimeout> | undefined
}

/** A read of a task: the output since the previous read, and its outcome when the read found it ended. */
export interface TaskRead {
  readonly record: TaskRecord
  readonly output: BashTaskOutput
  readonly outcome: BashTaskOutcome | undefined
}

/** A retention time as the model and the messages read it: `30 min`, `2 h`, `45 s`, `300 ms`. */
export function describeDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`
  if (ms % 60_000 === 0) return `${ms / 60_000} min`
  if (ms % 1_000 === 0) return `${ms / 1_000} s`
  return `${ms} ms`
}

/**
 * The background tasks of one plugin instance: ids, owners (by agent object, held weakly), the per-agent cap on
 * running tasks, retention of finished tasks until their final output is read — at most `maxFinishedTasks` per
 * agent and for at most `finishedTaskRetentionMs` each, and never past the agent itself —, completion notices, and
 * stopping everything on disposal. It drives tasks only through the executor's {@link BashTask} handles.
 */
export class BackgroundTasks {
  private readonly config: ResolvedBashToolsConfig
  private readonly log: (message: string, error?: unknown) => void
  private readonly tasks = new Map<string, TaskRecord>()
  /**
   * Per-agent buckets, keyed weakly, and deleted as soon as an agent has no task left (running, or finished and
   * unread): nothing here keeps an agent alive, and an agent whose tasks are all read or dropped has no entry.
   */
  private readonly owners = new WeakMap<Agent, OwnerTasks>()
  /** Calls without an agent are one owner of their own. */
  private readonly anonymous: OwnerTasks = { tasks: new Map(), running: 0 }
  /** When an agent is collected with tasks still recorded, its finished ones (nobody can read them now) go. */
  private readonly agentGone = new FinalizationRegistry<OwnerTasks>((bucket) => this.forgetFinished(bucket))
  private readonly dropped = new Map<string, DroppedTask>()
  /** Starts in flight (until the task is recorded, or stopped because the tools were unloaded meanwhile). */
  private readonly starting = new Set<Promise<unknown>>()
  private disposed = false

  constructor(config: ResolvedBashToolsConfig, log: (message: string, error?: unknown) => void) {
    this.config = config
    this.log = log
  }

  /** Tasks recorded (running, or finished and unread) across every owner, and how many of them finished. */
  get retained(): { readonly tasks: number; readonly finished: number } {
    let finished = 0
    for (const record of this.tasks.values()) if (record.finishedAt !== undefined) finished += 1
    return { tasks: this.tasks.size, finished }
  }

  /** True while `owner` has an entry: a task running or starting, or finished and unread. */
  holds(owner: Agent | undefined): boolean {
    return owner === undefined ? this.anonymous.tasks.size > 0 || this.anonymous.running > 0 : this.owners.has(owner)
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

  private bucketOf(owner: Agent | undefined): OwnerTasks | undefined {
    return owner === undefined ? this.anonymous : this.owners.get(owner)
  }

  private createBucket(owner: Agent | undefined): OwnerTasks {
    const existing = this.bucketOf(owner)
    if (existing !== undefined || owner === undefined) return existing ?? this.anonymous
    const bucket: OwnerTasks = { tasks: new Map(), running: 0 }
    this.owners.set(owner, bucket)
    this.agentGone.register(owner, bucket, bucket)
    return bucket
  }

  /** Deletes an agent's entry once it has nothing left; `owner` is how the weakly keyed entry is found. */
  private releaseIfEmpty(bucket: OwnerTasks, owner: WeakRef<Agent> | undefined): void {
    if (bucket === this.anonymous || bucket.tasks.size > 0 || bucket.running > 0) return
    this.agentGone.unregister(bucket)
    const agent = owner?.deref()
    if (agent !== undefined && this.owners.get(agent) === bucket) this.owners.delete(agent)
  }

  private async launch(executor: BashExecutor, owner: Agent | undefined, request: BashRequest): Promise<TaskRecord> {
    if (this.disposed) throw new BashAbortedError('dispose', 'The bash tools are being unloaded; nothing was started.')
    const limit = this.config.maxBackgroundTasks
    const bucket = this.createBucket(owner)
    const count = bucket.running
    if (count >= limit) {
      const ids = [...bucket.tasks.values()].filter((record) => record.task.status === 'running').map((record) => record.id)
      throw new BashTaskLimitError(
        limit,
        `Cannot start another background task: ${count} of at most ${limit} are already running for this agent` +
          `${ids.length > 0 ? ` (${ids.join(', ')})` : ''}. Stop one with bash_kill, or wait until one finishes.`,
      )
    }
    bucket.running += 1
    const ownerRef = owner === undefined ? undefined : new WeakRef(owner)
    let counted = true
    // Holds the agent weakly too: it outlives this call inside the task's completion listener.
    const release = (): void => {
      if (!counted) return
      counted = false
      bucket.running = Math.max(0, bucket.running - 1)
      this.releaseIfEmpty(bucket, ownerRef)
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
    const record: TaskRecord = {
      id: `bash_${taskSerial}`,
      owner: ownerRef,
      bucket,
      task,
      killedByTool: false,
      finishedAt: undefined,
      expiry: undefined,
    }
    this.tasks.set(record.id, record)
    bucket.tasks.set(record.id, record)
    // The listener holds the record only (never the agent): it is what keeps a running task's bookkeeping.
    task.onDone((outcome) => this.settled(record, outcome, release))
    return record
  }

  private settled(record: TaskRecord, outcome: BashTaskOutcome, release: () => void): void {
    record.finishedAt = performance.now()
    if (this.tasks.get(record.id) !== record) {
      release()
      return
    }
    if (record.owner !== undefined && record.owner.deref() === undefined) {
      // The agent is gone: nobody can read this task any more.
      this.forget(record, undefined)
      release()
      return
    }
    const expiry = setTimeout(
      () => this.forget(record, `it finished and was not read within ${describeDuration(this.config.finishedTaskRetentionMs)}`),
      this.config.finishedTaskRetentionMs,
    )
    expiry.unref?.()
    record.expiry = expiry
    this.prune(record.bucket)
    release()
    this.notify(record, outcome)
  }

  /** The output since the previous read. A read that finds the task ended is its last: the task is forgotten. */
  read(owner: Agent | undefined, taskId: string): TaskRead {
    const record = this.find(owner, taskId)
    const output = record.task.read()
    const outcome = output.status === 'running' ? undefined : record.task.outcome
    if (outcome !== undefined) this.forget(record, undefined)
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
    this.forget(record, undefined)
    return { record, output, outcome, alreadyEnded }
  }

  /** Stops every running task and waits until all of them (and starts in flight) have settled. */
  async dispose(): Promise<void> {
    if (this.disposed) return
    this.disposed = true
    const records = [...this.tasks.values()]
    for (const record of records) this.forget(record, undefined)
    await Promise.allSettled(this.starting)
    await Promise.all(records.map((record) => record.task.kill()))
  }

  private find(owner: Agent | undefined, taskId: string): TaskRecord {
    const bucket = this.bucketOf(owner)
    const record = bucket?.tasks.get(taskId)
    if (record !== undefined) return record
    const own = [...(bucket?.tasks.values() ?? [])].map(
      (task) => `${task.id} (${task.task.status === 'running' ? 'running' : 'finished'})`,
    )
    const yours = own.length > 0 ? `Your background tasks: ${own.join(', ')}.` : 'You have no background tasks.'
    const dropped = this.dropped.get(taskId)
    // Only the owner learns that a task expired; anyone else gets the answer for an id that never existed.
    const droppedOwner = dropped?.owner
    const isOwners = droppedOwner === undefined ? owner === undefined : owner !== undefined && droppedOwner.deref() === owner
    if (dropped !== undefined && isOwners) {
      throw new UnknownBashTaskError(
        taskId,
        `Background task ${JSON.stringify(taskId)} has expired: ${dropped.why}, so its output was dropped and can no ` +
          `longer be read. ${yours}`,
      )
    }
    throw new UnknownBashTaskError(
      taskId,
      `No background task ${JSON.stringify(taskId)} for this agent: the id is wrong, or the task finished and its final ` +
        `output was already read. ${yours}`,
    )
  }

  /** Forgets the owner's oldest finished tasks beyond `maxFinishedTasks`. */
  private prune(bucket: OwnerTasks): void {
    const finished = [...bucket.tasks.values()]
      .filter((record) => record.finishedAt !== undefined)
      .sort((a, b) => (a.finishedAt as number) - (b.finishedAt as number))
    const limit = this.config.maxFinishedTasks
    for (let index = 0; index < finished.length - limit; index++) {
      this.forget(
        finished[index] as TaskRecord,
        `it finished and was not read while ${limit} newer finished task${limit === 1 ? '' : 's'} of this agent waited ` +
          `(at most ${limit} finished, unread tasks are kept per agent)`,
      )
    }
  }

  /** Drops a task's bookkeeping; `why` (when it was dropped unread) is remembered for its owner's next ask. */
  private forget(record: TaskRecord, why: string | undefined): void {
    if (record.expiry !== undefined) clearTimeout(record.expiry)
    record.expiry = undefined
    if (this.tasks.get(record.id) === record) this.tasks.delete(record.id)
    record.bucket.tasks.delete(record.id)
    if (why !== undefined) {
      this.dropped.set(record.id, { owner: record.owner, why })
      for (const id of this.dropped.keys()) {
        if (this.dropped.size <= DROPPED_IDS_KEPT) break
        this.dropped.delete(id)
      }
    }
    this.releaseIfEmpty(record.bucket, record.owner)
  }

  /** An agent was collected: its finished tasks go now, its running ones when they end. */
  private forgetFinished(bucket: OwnerTasks): void {
    // Deleting the entry being visited is safe while iterating a Map.
    for (const record of bucket.tasks.values()) {
      if (record.finishedAt !== undefined) this.forget(record, undefined)
    }
  }

  private notify(record: TaskRecord, outcome: BashTaskOutcome): void {
    if (!this.config.notifyOnCompletion || this.disposed || record.killedByTool) return
    const agent = record.owner?.deref()
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

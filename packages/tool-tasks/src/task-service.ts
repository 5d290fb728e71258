import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import {
  isDshErrorCode,
  snapshotJson,
  TASK_ERROR_CODES,
  type Agent,
  type ContentBlock,
  type TaskProgress,
  type TaskSnapshot,
  type ToolDefinition,
  type ToolErrorInfo,
  type ToolExecution,
  type ToolExecutionResult,
} from '@dsh/tools-core'
import { checkCordisHost, notifyListeners, type ToolRegistry } from '@dsh/tools-registry'
import { RUN_IN_BACKGROUND } from '@dsh/tools-schema'
import { Service, type Context } from 'cordis'
import { Task, type TaskFinal, type TaskOwner } from './task.js'
import { resolveTaskLayerConfig, type ResolvedTaskLayerConfig, type TaskLayerConfig } from './task-config.js'
import { attachTaskContext, type TaskContext } from './task-context.js'
import { TaskError } from './task-error.js'
import type { OutputRead } from './task-output.js'
import type { StoredTask } from './task-store.js'
import { createTaskTools } from './task-tools.js'

declare module 'cordis' {
  interface Context {
    /** The task layer (`@dsh/tool-tasks`). */
    tasks: TaskService
  }
  interface Events {
    /**
     * A task ended on its own (completed, failed, or ran past its maximum run time): the wake-up a harness loop can
     * listen to. Sent once per task, after the owner's `inject`; never for a task stopped by `task_kill` or unload.
     * `agent` is the agent that was told (the owner, or its nearest live parent), `undefined` when none was.
     */
    'tasks/settled'(task: TaskSnapshot, agent: Agent | undefined): void
  }
}

/** What one read of a task gives (see {@link TaskService.read}). */
export interface TaskRead {
  /** The task after the read. */
  readonly task: TaskSnapshot
  /** The output read (absent for a task restored from a store, whose output did not survive the restart). */
  readonly output: OutputRead | undefined
  /** The final result, when the task has ended with one: the body's own (this run of the host). */
  readonly final: TaskFinal | undefined
  /** For a task restored from a store: what `task_output` showed of it before the host restarted, if it did. */
  readonly restored?: { readonly content: readonly ContentBlock[] } | undefined
}

/**
 * What the work of a task started by {@link TaskService.start} ends with: text, or content with `isError` (a failed
 * task) and `meta`. A run that throws fails the task with the error's message, `name` and `code`.
 */
export type TaskRunResult = string | { readonly content: readonly ContentBlock[]; readonly isError?: boolean | undefined; readonly meta?: unknown }

/** A task started by {@link TaskService.start}. */
export interface StartedTask {
  /** The task as it started (its `id` is what the model passes to `task_output` and `task_kill`). */
  readonly task: TaskSnapshot
  /** Stops it as an unload does: status `cancelled`, its signal fires, no notice. Does nothing once it has ended. */
  cancel(reason?: string): void
}

/** Options of {@link TaskService.read}. */
export interface TaskReadOptions {
  /** Read from this byte offset (idempotent); absent: from the owner's last read, which this read then advances. */
  readonly since?: number | undefined
  /** Wait up to this long for new output or the end, in ms (at most 30,000). */
  readonly waitMs?: number | undefined
}

/** The longest `wait_ms`. */
export const MAX_WAIT_MS = 30_000
/** Dropped ids remembered, to answer "expired" (with why) instead of "unknown". */
const DROPPED_IDS_KEPT = 256
const PLUGIN = '@dsh/tool-tasks'
/** The 32 characters of random ids (10 of them: 50 bits, never reused across restarts in practice). */
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567'

/** Why a call was not started as a task, or `undefined` when a cap leaves room. */
type LimitProblem = string | undefined

/**
 * The task layer: owns tasks (ids, owners, caps, retention, the state machine, output, notices, the store),
 * turns calls into tasks through one `tools/execute` wrapper, and registers the model's tools `task_output`,
 * `task_kill` and `task_list`. Load it with `ctx.plugin(TaskService, config)`; it is `ctx.tasks`.
 */
export class TaskService extends Service {
  static readonly inject = ['tools']

  /** The validated configuration in effect. */
  readonly config: ResolvedTaskLayerConfig
  private readonly tasks = new Map<string, Task>()
  private readonly dropped = new Map<string, { readonly owner: Task['owner']; readonly why: string }>()
  private readonly timers = new Map<Task, NodeJS.Timeout[]>()
  /** The background tasks still running (the caps count them). */
  private readonly running = new Set<Task>()
  /** Calls still in their foreground budget, which may become tasks (stopped with the rest on unload). */
  private readonly foreground = new Set<Task>()
  /** Finished background tasks whose result their owner has not read, per owner (agent objects weakly), oldest first. */
  private readonly unreadByAgent = new WeakMap<Agent, Set<Task>>()
  private readonly unreadById = new Map<string | null, Set<Task>>()
  /** This run's mark in ids made without a store, so an id of an earlier run reads as "the host restarted". */
  private readonly boot = randomBytes(3).toString('hex')
  private serial = 0
  private spillDirectory: string | undefined
  private disposed = false
  /** The registry's `definitionOf`, the one thing the wrapper asks it on every call. */
  private readonly definitionOf: ToolRegistry['definitionOf']

  /**
   * @param ctx - the plugin's context (cordis passes it)
   * @param config - validated here; a bad one throws `TaskLayerConfigError` and the load fails
   */
  constructor(ctx: Context, config: TaskLayerConfig = {}) {
    checkCordisHost(ctx, PLUGIN, { service: 'tasks' })
    const resolved = resolveTaskLayerConfig(config)
    super(ctx, 'tasks')
    this.config = resolved
    ctx.effect(() => () => this.dispose(), 'task layer')
    // Held once: the wrapper runs on every call, and each `ctx.tools` lookup costs cordis a property resolution.
    const tools = ctx.tools
    this.definitionOf = tools.definitionOf
    tools.on('tools/execute', this.wrapper, { prepend: true })
    tools.on('tools/result', this.delivered)
    for (const tool of createTaskTools(this)) tools.register(tool)
  }

  /** Restores the store's tasks before the layer takes calls: those that were running are marked failed. */
  async [Service.init](): Promise<void> {
    const store = this.config.store
    if (store === undefined) return
    const now = Date.now()
    for (const stored of await store.load()) {
      const task = new Task(stored.id, stored.tool, stored.callId, stored.title, { agent: undefined, parents: [], id: stored.owner }, stored.startedAt, undefined)
      task.background = true
      if (stored.result !== undefined) task.delivered = stored.result
      if (stored.status === 'working' || stored.status === 'input_required') {
        task.transition('failed', { name: 'TaskError', code: TASK_ERROR_CODES.HOST_RESTARTED })
        task.stopped = true
        this.persist(task)
      } else {
        task.status = stored.status
        task.endedAt = stored.endedAt ?? now
        task.error = stored.error
      }
      this.tasks.set(task.id, task)
      if (task.delivered === undefined) this.unreadOf(task).add(task)
      const left = (task.endedAt ?? now) + this.config.retentionMs - now
      this.schedule(task, Math.max(0, left), () => this.forget(task, `it ended more than ${minutes(this.config.retentionMs)} ago`))
    }
  }

  /** The caller's tasks (`agent`'s, or those of calls without an agent), oldest first. */
  list(agent?: Agent): TaskSnapshot[] {
    return [...this.tasks.values()].filter((task) => owns(task, agent)).map((task) => task.snapshot())
  }

  /** The task `id` as `agent` sees it, or `undefined` (unknown, expired, or another agent's). */
  get(id: string, agent?: Agent): TaskSnapshot | undefined {
    const task = this.tasks.get(id)
    return task !== undefined && owns(task, agent) ? task.snapshot() : undefined
  }

  /**
   * Reads the task `id` for `agent`: its output from a cursor, its status, and its final result once it ended.
   * Throws {@link TaskError} (`TASK_UNKNOWN`, `TASK_EXPIRED`, `TASK_HOST_RESTARTED`) when `agent` cannot see it.
   */
  async read(id: string, agent: Agent | undefined, options: TaskReadOptions = {}): Promise<TaskRead> {
    const task = this.visible(id, agent)
    const cursor = options.since ?? task.readCursor
    const waitMs = Math.min(Math.max(0, options.waitMs ?? 0), MAX_WAIT_MS)
    if (waitMs > 0) {
      const until = Date.now() + waitMs
      while (!task.terminal && (task.output?.total ?? 0) <= cursor && Date.now() < until && !this.disposed) {
        await task.changed(until - Date.now())
      }
    }
    const output = task.output?.read(cursor, this.config.readLimitBytes)
    if (options.since === undefined && output !== undefined) task.readCursor = Math.max(task.readCursor, output.next)
    if (task.terminal) this.markRead(task)
    return { task: task.snapshot(), output, final: task.terminal ? task.final : undefined, restored: task.final === undefined ? task.delivered : undefined }
  }

  /**
   * Stops the task `id` of `agent`: its status becomes `cancelled` at once (for good: a late settlement changes
   * nothing), its signal fires, and this waits up to `killGraceMs` for the body to stop. `stopped` says whether it
   * did. A task that had already ended answers with its status. Throws {@link TaskError} when `agent` cannot see it.
   */
  async kill(id: string, agent: Agent | undefined): Promise<{ readonly task: TaskSnapshot; readonly stopped: boolean; readonly alreadyEnded: boolean }> {
    const task = this.visible(id, agent)
    if (task.terminal) return { task: task.snapshot(), stopped: true, alreadyEnded: true }
    this.stop(task, 'cancelled', { name: 'TaskError', code: 'ABORTED' }, new Error(`task ${task.id} was killed by task_kill`))
    const stopped = await task.bodySettledWithin(this.config.killGraceMs)
    return { task: task.snapshot(), stopped, alreadyEnded: false }
  }

  /**
   * Why one more task of `agent` cannot start now (a cap is reached), or `undefined` when there is room. A tool that
   * starts its own work before {@link TaskService.start} (a process) asks first, so a refused call starts nothing.
   */
  roomFor(agent: Agent | undefined): string | undefined {
    return this.disposed ? 'the task layer is being unloaded' : this.limitProblem(agent)
  }

  /**
   * Starts a task for a call whose tool decides by itself to run in the background (as `bash` does with its own
   * `run_in_background`), instead of through `defineTool`'s `execution`. `run` is the work: it gets the task's
   * context (its signal fires on `task_kill`, at the maximum run time and on unload) and its result (or what it
   * throws) is the task's final result. Everything else is as for any task: ids, owners, caps, `task_output`,
   * `task_kill`, `task_list`, notices, the store. Throws {@link TaskError} `TASK_LIMIT` (nothing is started) when a cap
   * leaves no room or the layer is being unloaded. `cancel()` stops the task the way an unload does: status
   * `cancelled`, its signal fires, and nobody is told (the tool stopping it knows).
   */
  start(
    exec: Readonly<Pick<ToolExecution, 'callId' | 'name' | 'arguments' | 'agent'>>,
    run: (task: TaskContext) => TaskRunResult | Promise<TaskRunResult>,
    options: { readonly maxRuntimeMs?: number | undefined } = {},
  ): StartedTask {
    const problem = this.roomFor(exec.agent)
    if (problem !== undefined) throw new TaskError(TASK_ERROR_CODES.LIMIT, `The call to ${exec.name} was not started in the background: ${problem}.`)
    const task = this.create(exec)
    this.moveToBackground(task)
    this.limitRuntime(task, options.maxRuntimeMs)
    const context = this.contextOf(task)
    void Promise.resolve()
      .then(() => run(context))
      .then(
        (result) => executionResult(exec, result),
        (error: unknown) => failureResult(exec, error),
      )
      .then((result) => this.settleBody(task, result))
    return Object.freeze({
      task: task.snapshot(),
      cancel: (reason?: string): void => {
        if (!task.terminal) this.stop(task, 'cancelled', { name: 'TaskError', code: 'ABORTED' }, new Error(reason ?? `task ${task.id} was cancelled by its tool`))
      },
    })
  }

  // --- the wrapper ----------------------------------------------------------------------------------------------------

  /** Turns a call into a task when its tool allows it and it asked (or runs past the foreground budget). */
  private readonly wrapper = (exec: ToolExecution, next: () => Promise<ToolExecutionResult>): ToolExecutionResult | Promise<ToolExecutionResult> => {
    if (this.disposed) return next()
    const definition = this.definitionOf(exec)
    const policy = definition?.execution
    const mode = policy?.background
    if (definition === undefined || (mode !== 'optional' && mode !== 'required')) return next()
    const asked = mode === 'required' || askedForBackground(exec.arguments)
    // A nested call (a program's sub-call, with `parent`) stays in the foreground unless it asked: its caller waits for
    // the real result, not a task id.
    const budget = exec.parent === undefined ? policy?.autoBackgroundAfterMs : undefined
    if (!asked && budget === undefined) return next()
    return this.runAsTask(exec, definition, asked, budget, next)
  }

  private async runAsTask(
    exec: ToolExecution,
    definition: ToolDefinition,
    asked: boolean,
    budget: number | undefined,
    next: () => Promise<ToolExecutionResult>,
  ): Promise<ToolExecutionResult> {
    if (asked) {
      const problem = this.limitProblem(exec.agent)
      if (problem !== undefined) return limitResult(exec, problem)
    }
    const task = this.create(exec)
    this.foreground.add(task)
    const received = exec.signal
    const onCallerAbort = (): void => {
      if (!task.background) task.controller.abort(received.reason)
    }
    if (received.aborted) onCallerAbort()
    else received.addEventListener('abort', onCallerAbort, { once: true })
    exec.signal = task.controller.signal
    attachTaskContext(exec, this.contextOf(task))
    this.limitRuntime(task, definition.execution?.maxRuntimeMs)
    const dispatched = next()
    const settled = dispatched.then((result) => {
      received.removeEventListener('abort', onCallerAbort)
      this.settleBody(task, result)
      return result
    })
    if (!asked) {
      let timer: NodeJS.Timeout | undefined
      const first = await Promise.race([settled, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), budget)))])
      clearTimeout(timer)
      // Ended within the budget, or no room for one more task: the call stays what it was, a foreground call.
      if (first !== undefined) return this.finishInForeground(task, first)
      const problem = this.limitProblem(exec.agent)
      if (problem !== undefined) return this.finishInForeground(task, await settled)
    }
    this.moveToBackground(task)
    received.removeEventListener('abort', onCallerAbort)
    return startedResult(exec, task, asked)
  }

  /** Fails `task` with `TASK_TIMEOUT` (and fires its signal) past its maximum run time. */
  private limitRuntime(task: Task, asked: number | undefined): void {
    const maxRuntimeMs = Math.min(asked ?? this.config.defaultMaxRuntimeMs, this.config.maxRuntimeCapMs)
    this.schedule(task, maxRuntimeMs, () => {
      if (!task.terminal) {
        this.stop(task, 'failed', { name: 'TaskError', code: TASK_ERROR_CODES.TIMEOUT }, new Error(`task ${task.id} ran past its maximum run time (${maxRuntimeMs} ms)`))
        if (task.background) this.notify(task)
      }
    })
  }

  private finishInForeground(task: Task, result: ToolExecutionResult): ToolExecutionResult {
    this.foreground.delete(task)
    this.clearTimers(task)
    task.output?.dispose()
    return result
  }

  private create(exec: Readonly<Pick<ToolExecution, 'callId' | 'name' | 'arguments' | 'agent'>>): Task {
    const agent = exec.agent
    const parents: WeakRef<Agent>[] = []
    for (let parent = agent?.parent; parent !== undefined && parents.length < 32; parent = parent.parent) parents.push(new WeakRef(parent))
    const owner: TaskOwner = { agent: agent === undefined ? undefined : new WeakRef(agent), parents, id: agent?.id ?? null }
    this.spillDirectory ??= mkdtempSync(join(this.config.tempDir, 'dsh-tasks-'))
    return new Task(this.nextId(), exec.name, exec.callId, titleOf(exec), owner, Date.now(), {
      windowBytes: this.config.outputWindowBytes,
      spillCapBytes: this.config.spillCapBytes,
      spillDirectory: this.spillDirectory,
    })
  }

  private nextId(): string {
    if (this.config.store !== undefined) return `task_${[...randomBytes(10)].map((byte) => BASE32[byte & 31]).join('')}`
    this.serial += 1
    return `task_${this.boot}_${this.serial}`
  }

  private moveToBackground(task: Task): void {
    this.foreground.delete(task)
    task.background = true
    this.tasks.set(task.id, task)
    if (!task.terminal) this.running.add(task)
    this.persist(task)
  }

  /** The set of finished unread tasks of `task`'s owner. */
  private unreadOf(task: Task): Set<Task> {
    const agent = task.owner.agent?.deref()
    if (task.owner.agent !== undefined && agent === undefined) return new Set()
    let unread = agent === undefined ? this.unreadById.get(task.owner.id) : this.unreadByAgent.get(agent)
    if (unread === undefined) {
      unread = new Set()
      if (agent === undefined) this.unreadById.set(task.owner.id, unread)
      else this.unreadByAgent.set(agent, unread)
    }
    return unread
  }

  private settleBody(task: Task, result: ToolExecutionResult): void {
    task.markBodySettled()
    if (task.terminal || this.disposed) return
    const final = snapshotJson({
      content: result.content,
      isError: result.isError,
      ...(result.error === undefined ? {} : { error: result.error }),
      ...(result.meta === undefined ? {} : { meta: result.meta }),
      ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
    })
    task.final = final.ok ? (final.value as unknown as TaskFinal) : { content: [{ type: 'text', text: 'The task ended, but its result could not be kept.' }], isError: true }
    if (!task.background) return
    this.clearTimers(task)
    task.transition(result.isError ? 'failed' : 'completed', result.error)
    this.ended(task)
    this.notify(task)
  }

  /** Ends `task` from outside its body: a kill, the time limit, unload. */
  private stop(task: Task, status: 'cancelled' | 'failed', error: ToolErrorInfo, reason: Error): void {
    task.stopped = true
    task.transition(status, error)
    this.clearTimers(task)
    task.controller.abort(reason)
    if (task.background) this.ended(task)
  }

  /** A background task reached a terminal status: persisted, its retention started, the finished cap kept. */
  private ended(task: Task): void {
    this.running.delete(task)
    this.persist(task)
    this.schedule(task, this.config.retentionMs, () => this.forget(task, `it ended more than ${minutes(this.config.retentionMs)} ago`))
    const unread = this.unreadOf(task)
    unread.add(task)
    for (const oldest of unread) {
      if (unread.size <= this.config.maxFinishedPerAgent) break
      this.forget(oldest, `more than ${this.config.maxFinishedPerAgent} finished tasks were not read, and it was the oldest`)
    }
  }

  /** Its owner has read `task`'s end: it no longer counts against the finished cap. */
  private markRead(task: Task): void {
    this.unreadOf(task).delete(task)
  }

  private forget(task: Task, why: string): void {
    this.clearTimers(task)
    this.running.delete(task)
    this.unreadOf(task).delete(task)
    task.output?.dispose()
    if (this.tasks.get(task.id) !== task) return
    this.tasks.delete(task.id)
    this.dropped.set(task.id, { owner: task.owner, why })
    for (const id of this.dropped.keys()) {
      if (this.dropped.size <= DROPPED_IDS_KEPT) break
      this.dropped.delete(id)
    }
    try {
      this.config.store?.drop(task.id)
    } catch (error) {
      this.warn(`the task store could not drop ${task.id}`, error)
    }
  }

  // --- notices --------------------------------------------------------------------------------------------------------

  /** Tells the owner (or its nearest live parent) that `task` ended on its own, and emits `tasks/settled`. */
  private notify(task: Task): void {
    if (this.disposed || (task.stopped && task.error?.code !== TASK_ERROR_CODES.TIMEOUT)) return
    const text =
      `Background task ${task.id} (${task.tool}: ${task.title}) ${task.status === 'completed' ? 'completed' : `failed${task.error === undefined ? '' : ` (${task.error.code})`}`}. ` +
      `Read its result with task_output (task_id "${task.id}").`
    let told: Agent | undefined
    if (this.config.notify) {
      for (const reference of [task.owner.agent, ...task.owner.parents]) {
        const agent = reference?.deref()
        if (agent === undefined || typeof agent.inject !== 'function') continue
        try {
          const returned: unknown = agent.inject([{ type: 'text', text }], { source: { kind: 'plugin', plugin: PLUGIN } })
          if (typeof (returned as { then?: unknown } | null)?.then === 'function') {
            ;(returned as Promise<unknown>).then(undefined, (error: unknown) => this.warn(`could not tell agent ${JSON.stringify(agent.id)} that task ${task.id} ended`, error))
          }
          told = agent
          break
        } catch (error) {
          this.warn(`could not tell agent ${JSON.stringify(agent.id)} that task ${task.id} ended`, error)
        }
      }
    }
    notifyListeners(this.ctx, 'tasks/settled', [task.snapshot(), told], (error) => this.warn('a tasks/settled listener failed', error))
  }

  // --- delivery and the store -----------------------------------------------------------------------------------------

  /** Records what `task_output` delivered of a finished task (after post-execute review): what a store may keep. */
  private readonly delivered = (exec: Readonly<ToolExecution>, result: ToolExecutionResult): void => {
    if (exec.name !== 'task_output' || result.isError) return
    const meta = result.meta as { task?: { id?: unknown } } | undefined
    const id = meta?.task?.id
    const task = typeof id === 'string' ? this.tasks.get(id) : undefined
    if (task === undefined || !task.terminal || !owns(task, exec.agent)) return
    task.delivered = { content: result.content, isError: task.final?.isError ?? task.status !== 'completed', ...(task.error === undefined ? {} : { error: task.error }) }
    this.persist(task)
  }

  private persist(task: Task): void {
    const store = this.config.store
    if (store === undefined || !task.background) return
    const record: StoredTask = {
      id: task.id,
      owner: task.owner.id,
      tool: task.tool,
      callId: task.callId,
      title: task.title,
      status: task.status,
      startedAt: task.startedAt,
      ...(task.endedAt === undefined ? {} : { endedAt: task.endedAt }),
      ...(task.error === undefined ? {} : { error: task.error }),
      ...(task.delivered === undefined ? {} : { result: task.delivered }),
      ...(task.output?.spillPath === undefined ? {} : { spillPath: task.output.spillPath }),
      outputBytes: task.output?.total ?? 0,
    }
    try {
      store.save(record)
    } catch (error) {
      this.warn(`the task store could not save ${task.id}`, error)
    }
  }

  // --- helpers --------------------------------------------------------------------------------------------------------

  /** The task `id` if `agent` owns it; otherwise the {@link TaskError} a model reads. */
  private visible(id: string, agent: Agent | undefined): Task {
    const task = this.tasks.get(id)
    if (task !== undefined && owns(task, agent)) return task
    const dropped = this.dropped.get(id)
    if (dropped !== undefined && ownerMatches(dropped.owner, agent)) {
      throw new TaskError(TASK_ERROR_CODES.EXPIRED, `Task ${id} is no longer kept: ${dropped.why}.`)
    }
    const earlier = /^task_([0-9a-f]{6})_\d+$/.exec(id)
    if (this.config.store === undefined && earlier !== null && earlier[1] !== this.boot) {
      throw new TaskError(TASK_ERROR_CODES.HOST_RESTARTED, `Task ${id} belonged to an earlier run of the host, which has restarted since; its tasks were stopped and are gone.`)
    }
    throw new TaskError(TASK_ERROR_CODES.UNKNOWN, `No task ${JSON.stringify(id)} is visible to you. task_list shows your tasks.`)
  }

  /** Why one more task of `agent` cannot run now, or `undefined`. */
  private limitProblem(agent: Agent | undefined): LimitProblem {
    let mine = 0
    const all = this.running.size
    for (const task of this.running) if (owns(task, agent)) mine += 1
    if (mine >= this.config.maxRunningPerAgent) return `you already have ${mine} tasks running (the most one agent may run at once); wait for one to end (task_output with wait_ms) or stop one (task_kill)`
    if (all >= this.config.maxRunningTotal) return `${all} tasks are running in this host (the most it runs at once); wait for one to end`
    return undefined
  }

  private contextOf(task: Task): TaskContext {
    return Object.freeze({
      id: task.id,
      signal: task.controller.signal,
      output: (chunk: string | Uint8Array): void => {
        if (task.terminal || task.output === undefined) return
        task.output.append(chunk)
        task.wake()
      },
      progress: (progress: TaskProgress): void => {
        if (task.terminal) return
        task.progressReport = Object.freeze({ ...progress })
        task.wake()
      },
      status: (message: string): void => {
        if (task.terminal) return
        task.statusMessage = String(message)
        task.wake()
      },
    })
  }

  private schedule(task: Task, ms: number, run: () => void): void {
    const timer = setTimeout(run, Math.min(ms, 2_147_483_647))
    timer.unref()
    const timers = this.timers.get(task)
    if (timers === undefined) this.timers.set(task, [timer])
    else timers.push(timer)
  }

  private clearTimers(task: Task): void {
    for (const timer of this.timers.get(task) ?? []) clearTimeout(timer)
    this.timers.delete(task)
  }

  private warn(message: string, error?: unknown): void {
    try {
      const logger = this.ctx.logger('tasks')
      if (error === undefined) logger.warn(message)
      else logger.warn(message, error)
    } catch {
      // A logger that throws must not break the layer.
    }
  }

  /** Unload: every running task is stopped (no notice), timers cleared, spill files removed, the store closed. */
  private dispose(): void {
    if (this.disposed) return
    for (const task of [...this.tasks.values(), ...this.foreground]) {
      if (!task.terminal) this.stop(task, 'cancelled', { name: 'TaskError', code: 'ABORTED' }, new Error('the task layer was unloaded'))
    }
    for (const task of this.foreground) {
      this.clearTimers(task)
      task.output?.dispose()
    }
    this.foreground.clear()
    this.disposed = true
    for (const task of this.tasks.values()) {
      this.clearTimers(task)
      task.output?.dispose()
      task.wake()
    }
    this.tasks.clear()
    if (this.spillDirectory !== undefined) rmSync(this.spillDirectory, { recursive: true, force: true })
    const store = this.config.store
    if (store !== undefined) void store.close().catch((error: unknown) => this.warn('the task store did not close cleanly', error))
  }
}

/** True when the caller `agent` owns `task` (a live owner by identity; a restored one by `Agent.id`). */
function owns(task: Task, agent: Agent | undefined): boolean {
  return ownerMatches(task.owner, agent)
}

function ownerMatches(owner: TaskOwner, agent: Agent | undefined): boolean {
  if (owner.agent !== undefined) return owner.agent.deref() === agent && agent !== undefined
  return owner.id === (agent?.id ?? null)
}

function askedForBackground(args: unknown): boolean {
  return typeof args === 'object' && args !== null && Object.hasOwn(args, RUN_IN_BACKGROUND) && (args as Record<string, unknown>)[RUN_IN_BACKGROUND] === true
}

/** A short title: the tool and its arguments (without `run_in_background`), at most 100 characters. */
function titleOf(exec: Readonly<Pick<ToolExecution, 'arguments'>>): string {
  let shown = ''
  if (typeof exec.arguments === 'object' && exec.arguments !== null) {
    const rest = Object.fromEntries(Object.entries(exec.arguments).filter(([key]) => key !== RUN_IN_BACKGROUND))
    shown = JSON.stringify(rest) ?? ''
  }
  return shown.length > 100 ? `${shown.slice(0, 97)}...` : shown
}

function minutes(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000} minutes` : `${ms} ms`
}

function limitResult(exec: ToolExecution, problem: string): ToolExecutionResult {
  const text = `The call to ${exec.name} was not started in the background: ${problem}.`
  return { callId: exec.callId, content: [{ type: 'text', text }], isError: true, error: { name: 'TaskError', code: TASK_ERROR_CODES.LIMIT } }
}

function startedResult(exec: ToolExecution, task: Task, asked: boolean): ToolExecutionResult {
  const how = asked ? 'Started in the background' : 'Still running, so it moved to the background'
  const text =
    `${how} as task ${task.id}. Read its output and, once it ends, its result with task_output (task_id "${task.id}"; ` +
    `wait_ms to wait for it); stop it with task_kill. You are told when it ends.`
  const content: ContentBlock[] = [{ type: 'text', text }]
  return { callId: exec.callId, content, isError: false, meta: { task: { ...task.snapshot() } } }
}

/** A run's result as the registry would hand it on: a string is one text block. */
function executionResult(exec: Readonly<Pick<ToolExecution, 'callId'>>, result: TaskRunResult): ToolExecutionResult {
  if (typeof result === 'string') return { callId: exec.callId, content: [{ type: 'text', text: result }], isError: false }
  return {
    callId: exec.callId,
    content: [...result.content],
    isError: result.isError === true,
    ...(result.meta === undefined ? {} : { meta: result.meta }),
  }
}

/** What a run threw, as a failed result: its message, and its `name` and `code` (`TOOL_FAILED` without one). */
function failureResult(exec: Readonly<Pick<ToolExecution, 'callId'>>, error: unknown): ToolExecutionResult {
  const record = typeof error === 'object' && error !== null ? (error as { name?: unknown; code?: unknown; message?: unknown }) : {}
  const message = typeof record.message === 'string' ? record.message : String(error)
  const code = isDshErrorCode(record.code) ? record.code : 'TOOL_FAILED'
  const name = typeof record.name === 'string' && record.name !== '' ? record.name : 'Error'
  return { callId: exec.callId, content: [{ type: 'text', text: message }], isError: true, error: { name, code } }
}

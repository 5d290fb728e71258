// MCP tasks of a served registry, in both generations: the 2025-11-25 core tasks (the client asks with
// `params.task`; `tasks/get`, a blocking `tasks/result`, `tasks/list`, `tasks/cancel`) and the 2026-07-28 extension
// `io.modelcontextprotocol/tasks` (the server answers a long `tools/call` with `resultType: 'task'`; `tasks/get` inlines
// the result; `tasks/cancel` is an ack). One store per serving entry; every task belongs to one owner (a 2025-era
// session, a connection, or the credentials of a 2026-07-28 caller), and another owner's id reads as unknown.
import { randomBytes } from 'node:crypto'
import type { TaskStatus, ToolBackground } from '@dsh/tools-core'
import { McpConfigError } from '../mcp-config-error.js'

/** How a served registry offers long calls as MCP tasks (`ToolServerOptions.tasks`). */
export interface ServedTaskOptions {
  /**
   * The foreground budget, in milliseconds, of a tool whose `execution.background` is `'optional'` and that declares
   * no `autoBackgroundAfterMs` of its own: a call of a 2026-07-28 client that declared the tasks extension and is still
   * running after it is answered with a task. Default 5000. (A `'required'` tool without a budget becomes a task at once.)
   */
  readonly autoBackgroundAfterMs?: number | undefined
  /**
   * How long a task is kept, counted from its creation, when the client asks for no `ttl` (2025-11-25) and for every
   * 2026-07-28 task (its `ttlMs`). When it elapses the task is dropped (its id then reads as unknown) and, if still
   * running, its call is cancelled: nobody could read its result. Default 1800000 (30 minutes).
   */
  readonly ttlMs?: number | undefined
  /** The longest `ttl` a 2025-11-25 client may ask for; a longer one is cut to it. Default 86400000 (24 hours). */
  readonly maxTtlMs?: number | undefined
  /** The polling interval suggested to clients (`pollInterval` / `pollIntervalMs`). Default 1000. */
  readonly pollIntervalMs?: number | undefined
  /**
   * At most this many running tasks per owner (a 2025-era session or connection, or one caller's credentials in the
   * 2026-07-28 era). Past it, a 2026-07-28 call stays in the foreground and a task-augmented 2025-11-25 call is
   * refused with the JSON-RPC error -32000 (`data.code` `MCP_TASK_LIMIT`). Default 16.
   */
  readonly maxRunningTasks?: number | undefined
  /**
   * At most this many tasks per owner are kept, finished ones included; a new task evicts the owner's oldest finished
   * one past it. At least `maxRunningTasks`. Default 64.
   */
  readonly maxKeptTasks?: number | undefined
}

/** The checked settings of {@link ServedTaskOptions}. */
export interface ServedTaskSettings {
  readonly autoBackgroundAfterMs: number
  readonly ttlMs: number
  readonly maxTtlMs: number
  readonly pollIntervalMs: number
  readonly maxRunningTasks: number
  readonly maxKeptTasks: number
}

const maxTimerMs = 2_147_483_647
/** The shortest ttl a task gets, whatever a client asks: a task must outlive the answer that announces it. */
const minTtlMs = 1_000
/** How many tasks one `tasks/list` page holds. */
const listPageSize = 50

function integer(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new McpConfigError([`tasks.${name}: must be an integer from ${min} to ${max}, got ${JSON.stringify(value) ?? String(value)}`])
  }
  return value
}

/** Checks {@link ServedTaskOptions}; throws `McpConfigError` (`INVALID_CONFIG`). `false` turns tasks off. */
export function resolveTaskOptions(options: ServedTaskOptions | false | undefined): ServedTaskSettings | undefined {
  if (options === false) return undefined
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new McpConfigError([`tasks: must be an object or false, got ${JSON.stringify(options) ?? String(options)}`])
  }
  const given = options ?? {}
  const maxTtlMs = integer('maxTtlMs', given.maxTtlMs, 86_400_000, minTtlMs, maxTimerMs)
  const maxRunningTasks = integer('maxRunningTasks', given.maxRunningTasks, 16, 1, 10_000)
  const settings: ServedTaskSettings = {
    autoBackgroundAfterMs: integer('autoBackgroundAfterMs', given.autoBackgroundAfterMs, 5_000, 0, maxTimerMs),
    ttlMs: integer('ttlMs', given.ttlMs, Math.min(1_800_000, maxTtlMs), minTtlMs, maxTtlMs),
    maxTtlMs,
    pollIntervalMs: integer('pollIntervalMs', given.pollIntervalMs, 1_000, 1, maxTimerMs),
    maxRunningTasks,
    maxKeptTasks: integer('maxKeptTasks', given.maxKeptTasks, Math.max(64, maxRunningTasks), maxRunningTasks, 100_000),
  }
  return Object.freeze(settings)
}

/** A tool's execution policy as far as serving tasks goes, read defensively from its definition. */
export interface ServedTaskPolicy {
  readonly background: Exclude<ToolBackground, 'forbidden'>
  readonly autoBackgroundAfterMs: number | undefined
  readonly maxRuntimeMs: number | undefined
}

function ownField(value: object, key: string): unknown {
  return Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined
}

function duration(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? Math.min(value, maxTimerMs) : undefined
}

/** The task policy of a tool definition: `undefined` unless its `execution.background` is `'optional'` or `'required'`. */
export function taskPolicyOf(definition: object | undefined): ServedTaskPolicy | undefined {
  if (definition === undefined) return undefined
  try {
    const execution = ownField(definition, 'execution')
    if (typeof execution !== 'object' || execution === null) return undefined
    const background = ownField(execution, 'background')
    if (background !== 'optional' && background !== 'required') return undefined
    return { background, autoBackgroundAfterMs: duration(ownField(execution, 'autoBackgroundAfterMs')), maxRuntimeMs: duration(ownField(execution, 'maxRuntimeMs')) }
  } catch {
    // A definition whose fields can no longer be read (a revoked proxy) runs in the foreground.
    return undefined
  }
}

/** The protocol generation a task was created in: it decides how an `isError` result counts. */
export type TaskGeneration = 'legacy' | 'modern'

/** How a served task's call ended: with a `tools/call` result, or with the JSON-RPC error the call would have had. */
export type ServedTaskOutcome =
  | { readonly kind: 'result'; readonly result: Readonly<Record<string, unknown>>; readonly isError: boolean }
  | { readonly kind: 'error'; readonly error: { readonly code: number; readonly message: string; readonly data?: unknown } }

/** One served task. Its status only ever moves from `working` to a terminal status. */
export class ServedTask {
  readonly #controller = new AbortController()
  readonly #timers: ReturnType<typeof setTimeout>[] = []
  readonly #settled: Promise<void>
  #resolveSettled!: () => void
  #status: TaskStatus = 'working'
  #statusMessage: string | undefined
  #lastUpdatedAt: number
  #outcome: ServedTaskOutcome | undefined
  #dropped = false

  /** The call's signal: fires on `tasks/cancel`, at the tool's maximum run time, when the ttl elapses or the owner goes. */
  readonly signal: AbortSignal = this.#controller.signal

  constructor(
    readonly id: string,
    readonly owner: string,
    readonly generation: TaskGeneration,
    /** Orders `tasks/list` pages. */
    readonly sequence: number,
    readonly createdAt: number,
    readonly ttlMs: number,
    private readonly onChange: (task: ServedTask) => void,
  ) {
    this.#lastUpdatedAt = createdAt
    this.#settled = new Promise((resolve) => (this.#resolveSettled = resolve))
  }

  get status(): TaskStatus {
    return this.#status
  }

  get statusMessage(): string | undefined {
    return this.#statusMessage
  }

  get lastUpdatedAt(): number {
    return this.#lastUpdatedAt
  }

  /** How the call ended, once it has (not for a cancelled task). */
  get outcome(): ServedTaskOutcome | undefined {
    return this.#outcome
  }

  get terminal(): boolean {
    return this.#status !== 'working' && this.#status !== 'input_required'
  }

  /** Whether the task was dropped (expired, its owner gone, or the server closed): its id is unknown from now on. */
  get dropped(): boolean {
    return this.#dropped
  }

  /** Resolves when the task is terminal or dropped. */
  get settled(): Promise<void> {
    return this.#settled
  }

  /** Records how the call ended, unless the task is already terminal (a cancelled task stays cancelled). */
  finish(outcome: ServedTaskOutcome): void {
    if (this.terminal || this.#dropped) return
    this.#outcome = outcome
    if (outcome.kind === 'error') this.#end('failed', outcome.error.message)
    // 2025-11-25: a tool error fails the task; 2026-07-28: a tool error is a completed task with `isError: true`.
    else if (outcome.isError && this.generation === 'legacy') this.#end('failed', 'The tool reported an error (isError); tasks/result has its result.')
    else this.#end('completed', undefined)
  }

  /** Cancels a running task: its status becomes `cancelled` at once and its call's signal fires (cooperative). */
  cancel(message: string): boolean {
    if (this.terminal || this.#dropped) return false
    this.#end('cancelled', message)
    this.#controller.abort(new Error(message))
    return true
  }

  /** Schedules `run` after `ms`; the timer goes with the task. */
  schedule(ms: number, run: () => void): void {
    const timer = setTimeout(run, Math.min(ms, maxTimerMs))
    timer.unref?.()
    this.#timers.push(timer)
  }

  /** Forgets the task: timers cleared, a running call cancelled with `reason`, waiters released. */
  drop(reason: string): void {
    if (this.#dropped) return
    if (!this.terminal) {
      this.#status = 'cancelled'
      this.#statusMessage = reason
      this.#controller.abort(new Error(reason))
    }
    this.#dropped = true
    for (const timer of this.#timers) clearTimeout(timer)
    this.#timers.length = 0
    this.#resolveSettled()
  }

  #end(status: TaskStatus, message: string | undefined): void {
    this.#status = status
    this.#statusMessage = message
    this.#lastUpdatedAt = Date.now()
    this.#resolveSettled()
    try {
      this.onChange(this)
    } catch {
      // A notification that cannot be sent changes nothing about the task.
    }
  }
}

/** What creating a task needs. */
export interface CreateTaskRequest {
  readonly owner: string
  readonly generation: TaskGeneration
  /** The ttl a 2025-11-25 client asked for; cut to `maxTtlMs`, raised to at least one second. */
  readonly ttlMs?: number | undefined
  /** The tool's maximum run time, counted from `startedAt`: past it, the call's signal fires. */
  readonly maxRuntimeMs?: number | undefined
  /** When the call started (ms since the epoch). Default now. */
  readonly startedAt?: number | undefined
  /** Called when the task reaches a terminal status (for `notifications/tasks/status`). */
  readonly onChange?: ((task: ServedTask) => void) | undefined
}

/** A new task id: 128 random bits, base64url (22 characters). Ids act as bearer tokens (SEP-2663), so never guessable. */
export function newTaskId(): string {
  return randomBytes(16).toString('base64url')
}

/**
 * The tasks of one serving entry, by owner. Bounded per owner (running and kept), each task for its ttl; `closeOwner`
 * cancels and forgets an owner's tasks (a session ended), `close` all of them and refuses new ones.
 */
export class ServedTasks {
  readonly #byId = new Map<string, ServedTask>()
  readonly #byOwner = new Map<string, Map<string, ServedTask>>()
  #sequence = 0
  #closed = false

  constructor(readonly settings: ServedTaskSettings) {}

  /** How many tasks are kept now, all owners together. */
  get size(): number {
    return this.#byId.size
  }

  /** Whether `owner` may start one more task now. */
  hasRoom(owner: string): boolean {
    if (this.#closed) return false
    let running = 0
    for (const task of this.#byOwner.get(owner)?.values() ?? []) if (!task.terminal) running += 1
    return running < this.settings.maxRunningTasks
  }

  /** Creates a task (check {@link hasRoom} first); `undefined` once the store is closed or the owner has no room. */
  create(request: CreateTaskRequest): ServedTask | undefined {
    if (!this.hasRoom(request.owner)) return undefined
    const { settings } = this
    const asked = request.ttlMs
    const ttlMs = asked === undefined || !Number.isFinite(asked) ? settings.ttlMs : Math.min(Math.max(Math.floor(asked), minTtlMs), settings.maxTtlMs)
    let id = newTaskId()
    while (this.#byId.has(id)) id = newTaskId()
    this.#sequence += 1
    const now = Date.now()
    const task = new ServedTask(id, request.owner, request.generation, this.#sequence, now, ttlMs, request.onChange ?? (() => {}))
    let owned = this.#byOwner.get(request.owner)
    if (owned === undefined) {
      owned = new Map()
      this.#byOwner.set(request.owner, owned)
    }
    if (owned.size >= settings.maxKeptTasks) {
      // The oldest finished task makes room (hasRoom guarantees one exists: kept ≥ running cap).
      for (const old of owned.values()) {
        if (old.terminal) {
          this.#forget(old, 'evicted')
          break
        }
      }
    }
    owned.set(id, task)
    this.#byId.set(id, task)
    task.schedule(ttlMs, () => this.#forget(task, `The task's ttl (${ttlMs} ms) elapsed before it finished; it was cancelled.`))
    if (request.maxRuntimeMs !== undefined) {
      const left = Math.max(0, request.maxRuntimeMs - (now - (request.startedAt ?? now)))
      task.schedule(left, () => task.cancel(`The tool's maximum run time (${request.maxRuntimeMs} ms) elapsed; the call was cancelled.`))
    }
    return task
  }

  /** The task with `id` if `owner` owns it; another owner's task is exactly as unknown as a missing one. */
  get(id: unknown, owner: string): ServedTask | undefined {
    if (typeof id !== 'string') return undefined
    const task = this.#byId.get(id)
    return task !== undefined && task.owner === owner && !task.dropped ? task : undefined
  }

  /** One page of `owner`'s tasks, oldest first, after `cursor` (an opaque string from a previous page). */
  list(owner: string, cursor: unknown): { readonly tasks: readonly ServedTask[]; readonly nextCursor: string | undefined } | undefined {
    let after = 0
    if (cursor !== undefined) {
      const parsed = typeof cursor === 'string' && /^[0-9]{1,15}$/.test(cursor) ? Number(cursor) : Number.NaN
      if (!Number.isSafeInteger(parsed)) return undefined
      after = parsed
    }
    const all = [...(this.#byOwner.get(owner)?.values() ?? [])].filter((task) => task.sequence > after)
    const tasks = all.slice(0, listPageSize)
    const last = tasks.at(-1)
    return { tasks, nextCursor: all.length > listPageSize && last !== undefined ? String(last.sequence) : undefined }
  }

  /** Cancels and forgets every task of `owner` (its session or connection ended). */
  closeOwner(owner: string): void {
    // Forgetting removes entries; a Map iterates on past deletions.
    for (const task of this.#byOwner.get(owner)?.values() ?? []) this.#forget(task, 'The session that created the task ended; the task was cancelled.')
  }

  /** Cancels and forgets every task and refuses new ones (the server is closing). */
  close(): void {
    this.#closed = true
    for (const task of this.#byId.values()) this.#forget(task, 'The server closed; the task was cancelled.')
  }

  #forget(task: ServedTask, reason: string): void {
    task.drop(reason)
    this.#byId.delete(task.id)
    const owned = this.#byOwner.get(task.owner)
    owned?.delete(task.id)
    if (owned?.size === 0) this.#byOwner.delete(task.owner)
  }
}

/** The 2025-11-25 wire form of a task (`Task`). */
export function legacyTaskWire(task: ServedTask, pollIntervalMs: number): Record<string, unknown> {
  return {
    taskId: task.id,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    ttl: task.ttlMs,
    ...(task.terminal ? {} : { pollInterval: pollIntervalMs }),
  }
}

/** The 2026-07-28 wire form of a task (`DetailedTask`: the result or error inlined once terminal). */
export function modernTaskWire(task: ServedTask, pollIntervalMs: number): Record<string, unknown> {
  const outcome = task.status === 'completed' || task.status === 'failed' ? task.outcome : undefined
  return {
    taskId: task.id,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    ttlMs: task.ttlMs,
    ...(task.terminal ? {} : { pollIntervalMs }),
    ...(outcome?.kind === 'result' ? { result: outcome.result } : {}),
    ...(outcome?.kind === 'error' ? { error: outcome.error } : {}),
  }
}

import { defineToolErrorCodes } from './tool-error-codes.js'

/**
 * Where a task is: `working` (running), `input_required` (waiting for an answer), or one of the terminal states
 * `completed`, `failed` and `cancelled`, which never change again. MCP's names.
 */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled'

/** The terminal {@link TaskStatus} values: a task in one of them never changes status again. */
export const TERMINAL_TASK_STATUSES: readonly TaskStatus[] = Object.freeze(['completed', 'failed', 'cancelled'])

/** True for a terminal {@link TaskStatus}. */
export function isTerminalTaskStatus(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled'
}

/**
 * Whether a tool's calls may become tasks (MCP's vocabulary): `forbidden` (always in the foreground; the default),
 * `optional` (the model may ask with `run_in_background: true`, and a call that outlives the foreground budget moves
 * to the background), `required` (every call is a task).
 */
export type ToolBackground = 'forbidden' | 'optional' | 'required'

/**
 * How a tool's calls run as tasks, as its definition declares it (`defineTool`'s `execution`). Read by the task layer
 * (`@dsh/tool-tasks`); without it every call runs in the foreground.
 */
export interface ToolExecutionPolicy {
  /** Whether calls may become tasks. Default: `'forbidden'`. */
  readonly background?: ToolBackground | undefined
  /**
   * The foreground budget in milliseconds: a call still running after it moves to the background (its result says
   * so, with the task's id). Omit to keep a call in the foreground until it ends (unless the model asked otherwise).
   */
  readonly autoBackgroundAfterMs?: number | undefined
  /** The most a task of this tool may run, in milliseconds; past it, its signal fires. The layer's default applies when omitted. */
  readonly maxRuntimeMs?: number | undefined
}

/** The progress of a task as its body reports it (UIs and MCP show it; the model never reads it). */
export interface TaskProgress {
  /** How far it is, in the body's own units. */
  readonly progress: number
  /** The total, when known. */
  readonly total?: number | undefined
  /** A short message. */
  readonly message?: string | undefined
}

/** What a task looks like from outside: for lists, cards and notices. Frozen, JSON-safe. */
export interface TaskSnapshot {
  /** The task's id, as the model reads it. */
  readonly id: string
  /** The tool whose call it is. */
  readonly tool: string
  /** The call that started it. */
  readonly callId: string
  /** Where it is. */
  readonly status: TaskStatus
  /** A short title for lists (the call's summary). */
  readonly title: string
  /** When it started (ms since the epoch). */
  readonly startedAt: number
  /** When it reached a terminal status (ms since the epoch), once it has. */
  readonly endedAt?: number | undefined
  /** The body's last status message. */
  readonly statusMessage?: string | undefined
  /** The body's last progress report. */
  readonly progress?: TaskProgress | undefined
  /** Output bytes the task produced so far, all streams together. */
  readonly outputBytes: number
  /** Output bytes not read yet by its owner. */
  readonly unreadBytes: number
}

/**
 * The error codes of the task layer, in the `TASK` family: `TASK_LIMIT` (a cap on running tasks was reached, so the
 * call was not started), `TASK_UNKNOWN` (no task with that id is visible to the caller), `TASK_EXPIRED` (the task
 * was dropped: read too late, or the host restarted), `TASK_TIMEOUT` (the task ran past its maximum run time),
 * `TASK_HOST_RESTARTED` (the task was running when the host stopped; it cannot be resumed).
 */
export const TASK_ERROR_CODES = defineToolErrorCodes('TASK', ['LIMIT', 'UNKNOWN', 'EXPIRED', 'TIMEOUT', 'HOST_RESTARTED'])

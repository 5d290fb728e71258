// Following a task an MCP server made of a call, until its result: both generations behind the McpSession seam.
import { McpCallError } from './mcp-call-error.js'
import { MCP_ERROR_CODES } from './mcp-error-codes.js'
import { SessionFailure, type McpCallResult, type McpSession, type McpTaskState } from './session-types.js'

/** The shortest wait between two `tasks/get` polls (ms): a server's suggested interval below it is raised to it. */
export const MIN_TASK_POLL_MS = 200
/** The longest wait between two `tasks/get` polls (ms): a server's suggested interval above it is lowered to it. */
export const MAX_TASK_POLL_MS = 10_000
/** The wait between two polls when the server suggests none (ms). */
export const DEFAULT_TASK_POLL_MS = 1_000
/** The longest wait for the answer to `tasks/cancel` when a call is stopped (ms): the cancel is polite, never a hang. */
const cancelWaitMs = 2_000

/** What {@link followServerTask} needs. */
export interface FollowTaskOptions {
  readonly session: McpSession
  /** The task as the server created it. */
  readonly task: McpTaskState
  /** The call's signal (the body's, fused with the call's cap): its abort sends `tasks/cancel`. */
  readonly signal: AbortSignal
  /** Fires when the plugin is unloaded: the polling stops at once (the session is being closed). */
  readonly stop: AbortSignal
  /** The budget of each request (`tasks/get`, `tasks/result`): the call's idle budget. */
  readonly requestTimeoutMs: number
  /** The task's status message, each time it changes. */
  readonly onStatus: (message: string) => void
  /** The tool, for messages: `the MCP tool "x" of server "y"`. */
  readonly where: string
  readonly server: string
}

/** The wait before the next poll: the server's suggestion clamped to [{@link MIN_TASK_POLL_MS}, {@link MAX_TASK_POLL_MS}]. */
export function pollDelay(suggested: number | undefined): number {
  if (suggested === undefined || !Number.isFinite(suggested)) return DEFAULT_TASK_POLL_MS
  return Math.min(Math.max(suggested, MIN_TASK_POLL_MS), MAX_TASK_POLL_MS)
}

/** Waits `ms`, or less when one of `signals` fires; leaves no listener behind. */
function wait(ms: number, signals: readonly AbortSignal[]): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer)
      for (const signal of signals) signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    for (const signal of signals) {
      if (signal.aborted) return done()
      signal.addEventListener('abort', done, { once: true })
    }
  })
}

/**
 * Polls the task until it ends and returns the call's result (not mapped yet): `tasks/get` at the server's
 * `pollInterval` (clamped), then, on a 2025-era session, `tasks/result`; a 2026-07-28 `tasks/get` inlines the result
 * or the error. Each new status message goes to `onStatus`. A task that needs input (`input_required`) is cancelled
 * and the call ends with `MCP_INPUT_REQUIRED` (this client has no elicitation bridge); a task the server cancelled
 * ends it with `MCP_TASK_CANCELLED`; a failed one with the server's error. When `signal` fires (the call is stopped:
 * `task_kill`, a timeout, the task layer unloading) the task is cancelled with `tasks/cancel` before the abort is
 * rethrown. A session that closes (the server died) ends the call with a {@link SessionFailure} `closed`.
 */
export async function followServerTask(options: FollowTaskOptions): Promise<McpCallResult> {
  const { session, signal, where, server } = options
  const taskId = options.task.taskId
  const request = { timeoutMs: options.requestTimeoutMs, signal }
  let task = options.task
  let reported: string | undefined
  try {
    for (;;) {
      if (task.statusMessage !== undefined && task.statusMessage !== reported) {
        reported = task.statusMessage
        options.onStatus(task.statusMessage)
      }
      switch (task.status) {
        case 'working':
          break
        case 'completed':
          if (session.era === 'legacy') return await session.taskResult(taskId, request)
          if (task.result === undefined) throw new SessionFailure('protocol', `tasks/get reported task ${taskId} completed without its result`)
          return task.result as McpCallResult
        case 'failed':
          if (session.era === 'legacy') return await session.taskResult(taskId, request) // the result, or the JSON-RPC error it ended with
          throw failedTask(task)
        case 'cancelled':
          throw new McpCallError(
            MCP_ERROR_CODES.TASK_CANCELLED,
            `${where} ran as MCP task ${taskId}, which the server cancelled${task.statusMessage === undefined ? '' : `: ${task.statusMessage}`}. The call did not complete; what it did so far may have taken effect.`,
            server,
          )
        case 'input_required':
          await cancel(session, taskId)
          throw new McpCallError(
            MCP_ERROR_CODES.INPUT_REQUIRED,
            `${where} asked for user input (its MCP task ${taskId} is input_required${task.statusMessage === undefined ? '' : `: ${task.statusMessage}`}), which this client cannot provide; the task was cancelled.`,
            server,
          )
        default:
          await cancel(session, taskId)
          throw new SessionFailure('protocol', `task ${taskId} has the unknown status ${JSON.stringify(task.status.slice(0, 40))}; it was cancelled`)
      }
      await wait(pollDelay(task.pollIntervalMs), [signal, options.stop, session.closed])
      if (options.stop.aborted) throw new SessionFailure('closed', 'the MCP server was unloaded while its task ran')
      signal.throwIfAborted()
      if (session.closed.aborted) throw new SessionFailure('closed', `the connection to the MCP server closed while its task ${taskId} ran`)
      task = await session.getTask(taskId, request)
    }
  } catch (error) {
    if (signal.aborted && !options.stop.aborted && !session.closed.aborted) await cancel(session, taskId)
    throw error
  }
}

/** Sends `tasks/cancel` and waits a little for the answer; never throws (a task that already ended says so). */
async function cancel(session: McpSession, taskId: string): Promise<void> {
  await session.cancelTask(taskId, { timeoutMs: cancelWaitMs }).catch(() => {})
}

/** A 2026-07-28 `failed` task: the JSON-RPC error it carries. */
function failedTask(task: McpTaskState): SessionFailure {
  const error = task.error
  const record = typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {}
  const code = typeof record.code === 'number' && Number.isInteger(record.code) ? record.code : undefined
  const message = typeof record.message === 'string' ? record.message.slice(0, 2_000) : (task.statusMessage ?? 'the task failed without an error')
  return new SessionFailure('protocol', `its MCP task ${task.taskId} failed: ${message}`, code)
}

// The `tasks/*` methods of a served registry, in both generations, over the SDK's custom-method handlers (the SDK 2.4
// has no tasks runtime). The request's era decides the answer's shape: a 2026-07-28 request carries the `_meta`
// envelope; the SDK itself answers its `tasks/result` and `tasks/list` with -32601, as the extension says.
import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  type Server,
  type ServerContext,
  type StandardSchemaV1,
} from '@modelcontextprotocol/server'
import { legacyTaskWire, modernTaskWire, type ServedTask, type ServedTasks } from './served-tasks.js'

/** The extension a 2026-07-28 client declares to receive task results. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks'

/** Whether a 2026-07-28 request's envelope declares the tasks extension. */
export function declaresTasksExtension(envelope: unknown): boolean {
  if (typeof envelope !== 'object' || envelope === null) return false
  const capabilities = (envelope as Record<string, unknown>)[CLIENT_CAPABILITIES_META_KEY]
  if (typeof capabilities !== 'object' || capabilities === null) return false
  const extensions = (capabilities as { extensions?: unknown }).extensions
  return typeof extensions === 'object' && extensions !== null && Object.hasOwn(extensions, TASKS_EXTENSION)
}

/** A Standard Schema of our own (the package does not depend on zod): `check` says whether the value passes. */
function schema<T>(message: string, check: (value: unknown) => value is T): StandardSchemaV1<unknown, T> {
  return {
    '~standard': {
      version: 1,
      vendor: 'dsh',
      validate: (value) => (check(value) ? { value } : { issues: [{ message }] }),
    },
  }
}

const taskIdParams = schema('params.taskId must be a string', (value): value is { taskId: string } => typeof value === 'object' && value !== null && typeof (value as { taskId?: unknown }).taskId === 'string')
const listParams = schema('params.cursor must be a string when given', (value): value is { cursor?: string } => {
  if (typeof value !== 'object' || value === null) return false
  const cursor = (value as { cursor?: unknown }).cursor
  return cursor === undefined || typeof cursor === 'string'
})

/** The error for an id the caller cannot see: the same for a missing, expired, dropped or another owner's task. */
export function unknownTask(): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, 'Failed to retrieve task: Task not found')
}

function requireExtension(context: ServerContext): void {
  if (declaresTasksExtension(context.mcpReq.envelope)) return
  throw new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    `Missing required client capability: declare the ${TASKS_EXTENSION} extension to use the tasks methods`,
  )
}

/** Waits until `task` is terminal or dropped, or `signal` aborts (then throws its reason). */
async function settledOrAborted(task: ServedTask, signal: AbortSignal): Promise<void> {
  if (signal.aborted) throw signal.reason
  let onAbort!: () => void
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
  })
  try {
    await Promise.race([task.settled, aborted])
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
}

/**
 * Registers `tasks/get`, `tasks/cancel`, `tasks/result` and `tasks/list` on `server`, over `store`. `ownerOf` says
 * whose tasks a request may see (`undefined`: none).
 */
export function registerTaskHandlers(server: Server, store: ServedTasks, ownerOf: (context: ServerContext) => string | undefined): void {
  const { pollIntervalMs } = store.settings
  const lookup = (taskId: string, context: ServerContext): ServedTask => {
    const owner = ownerOf(context)
    const task = owner === undefined ? undefined : store.get(taskId, owner)
    if (task === undefined) throw unknownTask()
    return task
  }

  server.setRequestHandler('tasks/get', { params: taskIdParams }, (params, context) => {
    const modern = context.mcpReq.envelope !== undefined
    if (modern) requireExtension(context)
    const task = lookup(params.taskId, context)
    return modern ? modernTaskWire(task, pollIntervalMs) : legacyTaskWire(task, pollIntervalMs)
  })

  server.setRequestHandler('tasks/cancel', { params: taskIdParams }, (params, context) => {
    const modern = context.mcpReq.envelope !== undefined
    if (modern) requireExtension(context)
    const task = lookup(params.taskId, context)
    if (modern) {
      // 2026-07-28: an ack; a task that already ended stays as it is.
      task.cancel('Cancelled by the client (tasks/cancel).')
      return {}
    }
    if (task.terminal) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Cannot cancel task in terminal status: ${task.status}`)
    task.cancel('Cancelled by the client (tasks/cancel).')
    return legacyTaskWire(task, pollIntervalMs)
  })

  server.setRequestHandler('tasks/result', { params: taskIdParams }, async (params, context) => {
    if (context.mcpReq.envelope !== undefined) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found')
    const task = lookup(params.taskId, context)
    // Blocks until the task is terminal (2025-11-25), or this request is cancelled.
    await settledOrAborted(task, context.mcpReq.signal)
    if (task.dropped) throw unknownTask()
    const related = { [RELATED_TASK_META_KEY]: { taskId: task.id } }
    const outcome = task.outcome
    if (task.status === 'cancelled' || outcome === undefined) {
      throw new ProtocolError(ProtocolErrorCode.InternalError, `Task ${task.id} was cancelled before it completed: it has no result. ${task.statusMessage ?? ''}`.trim(), related)
    }
    if (outcome.kind === 'error') throw new ProtocolError(outcome.error.code, outcome.error.message, outcome.error.data)
    const meta = outcome.result._meta
    return { ...outcome.result, _meta: { ...(typeof meta === 'object' && meta !== null ? meta : {}), ...related } }
  })

  server.setRequestHandler('tasks/list', { params: listParams }, (params, context) => {
    if (context.mcpReq.envelope !== undefined) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found')
    const owner = ownerOf(context)
    const page = owner === undefined ? { tasks: [], nextCursor: undefined } : store.list(owner, params.cursor)
    if (page === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor: pass a nextCursor from a previous tasks/list page')
    return { tasks: page.tasks.map((task) => legacyTaskWire(task, pollIntervalMs)), ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }) }
  })
}

// A hand-written MCP server with tasks (newline-delimited JSON-RPC over stdio, no SDK: the SDK has no tasks
// runtime), speaking both generations: 2025-11-25 (initialize; task-augmented tools/call, tasks/get, tasks/result,
// tasks/cancel) and 2026-07-28 (server/discover; the io.modelcontextprotocol/tasks extension: a tools/call answered
// with resultType 'task' when the request declared the extension, tasks/get inlining the result or error,
// tasks/cancel an acknowledgement). Tasks are not bound to a connection. Tools, by name:
//   slow_report { topic, ms? }  task-capable: three stages of ms/3 each (default 600 ms), a status message per stage,
//                               then a report; as a plain call, the report after ms
//   needs_input { topic }       input_required after 100 ms (2026: with an elicitation in inputRequests)
//   dies { }                    the server exits 100 ms after the task was created
//   broken { }                  the task fails after 100 ms (2025: tasks/result answers a JSON-RPC error; 2026: error)
//   tool_error { }              completes with isError: true (2025: status failed, as that generation says)
//   quick { }                   never a task: a plain result at once
// FIXTURE_POLL_MS sets the suggested poll interval (default 200). Every message in is appended to FIXTURE_LOG (JSONL).
import { appendFileSync } from 'node:fs'
import { createInterface } from 'node:readline'

const EXTENSION = 'io.modelcontextprotocol/tasks'
const pollMs = Number(process.env.FIXTURE_POLL_MS ?? '200')
const log = process.env.FIXTURE_LOG
const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`)
const serverInfo = { name: 'task-fixture', version: '1.0.0' }
let modern = false
let serial = 0
/** taskId → { status, statusMessage, result, error, timers, createdAt, updatedAt } */
const tasks = new Map()

const topic = { type: 'object', properties: { topic: { type: 'string' }, ms: { type: 'integer' } } }
const tools = [
  { name: 'slow_report', description: 'A report that takes a while.', inputSchema: topic, execution: { taskSupport: 'optional' }, annotations: { readOnlyHint: true } },
  { name: 'needs_input', description: 'Asks for input mid-task.', inputSchema: topic, execution: { taskSupport: 'required' }, annotations: { readOnlyHint: true } },
  // Not read-only: a call a crash interrupted is not sent again.
  { name: 'dies', description: 'The server dies mid-task.', inputSchema: { type: 'object', properties: {} }, execution: { taskSupport: 'required' }, annotations: { readOnlyHint: false, destructiveHint: false } },
  { name: 'broken', description: 'The task fails.', inputSchema: { type: 'object', properties: {} }, execution: { taskSupport: 'required' }, annotations: { readOnlyHint: true } },
  { name: 'tool_error', description: 'A tool error.', inputSchema: { type: 'object', properties: {} }, execution: { taskSupport: 'required' }, annotations: { readOnlyHint: true } },
  { name: 'quick', description: 'Never a task.', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true } },
]

/** A result of this era: 2026 results carry resultType. */
const result = (value) => (modern ? { resultType: 'complete', ...value } : value)

function taskView(id) {
  const task = tasks.get(id)
  const base = { taskId: id, status: task.status, createdAt: task.createdAt, lastUpdatedAt: task.updatedAt, ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }) }
  if (!modern) return { ...base, ttl: 60_000, pollInterval: pollMs }
  const view = { ...base, ttlMs: 60_000, pollIntervalMs: pollMs }
  if (task.status === 'completed') view.result = task.result
  if (task.status === 'failed') view.error = task.error
  if (task.status === 'input_required') view.inputRequests = { clarify: { method: 'elicitation/create', params: { mode: 'form', message: 'Which one?', requestedSchema: { type: 'object', properties: { pick: { type: 'string' } } } } } }
  return view
}

function update(id, status, statusMessage, extra = {}) {
  const task = tasks.get(id)
  if (task === undefined || ['completed', 'failed', 'cancelled'].includes(task.status)) return
  Object.assign(task, { status, statusMessage, updatedAt: new Date().toISOString() }, extra)
}

function startTask(name, args) {
  const id = `task-${process.pid}-${++serial}`
  const now = new Date().toISOString()
  const task = { status: 'working', statusMessage: 'Started', createdAt: now, updatedAt: now, timers: [] }
  tasks.set(id, task)
  const later = (ms, run) => task.timers.push(setTimeout(run, ms))
  switch (name) {
    case 'slow_report': {
      const stage = (args.ms ?? 600) / 3
      later(0, () => update(id, 'working', 'Gathering sources...'))
      later(stage, () => update(id, 'working', 'Analyzing content...'))
      later(2 * stage, () => update(id, 'working', 'Writing the report...'))
      later(3 * stage, () => update(id, 'completed', 'Done', { result: { content: [{ type: 'text', text: `Report on ${args.topic}` }], structuredContent: { topic: args.topic } } }))
      break
    }
    case 'needs_input':
      later(100, () => update(id, 'input_required', `Which "${args.topic}" do you mean?`))
      break
    case 'dies':
      later(100, () => process.exit(7))
      break
    case 'broken':
      later(100, () => update(id, 'failed', 'The backend refused', { error: { code: -32603, message: 'the backend refused the job' } }))
      break
    case 'tool_error':
      later(100, () => update(id, modern ? 'completed' : 'failed', 'Failed', { result: { content: [{ type: 'text', text: 'the job failed: disk full' }], isError: true } }))
      break
  }
  return id
}

function declaredExtension(params) {
  const capabilities = params?._meta?.['io.modelcontextprotocol/clientCapabilities']
  return typeof capabilities?.extensions?.[EXTENSION] === 'object'
}

createInterface({ input: process.stdin }).on('line', (line) => {
  if (log !== undefined) appendFileSync(log, `${line}\n`)
  const message = JSON.parse(line)
  if (message.id === undefined || message.method === undefined) return
  const { id, params } = message
  const error = (code, text) => send({ id, error: { code, message: text } })
  switch (message.method) {
    case 'initialize':
      return send({ id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: {}, tasks: { cancel: {}, requests: { tools: { call: {} } } } }, serverInfo } })
    case 'server/discover':
      modern = true
      return send({ id, result: { supportedVersions: ['2026-07-28'], capabilities: { tools: {}, extensions: { [EXTENSION]: {} } }, resultType: 'complete', ttlMs: 0, cacheScope: 'private', _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo } } })
    case 'tools/list':
      return send({ id, result: result(modern ? { tools, ttlMs: 0, cacheScope: 'private' } : { tools }) })
    case 'tools/call': {
      const name = params.name
      if (name === 'quick') return send({ id, result: result({ content: [{ type: 'text', text: 'quick answer' }] }) })
      if (!tools.some((tool) => tool.name === name)) return error(-32602, `Unknown tool: ${name}`)
      const args = params.arguments ?? {}
      if (name === 'slow_report' && (modern ? !declaredExtension(params) : params.task === undefined)) {
        // taskSupport optional: a plain call answers when the work is done.
        setTimeout(() => send({ id, result: result({ content: [{ type: 'text', text: `Report on ${args.topic} (no task)` }] }) }), args.ms ?? 600)
        return
      }
      if (modern ? !declaredExtension(params) : params.task === undefined) {
        return modern ? send({ id, error: { code: -32021, message: 'Missing required client capability', data: { requiredCapabilities: { extensions: { [EXTENSION]: {} } } } } }) : error(-32600, `${name} requires task augmentation`)
      }
      const taskId = startTask(name, args)
      const view = taskView(taskId)
      return send({ id, result: modern ? { resultType: 'task', ...view } : { task: view } })
    }
    case 'tasks/get':
      if (!tasks.has(params?.taskId)) return error(-32602, 'Failed to retrieve task: Task not found')
      return send({ id, result: result(taskView(params.taskId)) })
    case 'tasks/result': {
      if (modern) return error(-32601, 'Method not found: tasks/result')
      const task = tasks.get(params?.taskId)
      if (task === undefined) return error(-32602, 'Failed to retrieve task: Task not found')
      if (task.status === 'failed' && task.error !== undefined) return send({ id, error: task.error })
      if (task.result === undefined) return error(-32602, `Task ${params.taskId} has no result (${task.status})`)
      return send({ id, result: { ...task.result, _meta: { 'io.modelcontextprotocol/related-task': { taskId: params.taskId } } } })
    }
    case 'tasks/cancel': {
      const task = tasks.get(params?.taskId)
      if (task === undefined) return error(-32602, 'Failed to retrieve task: Task not found')
      if (['completed', 'failed', 'cancelled'].includes(task.status)) return error(-32602, `Cannot cancel task in terminal status: ${task.status}`)
      for (const timer of task.timers) clearTimeout(timer)
      update(params.taskId, 'cancelled', 'Cancelled by the client')
      return send({ id, result: modern ? { resultType: 'complete' } : taskView(params.taskId) })
    }
    default:
      return error(-32601, `Method not found: ${message.method}`)
  }
})

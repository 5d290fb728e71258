// Serving MCP tasks (acceptance A-13), both generations, over the real HTTP server: the official SDK v1 client's
// task API for 2025-11-25, the official SDK v2 client where a 2026-07-28 client declares no tasks, and raw JSON-RPC
// where no official client speaks the 2026-07-28 tasks extension (the SDK v2 2.4 client refuses `resultType: 'task'`).
import { defineTool } from '@dsh/tools-registry'
import { createToolContext } from '@dsh/tools-testing'
import { mcpServer, whenMcpServerReady } from '../index.js'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CallToolResultSchema, McpError, TaskStatusNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { sleep, until } from '../test-support/fixtures.js'
import { rawModernClient, type RawAnswer } from '../test-support/raw-modern-client.js'
import { serveToolsHttp, type HttpServeOptions } from './index.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** How long the slow tool's body runs, and its foreground budget (kept short: the test suite stays fast). */
const bodyMs = 1_500
const budgetMs = 300

interface Body {
  /** Calls whose body started. */
  started: number
  /** Calls whose body saw `exec.signal` abort. */
  aborted: number
  /** Calls whose body ran to its end. */
  finished: number
}

/** A registry served over HTTP: `slow` (1.5 s, may run in the background after 300 ms), `slow_error` (same, fails), `quick`, `plain` (no tasks). */
async function servedRegistry(options: HttpServeOptions = {}) {
  const t = await createToolContext()
  cleanups.push(() => t.dispose())
  const body: Body = { started: 0, aborted: 0, finished: 0 }
  const run = (text: string, fail: boolean) => (_args: unknown, exec: { signal: AbortSignal }) =>
    new Promise<string>((resolve, reject) => {
      body.started += 1
      const timer = setTimeout(() => {
        body.finished += 1
        if (fail) reject(new Error(text))
        else resolve(text)
      }, bodyMs)
      exec.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer)
          body.aborted += 1
          reject(new Error('aborted'))
        },
        { once: true },
      )
    })
  const execution = { background: 'optional', autoBackgroundAfterMs: budgetMs } as const
  // concurrencySafe: no ask (nobody could answer one in a task).
  t.tools.register(defineTool({ name: 'slow', description: 'Takes 1.5 s.', parameters: {}, concurrencySafe: true, execution, execute: run('slow done', false) }))
  t.tools.register(defineTool({ name: 'slow_error', description: 'Fails after 1.5 s.', parameters: {}, concurrencySafe: true, execution, execute: run('slow failed', true) }))
  t.tools.register(defineTool({ name: 'quick', description: 'Returns at once.', parameters: {}, concurrencySafe: true, execution, execute: () => 'quick done' }))
  t.tools.register(defineTool({ name: 'plain', description: 'No tasks.', parameters: {}, concurrencySafe: true, execute: () => 'plain done' }))
  const served = await serveToolsHttp(t.ctx, options)
  cleanups.push(() => served.close())
  return { t, body, served, url: served.url }
}

const base64url128 = /^[A-Za-z0-9_-]{22}$/

function textOf(result: unknown): string {
  const content = (result as { content?: { text?: string }[] }).content ?? []
  return content.map((block) => block.text ?? '').join('\n')
}

/** Polls `tasks/get` until the task is terminal. */
async function pollModern(client: ReturnType<typeof rawModernClient>, taskId: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 15_000
  for (;;) {
    const answer = await client.request('tasks/get', { taskId })
    expect(answer.error).toBeUndefined()
    const task = answer.result as Record<string, unknown>
    if (task.status !== 'working') return task
    if (Date.now() > deadline) throw new Error(`task ${taskId} still working after 15 s`)
    await sleep(100)
  }
}

async function connectV1(url: string) {
  const client = new V1Client({ name: 'served-tasks-v1', version: '1.0.0' })
  const transport = new V1Transport(new URL(url))
  await client.connect(transport, { timeout: 30_000 })
  cleanups.push(async () => {
    await transport.terminateSession().catch(() => {})
    await client.close()
  })
  return { client, transport }
}

/** Starts a task-augmented call with the v1 client and returns its task (the first message of the stream). */
async function startV1Task(client: V1Client, name: string, ttl = 60_000) {
  const stream = client.experimental.tasks.callToolStream({ name, arguments: {} }, CallToolResultSchema, { task: { ttl }, timeout: 30_000 })
  const first = await stream.next()
  const message = first.value as { type: string; task?: { taskId: string; status: string; ttl: number | null; pollInterval?: number }; error?: unknown }
  if (message.type !== 'taskCreated' || message.task === undefined) throw new Error(`expected taskCreated, got ${JSON.stringify(message)}`)
  return { task: message.task, stream }
}

describe('2026-07-28: a client that declared the tasks extension', () => {
  it('gets resultType task once the call outlives its budget, then tasks/get completed with the result inlined', async () => {
    const { url, body } = await servedRegistry()
    const client = rawModernClient(url, { tasks: true })
    const startedAt = Date.now()
    const answer = await client.request('tools/call', { name: 'slow', arguments: {} })
    const answeredAfter = Date.now() - startedAt
    expect(answer.error).toBeUndefined()
    const created = answer.result as Record<string, unknown>
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: expect.any(Number), pollIntervalMs: expect.any(Number) })
    expect(created).not.toHaveProperty('content')
    expect(String(created.taskId)).toMatch(base64url128)
    expect(answeredAfter).toBeGreaterThanOrEqual(budgetMs - 20)
    expect(answeredAfter).toBeLessThan(bodyMs)
    expect(body.finished).toBe(0) // the body keeps running after the answer
    const task = await pollModern(client, String(created.taskId))
    expect(task.status).toBe('completed')
    expect(task.resultType).toBe('complete')
    expect(textOf(task.result)).toBe('slow done')
    expect((task.result as { isError?: boolean }).isError).toBe(false)
    expect(body).toMatchObject({ started: 1, finished: 1, aborted: 0 })
  })

  it('a call that ends within its budget is answered with its plain result', async () => {
    const { url } = await servedRegistry()
    const answer = await rawModernClient(url, { tasks: true }).request('tools/call', { name: 'quick', arguments: {} })
    expect(answer.result).toMatchObject({ resultType: 'complete' })
    expect(textOf(answer.result)).toBe('quick done')
  })

  it("a tool error is a completed task whose result has isError: true (the extension's rule)", async () => {
    const { url } = await servedRegistry()
    const client = rawModernClient(url, { tasks: true })
    const created = (await client.request('tools/call', { name: 'slow_error', arguments: {} })).result as Record<string, unknown>
    expect(created.resultType).toBe('task')
    const task = await pollModern(client, String(created.taskId))
    expect(task.status).toBe('completed')
    expect((task.result as { isError?: boolean }).isError).toBe(true)
    expect(textOf(task.result)).toContain('slow failed')
  })

  it("tasks/cancel is an ack and aborts the call's exec.signal", async () => {
    const { url, body } = await servedRegistry()
    const client = rawModernClient(url, { tasks: true })
    const created = (await client.request('tools/call', { name: 'slow', arguments: {} })).result as Record<string, unknown>
    const cancel = await client.request('tasks/cancel', { taskId: created.taskId })
    expect(cancel.error).toBeUndefined()
    expect(cancel.result).toMatchObject({ resultType: 'complete' })
    await until(() => body.aborted === 1, 5_000, 'the body saw the abort')
    const task = (await client.request('tasks/get', { taskId: created.taskId })).result as Record<string, unknown>
    expect(task.status).toBe('cancelled')
    expect(task).not.toHaveProperty('result')
  })

  it("another caller's task id is unknown (-32602), exactly like a made-up one; a caller without the extension gets -32021", async () => {
    const { url } = await servedRegistry()
    const alice = rawModernClient(url, { tasks: true, authorization: 'Bearer alice' })
    const created = (await alice.request('tools/call', { name: 'slow', arguments: {} })).result as Record<string, unknown>
    const bob = rawModernClient(url, { tasks: true, authorization: 'Bearer bob' })
    const anonymous = rawModernClient(url, { tasks: true })
    const unknown = await alice.request('tasks/get', { taskId: 'AAAAAAAAAAAAAAAAAAAAAA' })
    expect(unknown.error?.code).toBe(-32602)
    for (const other of [bob, anonymous]) {
      const seen = await other.request('tasks/get', { taskId: created.taskId })
      expect(seen.error).toEqual(unknown.error)
      expect((await other.request('tasks/cancel', { taskId: created.taskId })).error).toEqual(unknown.error)
    }
    const undeclared = await rawModernClient(url, { tasks: false, authorization: 'Bearer alice' }).request('tasks/get', { taskId: created.taskId })
    expect(undeclared.error?.code).toBe(-32021)
    // The owner still reads it.
    expect((await alice.request('tasks/get', { taskId: created.taskId })).result).toMatchObject({ status: 'working' })
  })

  it('tasks/result and tasks/list do not exist in this generation (-32601)', async () => {
    const { url } = await servedRegistry()
    const client = rawModernClient(url, { tasks: true })
    const created = (await client.request('tools/call', { name: 'slow', arguments: {} })).result as Record<string, unknown>
    expect((await client.request('tasks/result', { taskId: created.taskId })).error?.code).toBe(-32601)
    expect((await client.request('tasks/list', {})).error?.code).toBe(-32601)
  })

  it('server/discover advertises the extension', async () => {
    const { url } = await servedRegistry()
    const answer: RawAnswer = await rawModernClient(url, { tasks: true }).request('server/discover', {})
    expect(answer.result).toMatchObject({ capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } })
  })
})

describe('2026-07-28: our own client plugin (it declares the tasks extension)', () => {
  it('follows the task the server answers with, through tasks/get, to the result', async () => {
    const { url, body } = await servedRegistry()
    // What the client sends (its transport uses the global fetch): the proof that it went through a task.
    const methods: string[] = []
    const fetch = globalThis.fetch
    const spy = vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
      const method = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).get('mcp-method')
      if (method !== null) methods.push(method)
      return fetch(input, init)
    })
    cleanups.push(() => spy.mockRestore())
    const client = await createToolContext()
    cleanups.push(() => client.dispose())
    await client.load(mcpServer, { id: 'remote', url, protocol: 'auto', tools: { slow: { approval: 'allow' } } })
    expect((await whenMcpServerReady(client.ctx, 'remote')).era).toBe('modern')
    const result = await client.tools.execute({ callId: 'c1', name: 'mcp__remote__slow', arguments: {} })
    expect(result.isError).toBe(false)
    expect(result.content).toEqual([{ type: 'text', text: 'slow done' }])
    expect(body).toMatchObject({ started: 1, finished: 1, aborted: 0 })
    expect(methods).toContain('tasks/get')
  })
})

describe('2026-07-28: a client that did not declare the tasks extension', () => {
  it('gets the plain result after the body ends (the official SDK v2 client)', async () => {
    const { url, body } = await servedRegistry()
    const client = new Client({ name: 'served-tasks-v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } })
    await client.connect(new StreamableHTTPClientTransport(new URL(url)), { timeout: 30_000 })
    cleanups.push(() => client.close())
    expect(client.getProtocolEra()).toBe('modern')
    const startedAt = Date.now()
    const result = await client.callTool({ name: 'slow', arguments: {} }, { timeout: 30_000 })
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(bodyMs - 50)
    expect(textOf(result)).toBe('slow done')
    expect(body).toMatchObject({ started: 1, finished: 1 })
  })
})

describe('2025-11-25: the official SDK v1 client', () => {
  it('sees taskSupport in tools/list and the tasks capability; a task-augmented call creates a task, and tasks/result blocks until its result', async () => {
    const { url, body } = await servedRegistry()
    const { client } = await connectV1(url)
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } })
    const tools = Object.fromEntries((await client.listTools()).tools.map((tool) => [tool.name, tool.execution]))
    expect(tools).toEqual({ slow: { taskSupport: 'optional' }, slow_error: { taskSupport: 'optional' }, quick: { taskSupport: 'optional' }, plain: undefined })
    const startedAt = Date.now()
    const { task } = await startV1Task(client, 'slow')
    expect(Date.now() - startedAt).toBeLessThan(bodyMs)
    expect(task).toMatchObject({ status: 'working', ttl: 60_000 })
    expect(task.taskId).toMatch(base64url128)
    // tasks/result right away: it blocks until the body ended.
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema, { timeout: 30_000 })
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(bodyMs - 50)
    expect(textOf(result)).toBe('slow done')
    expect(result._meta?.['io.modelcontextprotocol/related-task']).toEqual({ taskId: task.taskId })
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ taskId: task.taskId, status: 'completed' })
    expect((await client.experimental.tasks.listTasks()).tasks.map((listed) => listed.taskId)).toEqual([task.taskId])
    expect(body).toMatchObject({ started: 1, finished: 1, aborted: 0 })
  })

  it('callToolStream runs the whole flow: created, statuses, result; the end is announced by notifications/tasks/status', async () => {
    const { url } = await servedRegistry()
    const { client } = await connectV1(url)
    const notified: string[] = []
    client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => void notified.push(`${notification.params.taskId}:${notification.params.status}`))
    const seen: string[] = []
    let text = ''
    for await (const message of client.experimental.tasks.callToolStream({ name: 'slow', arguments: {} }, CallToolResultSchema, { task: {}, timeout: 30_000 })) {
      seen.push(message.type === 'taskStatus' ? `status:${message.task.status}` : message.type)
      if (message.type === 'result') text = textOf(message.result)
    }
    expect(seen[0]).toBe('taskCreated')
    expect(seen.at(-2)).toBe('status:completed')
    expect(seen.at(-1)).toBe('result')
    expect(text).toBe('slow done')
    const taskId = (await client.experimental.tasks.listTasks()).tasks[0]?.taskId
    await until(() => notified.length > 0, 5_000, 'a status notification')
    expect(notified).toEqual([`${taskId}:completed`])
  })

  it("tasks/cancel aborts the call's exec.signal and returns the cancelled task; cancelling again is -32602", async () => {
    const { url, body } = await servedRegistry()
    const { client } = await connectV1(url)
    const { task } = await startV1Task(client, 'slow')
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId)
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: 'cancelled' })
    await until(() => body.aborted === 1, 5_000, 'the body saw the abort')
    const again = await client.experimental.tasks.cancelTask(task.taskId).catch((error: unknown) => error)
    expect(again).toBeInstanceOf(McpError)
    expect((again as McpError).code).toBe(-32602)
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'cancelled' })
  })

  it("another session's task id is unknown (-32602), and its tasks/list does not show it", async () => {
    const { url } = await servedRegistry()
    const { client: first } = await connectV1(url)
    const { client: second } = await connectV1(url)
    const { task } = await startV1Task(first, 'slow')
    for (const attempt of [
      () => second.experimental.tasks.getTask(task.taskId),
      () => second.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema),
      () => second.experimental.tasks.cancelTask(task.taskId),
    ]) {
      const error = await attempt().catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(McpError)
      expect((error as McpError).code).toBe(-32602)
    }
    expect((await second.experimental.tasks.listTasks()).tasks).toEqual([])
    expect((await first.experimental.tasks.getTask(task.taskId)).status).toBe('working')
  })

  it('a tool error fails the task (2025-11-25), and tasks/result returns its isError result', async () => {
    const { url } = await servedRegistry()
    const { client } = await connectV1(url)
    const { task } = await startV1Task(client, 'slow_error')
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema, { timeout: 30_000 })
    expect(result.isError).toBe(true)
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'failed' })
  })

  it('a task-augmented call of a tool that allows no tasks is -32601; ttl is honoured and bounded', async () => {
    const { url } = await servedRegistry({ tasks: { maxTtlMs: 120_000 } })
    const { client } = await connectV1(url)
    const refused = await client.request({ method: 'tools/call', params: { name: 'plain', arguments: {}, task: { ttl: 60_000 } } }, CallToolResultSchema).catch((error: unknown) => error)
    expect((refused as McpError).code).toBe(-32601)
    expect((await startV1Task(client, 'slow', 90_000)).task.ttl).toBe(90_000)
    expect((await startV1Task(client, 'slow', 10_000_000)).task.ttl).toBe(120_000)
  })

  it('ids carry 128 random bits: 22 base64url characters, all distinct', async () => {
    const { url } = await servedRegistry({ tasks: { maxRunningTasks: 8 } })
    const { client } = await connectV1(url)
    const ids = await Promise.all(Array.from({ length: 8 }, async () => (await startV1Task(client, 'slow')).task.taskId))
    for (const id of ids) {
      expect(id).toMatch(base64url128)
      expect(Buffer.from(id, 'base64url')).toHaveLength(16)
    }
    expect(new Set(ids).size).toBe(ids.length)
    // The ninth running task of this session is refused with a coded error.
    const refused = await client.request({ method: 'tools/call', params: { name: 'slow', arguments: {}, task: {} } }, CallToolResultSchema).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(McpError)
    expect((refused as McpError).data).toMatchObject({ code: 'MCP_TASK_LIMIT', maxRunningTasks: 8 })
  })

  it("ending the session (DELETE) cancels its tasks; closing the server cancels every task", async () => {
    const { url, body, served } = await servedRegistry()
    const { client, transport } = await connectV1(url)
    await startV1Task(client, 'slow')
    await transport.terminateSession()
    await until(() => body.aborted === 1, 5_000, 'the session\'s task was cancelled')
    const other = await connectV1(url)
    await startV1Task(other.client, 'slow')
    const modern = rawModernClient(url, { tasks: true })
    expect(((await modern.request('tools/call', { name: 'slow', arguments: {} })).result as Record<string, unknown>).resultType).toBe('task')
    await served.close()
    await until(() => body.aborted === 3, 5_000, 'every task was cancelled')
  })
})

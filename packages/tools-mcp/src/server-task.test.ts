// MCP tasks, client direction, against real servers: server-everything's simulate-research-query (2025-11-25) and the
// in-repo task fixture (both generations), with and without the task layer (@dsh/tool-tasks).
import { join } from 'node:path'
import { TaskService } from '@dsh/tool-tasks'
import type { ToolExecutionResult } from '@dsh/tools-core'
import { createToolContext, type ToolTestContext } from '@dsh/tools-testing'
import { afterEach, describe, expect, it } from 'vitest'
import { mcpServer, planTools, resolveMcpServerConfig, whenMcpServerReady, type McpServerConfig, type McpToolDefinition } from './index.js'
import { MAX_TASK_POLL_MS, MIN_TASK_POLL_MS, pollDelay } from './server-task.js'
import { bin, fixture, readJsonLines, until } from './test-support/fixtures.js'
import { expectNoLeftovers, recordPids } from './test-support/load.js'

const here = import.meta.dirname
const tap = join(here, 'test-support', 'stdio-tap.mjs')
const taskServer = join(here, 'test-support', 'task-server.mjs')

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await expectNoLeftovers()
})

async function connect(config: McpServerConfig, options: { layer?: boolean } = {}): Promise<ToolTestContext> {
  const t = await createToolContext()
  recordPids(t)
  cleanups.push(() => t.dispose())
  if (options.layer === true) await t.load(TaskService, { killGraceMs: 1_000 })
  await t.load(mcpServer, { killGraceMs: 500, ...config })
  const status = await whenMcpServerReady(t.ctx, config.id)
  if (status.state !== 'ready') throw new Error(`server ${config.id} is ${status.state}: ${status.error?.message}`)
  return t
}

const text = (result: ToolExecutionResult): string => result.content.map((block) => ('text' in block ? String(block.text) : `[${block.type}]`)).join('\n')
const taskIdOf = (result: ToolExecutionResult): string => (result.meta as { task: { id: string } }).task.id
let serial = 0
const call = (t: ToolTestContext, name: string, args: unknown): Promise<ToolExecutionResult> => t.tools.execute({ callId: `c${++serial}`, name, arguments: args })

/** Reads a task with task_output until it has ended; the last read. */
async function readToEnd(t: ToolTestContext, id: string): Promise<ToolExecutionResult> {
  for (;;) {
    const read = await call(t, 'task_output', { task_id: id, wait_ms: 10_000 })
    const status = (read.meta as { task?: { status?: string } } | undefined)?.task?.status
    if (read.isError || (status !== 'working' && status !== 'input_required')) return read
  }
}

interface Tapped {
  readonly dir: 'in' | 'out'
  readonly message: { method?: string; id?: unknown; params?: { taskId?: string; task?: unknown }; result?: { task?: { taskId?: string } } }
}

/** server-everything over the stdio tap; `extra` capabilities are added to the client's initialize (the tap's TAP_CAPABILITIES). */
function everything(id: string, dir: string, extra?: object): { config: McpServerConfig; log: string } {
  const log = join(dir, `${id}-tap.jsonl`)
  const config: McpServerConfig = {
    id,
    command: process.execPath,
    args: [tap, bin('mcp-server-everything'), 'stdio'],
    env: { TAP_LOG: log, ...(extra === undefined ? {} : { TAP_CAPABILITIES: JSON.stringify(extra) }) },
    trust: true,
    tools: { 'simulate-research-query': { approval: 'allow' } },
    tasks: { foregroundMs: 8_000 },
  }
  return { config, log }
}

/** The tasks server-everything created (by the topic of their call), those the client cancelled, and the methods it sent, from the tap's log. */
function tasksSeen(log: string): { created: string[]; byTopic: Map<string, string>; cancelled: string[]; methods: string[] } {
  const lines = readJsonLines<Tapped>(log)
  const topics = new Map<unknown, string>()
  for (const line of lines) if (line.dir === 'in' && line.message.method === 'tools/call') topics.set(line.message.id, String((line.message.params as { arguments?: { topic?: unknown } }).arguments?.topic))
  const byTopic = new Map<string, string>()
  const created = lines.flatMap((line) => {
    const taskId = line.dir === 'out' ? line.message.result?.task?.taskId : undefined
    if (typeof taskId !== 'string') return []
    byTopic.set(topics.get(line.message.id) ?? '', taskId)
    return [taskId]
  })
  const cancelled = lines.flatMap((line) => (line.dir === 'in' && line.message.method === 'tasks/cancel' ? [String(line.message.params?.taskId)] : []))
  const methods = lines.flatMap((line) => (line.dir === 'in' && line.message.method !== undefined ? [line.message.method] : []))
  return { created, byTopic, cancelled, methods }
}

function tempDir(): string {
  const fx = fixture([])
  cleanups.push(fx.cleanup)
  return fx.dir
}

describe('server-everything simulate-research-query (MCP tasks 2025-11-25)', () => {
  it('registers the task-only tool and, without the task layer, waits for its task in the foreground (tasks/get, then tasks/result)', async () => {
    const { config, log } = everything('every', tempDir())
    const t = await connect(config)
    const status = await whenMcpServerReady(t.ctx, 'every')
    expect(status.tools.find((tool) => tool.wireName === 'simulate-research-query')?.state).toBe('registered')
    // A task-only tool is registered foreground-first: the layer (when loaded) reads this policy.
    expect(t.tools.get('mcp__every__simulate-research-query')?.execution).toEqual({ background: 'optional', autoBackgroundAfterMs: 8_000 })
    const result = await call(t, 'mcp__every__simulate-research-query', { topic: 'tides' })
    expect(result.isError).toBe(false)
    expect(text(result)).toContain('# Research Report: tides')
    const seen = tasksSeen(log)
    expect(seen.created).toHaveLength(1)
    expect(seen.methods).toContain('tasks/get')
    expect(seen.methods.filter((method) => method === 'tasks/result')).toHaveLength(1)
    expect(seen.cancelled).toEqual([])
  })

  it('with the task layer: completes in the foreground under its budget, in the background through task_output, task_kill sends tasks/cancel, and input_required is MCP_INPUT_REQUIRED', async () => {
    // The tap adds the elicitation capability: only then does server-everything ask for input on an ambiguous topic.
    const { config, log } = everything('every', tempDir(), { elicitation: {} })
    const t = await connect(config, { layer: true })
    const name = 'mcp__every__simulate-research-query'
    expect(t.tools.schemas().find((schema) => schema.name === name)?.parameters).toMatchObject({ properties: { topic: { type: 'string' }, run_in_background: { type: 'boolean' } } })

    const foreground = call(t, name, { topic: 'tides' })
    const started = await call(t, name, { topic: 'comets', run_in_background: true })
    expect(started.isError).toBe(false)
    expect(text(started)).toMatch(/^Started in the background as task /)
    const backgroundId = taskIdOf(started)
    const killed = await call(t, name, { topic: 'volcanoes', run_in_background: true })
    const killedId = taskIdOf(killed)
    const ambiguous = call(t, name, { topic: 'python', ambiguous: true })

    // The status messages of the server's task reach the dsh task.
    await until(() => t.ctx.tasks.get(backgroundId)?.statusMessage !== undefined, 5_000, 'a status message')
    expect(t.ctx.tasks.get(backgroundId)?.statusMessage).toMatch(/\.\.\.$/)
    await until(() => tasksSeen(log).created.length >= 3, 5_000, 'three tasks created')
    const kill = await call(t, 'task_kill', { task_id: killedId })
    expect(text(kill)).toContain('was stopped')

    const [inForeground, inputRequired] = await Promise.all([foreground, ambiguous])
    expect(inForeground.isError).toBe(false)
    expect(inForeground.meta).not.toHaveProperty('task') // an ordinary result: it ended within the budget
    expect(text(inForeground)).toContain('# Research Report: tides')
    expect(inputRequired.error).toEqual({ name: 'McpCallError', code: 'MCP_INPUT_REQUIRED' })
    expect(text(inputRequired)).toContain('input_required')

    const read = await readToEnd(t, backgroundId)
    expect(text(read)).toContain('The task completed. Its result:')
    expect(text(read)).toContain('# Research Report: comets')

    // The server saw a tasks/cancel for the killed task and for the one that wanted input, and no other.
    const seen = tasksSeen(log)
    expect(seen.created).toHaveLength(4)
    expect(seen.cancelled.sort()).toEqual([seen.byTopic.get('volcanoes'), seen.byTopic.get('python')].sort())
  })
})

/** The task fixture (test-support/task-server.mjs) in `protocol`, logging every message it receives. */
async function taskFixture(protocol: 'legacy' | 'modern', options: { layer?: boolean; config?: Partial<McpServerConfig> } = {}) {
  const fx = fixture([], { config: { args: [taskServer], trust: true, protocol, tasks: { foregroundMs: 5_000 }, ...options.config } })
  cleanups.push(fx.cleanup)
  const log = join(fx.dir, 'server.jsonl')
  const t = await connect({ ...fx.config, env: { ...fx.config.env, FIXTURE_LOG: log } }, options)
  const received = () => readJsonLines<{ method?: string; params?: Record<string, unknown> }>(log)
  return { t, received }
}

describe('the task fixture, 2026-07-28 (the io.modelcontextprotocol/tasks extension)', () => {
  it('declares the extension, follows tasks the server makes (inlined results and errors), and cancels on task_kill and input_required', async () => {
    const { t, received } = await taskFixture('modern', { layer: true })
    const discover = received().find((message) => message.method === 'server/discover')
    expect(discover?.params?._meta).toMatchObject({ 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } })

    const foreground = call(t, 'mcp__fx__slow_report', { topic: 'tides' })
    const started = await call(t, 'mcp__fx__slow_report', { topic: 'comets', ms: 900, run_in_background: true })
    const id = taskIdOf(started)
    const toKill = taskIdOf(await call(t, 'mcp__fx__slow_report', { topic: 'never', ms: 30_000, run_in_background: true }))
    const [plain, input, broken, toolError, quick] = await Promise.all([
      foreground,
      call(t, 'mcp__fx__needs_input', { topic: 'python' }),
      call(t, 'mcp__fx__broken', {}),
      call(t, 'mcp__fx__tool_error', {}),
      call(t, 'mcp__fx__quick', {}),
    ])
    expect(plain.isError).toBe(false)
    expect(text(plain)).toBe('Report on tides')
    expect(plain.structuredContent).toEqual({ topic: 'tides' })
    expect(input.error?.code).toBe('MCP_INPUT_REQUIRED')
    expect(text(input)).toContain('Which "python" do you mean?')
    expect(broken.error?.code).toBe('MCP_PROTOCOL_ERROR')
    expect(text(broken)).toContain('the backend refused the job')
    expect(toolError.error?.code).toBe('MCP_SERVER_ERROR')
    expect(text(toolError)).toBe('the job failed: disk full')
    expect(text(quick)).toBe('quick answer')

    await until(() => t.ctx.tasks.get(toKill)?.statusMessage !== undefined, 5_000, 'a status message')
    expect(text(await call(t, 'task_kill', { task_id: toKill }))).toContain('was stopped')
    const read = await readToEnd(t, id)
    expect(text(read)).toContain('Report on comets')

    const methods = received().map((message) => message.method)
    expect(methods).not.toContain('tasks/result') // 2026: the result is inlined in tasks/get
    const cancels = received().filter((message) => message.method === 'tasks/cancel')
    expect(cancels).toHaveLength(2) // the killed task and the one that wanted input
    // No task-augmentation parameter: in this generation the server decides.
    expect(received().filter((message) => message.method === 'tools/call').every((message) => message.params?.task === undefined)).toBe(true)
  })

  it('follows a task in the foreground without the task layer', async () => {
    const { t } = await taskFixture('modern')
    const result = await call(t, 'mcp__fx__slow_report', { topic: 'tides', ms: 300 })
    expect(text(result)).toBe('Report on tides')
  })
})

describe('the task fixture, 2025-11-25', () => {
  it('task-augments a task-capable tool only when its call is a dsh task, and reads results and errors through tasks/result', async () => {
    const { t, received } = await taskFixture('legacy', { layer: true })
    // A quick foreground call of the task-capable tool still runs as a dsh task candidate (foreground budget), so it
    // is task-augmented; its status reaches no one but it completes in the foreground.
    const [plain, broken, toolError] = await Promise.all([
      call(t, 'mcp__fx__slow_report', { topic: 'tides', ms: 300 }),
      call(t, 'mcp__fx__broken', {}),
      call(t, 'mcp__fx__tool_error', {}),
    ])
    expect(text(plain)).toBe('Report on tides')
    expect(broken.error?.code).toBe('MCP_PROTOCOL_ERROR')
    expect(text(broken)).toContain('JSON-RPC error -32603')
    expect(toolError.error?.code).toBe('MCP_SERVER_ERROR')
    const calls = received().filter((message) => message.method === 'tools/call')
    expect(calls.every((message) => typeof (message.params?.task as { ttl?: unknown } | undefined)?.ttl === 'number')).toBe(true)
    expect(received().filter((message) => message.method === 'tasks/result')).toHaveLength(3)
  })

  it('sends a task-capable tool a plain call when no task layer is loaded', async () => {
    const { t, received } = await taskFixture('legacy')
    expect(text(await call(t, 'mcp__fx__slow_report', { topic: 'tides', ms: 200 }))).toBe('Report on tides (no task)')
    expect(received().find((message) => message.method === 'tools/call')?.params?.task).toBeUndefined()
  })
})

describe('the extension on the wire', () => {
  it('an auto session leaves the 2026 tasks extension out of a 2025 initialize, and the task-only tool still registers', async () => {
    const { config, log } = everything('every', tempDir())
    const t = await connect({ ...config, protocol: 'auto' })
    const lines = readJsonLines<Tapped>(log)
    const probe = lines.find((line) => line.dir === 'in' && line.message.method === 'server/discover')
    expect(JSON.stringify(probe?.message.params)).toContain('io.modelcontextprotocol/tasks')
    const initialize = lines.find((line) => line.dir === 'in' && line.message.method === 'initialize')
    expect((initialize?.message.params as { capabilities?: unknown } | undefined)?.capabilities).toEqual({})
    expect(t.tools.get('mcp__every__simulate-research-query')?.execution?.background).toBe('optional')
  })
})

describe('unloading during a task', () => {
  it('ends a call that follows a task with MCP_SERVER_UNLOADED at once', async () => {
    const { t } = await taskFixture('modern', { config: { env: { FIXTURE_POLL_MS: '60000' } } })
    const pending = call(t, 'mcp__fx__slow_report', { topic: 'never', ms: 60_000 })
    await new Promise((resolve) => setTimeout(resolve, 300))
    const started = Date.now()
    await t.dispose()
    const result = await pending
    expect(result.error).toEqual({ name: 'McpCallError', code: 'MCP_SERVER_UNLOADED' })
    expect(Date.now() - started).toBeLessThan(5_000)
  })
})

describe('a server that dies mid-task', () => {
  for (const protocol of ['legacy', 'modern'] as const) {
    it(`ends the call with MCP_SERVER_CRASHED, not a hang (${protocol})`, async () => {
      // The server suggests a 10 s poll: the call must end when the connection closes, not at the next poll.
      const { t } = await taskFixture(protocol, { config: { env: { FIXTURE_POLL_MS: '60000' } } })
      const started = Date.now()
      const result = await call(t, 'mcp__fx__dies', {})
      expect(result.error).toEqual({ name: 'McpCallError', code: 'MCP_SERVER_CRASHED' })
      expect(Date.now() - started).toBeLessThan(5_000)
    })
  }
})

describe('planning and polling', () => {
  const config = resolveMcpServerConfig({ id: 'p', command: 'x', trust: true, tasks: { foregroundMs: 1_234 } })
  const tool = (taskSupport: string): McpToolDefinition => ({ name: `t_${taskSupport}`, inputSchema: { type: 'object', properties: {} }, execution: { taskSupport } })

  it('registers task-capable tools only when the server supports tasks on tools/call', () => {
    const listing = [tool('required'), tool('optional'), tool('forbidden')]
    const without = planTools(listing, config, new Map())
    expect(without.map((plan) => [plan.state, plan.taskSupport])).toEqual([['unsupported', undefined], ['registered', undefined], ['registered', undefined]])
    expect(without[0]?.note).toContain('the server does not support on tools/call')
    const withTasks = planTools(listing, config, new Map(), { taskCalls: true })
    expect(withTasks.map((plan) => [plan.state, plan.taskSupport])).toEqual([['registered', 'required'], ['registered', 'optional'], ['registered', undefined]])
  })

  it('rejects a bad tasks config', () => {
    expect(() => resolveMcpServerConfig({ id: 'p', command: 'x', tasks: { foregroundMs: 0, taskOnly: 'always', later: true } })).toThrow(
      /tasks\.later: unknown option[\s\S]*tasks\.foregroundMs: must be an integer[\s\S]*tasks\.taskOnly: must be one of/,
    )
  })

  it("clamps the server's poll interval to [200 ms, 10 s] (1 s when it suggests none)", () => {
    expect([pollDelay(undefined), pollDelay(0), pollDelay(50), pollDelay(1_500), pollDelay(60_000), pollDelay(Number.NaN)]).toEqual([1_000, MIN_TASK_POLL_MS, 200, 1_500, MAX_TASK_POLL_MS, 1_000])
  })
})

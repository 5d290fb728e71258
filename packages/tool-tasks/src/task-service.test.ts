import { TASK_ERROR_CODES, type Agent, type TaskSnapshot, type ToolExecutionResult } from '@dsh/tools-core'
import { ToolRegistry } from '@dsh/tools-registry'
import { defineTool } from '@dsh/tools-schema'
import { createTestAgent, expectCleanUnload } from '@dsh/tools-testing'
import { Context, type Fiber } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { taskOf } from './task-context.js'
import type { TaskLayerConfig } from './task-config.js'
import { TaskService } from './task-service.js'
import type { StoredTask, TaskStore } from './task-store.js'

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** A promise and its resolver. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((done) => (resolve = done))
  return { promise, resolve }
}

const loaded: Fiber[] = []
afterEach(async () => {
  for (const fiber of loaded.splice(0)) await fiber.dispose()
})

interface Setup {
  readonly ctx: Context
  readonly tools: ToolRegistry
  readonly tasks: TaskService
  readonly settled: Array<[TaskSnapshot, Agent | undefined]>
  /** Unloads the task layer. */
  readonly unload: () => Promise<void>
}

async function setup(config: TaskLayerConfig = {}): Promise<Setup> {
  const ctx = new Context()
  await ctx.plugin(ToolRegistry)
  const fiber = await ctx.plugin(TaskService, { killGraceMs: 100, ...config })
  loaded.push(fiber)
  const settled: Array<[TaskSnapshot, Agent | undefined]> = []
  ctx.on('tasks/settled', (task, agent) => void settled.push([task, agent]))
  return { ctx, tools: ctx.tools, tasks: ctx.tasks, settled, unload: async () => void (await fiber.dispose()) }
}

/** task_output with wait_ms until the task has ended: every read's text, joined. */
async function readUntilEnd(tools: ToolRegistry, id: string, agent?: Agent): Promise<string> {
  const texts: string[] = []
  for (let read = 0; read < 50; read++) {
    const result = await call(tools, 'task_output', { task_id: id, wait_ms: 5_000 }, agent)
    texts.push(text(result))
    if ((result.meta as { task: TaskSnapshot }).task.status !== 'working') return texts.join('\n')
  }
  throw new Error(`task ${id} did not end`)
}

let serial = 0
const call = (tools: ToolRegistry, name: string, args: unknown, agent?: Agent, signal?: AbortSignal): Promise<ToolExecutionResult> =>
  tools.execute({ callId: `call_${++serial}`, name, arguments: args, ...(agent === undefined ? {} : { agent }), ...(signal === undefined ? {} : { signal }) })

const text = (result: ToolExecutionResult): string => result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n')
const taskIdOf = (result: ToolExecutionResult): string => (result.meta as { task: { id: string } }).task.id

/** A tool whose body waits for `gate` (and reports output through its task context when it has one). */
function gatedTool(gate: Promise<void>, execution: object, name = 'slow_job') {
  return defineTool({
    name,
    description: 'Runs a slow job.',
    parameters: { size: { type: 'integer', required: true } },
    execution,
    async execute(args, exec) {
      taskOf(exec)?.output(`starting ${args.size}\n`)
      await gate
      taskOf(exec)?.output('done\n')
      return `job of size ${args.size} finished`
    },
  })
}

describe('starting a task', () => {
  it("a background: 'optional' tool asked for the background answers at once with the task's id; the body runs to its end", async () => {
    const { tools } = await setup()
    const gate = deferred()
    tools.register(gatedTool(gate.promise, { background: 'optional' }))
    const agent = createTestAgent('a')
    const started = Date.now()
    const result = await call(tools, 'slow_job', { size: 3, run_in_background: true }, agent)
    expect(Date.now() - started).toBeLessThan(50)
    expect(result.isError).toBe(false)
    const id = taskIdOf(result)
    expect(text(result)).toContain(`Started in the background as task ${id}`)
    expect((result.meta as { task: TaskSnapshot }).task).toMatchObject({ id, tool: 'slow_job', status: 'working' })
    gate.resolve()
    const read = await readUntilEnd(tools, id, agent)
    expect(read).toContain(`Task ${id} (slow_job): completed`)
    expect(read).toContain('starting 3\n')
    expect(read).toContain('done\n')
    expect(read).toContain('job of size 3 finished')
  })

  it('a nested call (with parent) stays in the foreground past the budget, unless it asked for the background', async () => {
    const { tools, tasks } = await setup()
    tools.register(
      defineTool({
        name: 'lengthy',
        description: 'Takes a while.',
        parameters: {},
        execution: { background: 'optional', autoBackgroundAfterMs: 20 },
        execute: async () => (await pause(80), 'lengthy done'),
      }),
    )
    const nested: ToolExecutionResult[] = []
    tools.register(
      defineTool({
        name: 'program',
        description: 'Calls lengthy from inside.',
        parameters: {},
        async execute(_args, exec) {
          nested.push(await tools.execute({ callId: 'sub1', name: 'lengthy', arguments: {}, parent: exec.token }))
          nested.push(await tools.execute({ callId: 'sub2', name: 'lengthy', arguments: { run_in_background: true }, parent: exec.token }))
          return 'program done'
        },
      }),
    )
    expect(text(await call(tools, 'program', {}))).toBe('program done')
    expect(text(nested[0] as ToolExecutionResult)).toBe('lengthy done')
    expect(text(nested[1] as ToolExecutionResult)).toMatch(/^Started in the background as task /)
    // A direct call of the same tool moves to the background at its budget.
    expect(text(await call(tools, 'lengthy', {}))).toMatch(/^Still running, so it moved to the background/)
    expect(tasks.list()).toHaveLength(2)
  })

  it('without run_in_background the same tool runs in the foreground and no task is made', async () => {
    const { tools, tasks } = await setup()
    tools.register(gatedTool(Promise.resolve(), { background: 'optional' }))
    const agent = createTestAgent('a')
    const result = await call(tools, 'slow_job', { size: 1 }, agent)
    expect(text(result)).toBe('job of size 1 finished')
    expect(tasks.list(agent)).toEqual([])
  })

  it("background: 'required' makes every call a task", async () => {
    const { tools } = await setup()
    const gate = deferred()
    tools.register(gatedTool(gate.promise, { background: 'required' }))
    const result = await call(tools, 'slow_job', { size: 1 })
    expect(text(result)).toContain('Started in the background')
    gate.resolve()
  })

  it('a call still running after the foreground budget moves to the background, and task_output returns its real result', async () => {
    const { tools, tasks } = await setup()
    const gate = deferred()
    tools.register(gatedTool(gate.promise, { background: 'optional', autoBackgroundAfterMs: 50 }))
    const agent = createTestAgent('a')
    const result = await call(tools, 'slow_job', { size: 2 }, agent)
    expect(text(result)).toContain('Still running, so it moved to the background as task')
    const id = taskIdOf(result)
    expect(tasks.list(agent).map((task) => task.id)).toEqual([id])
    gate.resolve()
    expect(await readUntilEnd(tools, id, agent)).toContain('The task completed. Its result:\njob of size 2 finished')
  })

  it('a call that ends within the foreground budget is a plain result, and leaves no task', async () => {
    const { tools, tasks } = await setup()
    tools.register(gatedTool(pause(10), { background: 'optional', autoBackgroundAfterMs: 2_000 }))
    const agent = createTestAgent('a')
    const result = await call(tools, 'slow_job', { size: 2 }, agent)
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'job of size 2 finished' }] })
    expect(result.meta).toBeUndefined()
    expect(tasks.list(agent)).toEqual([])
  })

  it("the caller's abort reaches the body while it is in the foreground, and never once it is in the background", async () => {
    const { tools } = await setup()
    const seen: string[] = []
    tools.register(
      defineTool({
        name: 'watch',
        description: 'Waits to be stopped.',
        parameters: {},
        execution: { background: 'optional', autoBackgroundAfterMs: 60 },
        async execute(_args, exec) {
          const signal = taskOf(exec)?.signal ?? exec.signal
          await new Promise<void>((resolve) => {
            signal.addEventListener('abort', () => resolve(), { once: true })
            setTimeout(resolve, 400)
          })
          seen.push(signal.aborted ? 'aborted' : 'ran out')
          return 'watched'
        },
      }),
    )
    const early = new AbortController()
    const foreground = call(tools, 'watch', {}, undefined, early.signal)
    await pause(10)
    early.abort(new Error('the user pressed stop'))
    expect(text(await foreground)).toBe('watched') // the body heard the abort and answered
    const late = new AbortController()
    const moved = await call(tools, 'watch', {}, undefined, late.signal)
    expect(text(moved)).toContain('moved to the background')
    late.abort(new Error('the next turn was stopped'))
    await pause(450)
    expect(seen).toEqual(['aborted', 'ran out'])
  })
})

describe('reading a task', () => {
  it('reads with a cursor are idempotent; reads without one return what is unread and advance', async () => {
    const { tools } = await setup()
    const gate = deferred()
    tools.register(gatedTool(gate.promise, { background: 'optional' }))
    const agent = createTestAgent('a')
    const id = taskIdOf(await call(tools, 'slow_job', { size: 5, run_in_background: true }, agent))
    await pause(5)
    const first = await call(tools, 'task_output', { task_id: id, since: 0 }, agent)
    const again = await call(tools, 'task_output', { task_id: id, since: 0 }, agent)
    expect(text(first)).toContain('starting 5')
    expect(text(again)).toBe(text(first))
    const unread = await call(tools, 'task_output', { task_id: id }, agent)
    expect(text(unread)).toContain('starting 5')
    const nothingNew = await call(tools, 'task_output', { task_id: id }, agent)
    expect(text(nothingNew)).not.toContain('starting 5')
    expect((nothingNew.meta as { cursor: number }).cursor).toBe('starting 5\n'.length)
    gate.resolve()
  })

  it('wait_ms answers as soon as output arrives, not at the end of the wait', async () => {
    const { tools } = await setup()
    const gate = deferred()
    tools.register(gatedTool(gate.promise, { background: 'optional' }))
    const agent = createTestAgent('a')
    const id = taskIdOf(await call(tools, 'slow_job', { size: 1, run_in_background: true }, agent))
    await call(tools, 'task_output', { task_id: id }, agent) // reads "starting"
    setTimeout(() => gate.resolve(), 100)
    const started = Date.now()
    const read = await call(tools, 'task_output', { task_id: id, wait_ms: 10_000 }, agent)
    expect(Date.now() - started).toBeLessThan(1_000)
    expect(text(read)).toContain('done')
  })

  it('output past the window spills to a file and a read from an early cursor still returns it', async () => {
    const { tools } = await setup({ outputWindowBytes: 1_024, readLimitBytes: 100_000 })
    tools.register(
      defineTool({
        name: 'chatty',
        description: 'Prints a lot.',
        parameters: {},
        execution: { background: 'required' },
        execute(_args, exec) {
          const task = taskOf(exec)
          for (let line = 0; line < 500; line++) task?.output(`line ${line}\n`)
          return 'printed'
        },
      }),
    )
    const id = taskIdOf(await call(tools, 'chatty', {}))
    await pause(10)
    const read = await call(tools, 'task_output', { task_id: id, since: 0 })
    expect(text(read)).toContain('line 0\nline 1\n')
    expect(text(read)).toContain('line 499\n')
  })
})

describe('the task card', () => {
  it("task_output and task_kill present their result as a task card: the task's id, tool, status and progress", async () => {
    const { tools } = await setup()
    const gate = deferred()
    tools.register(
      defineTool({
        name: 'reporter',
        description: 'Reports progress.',
        parameters: {},
        execution: { background: 'required' },
        async execute(_args, exec) {
          taskOf(exec)?.status('halfway')
          taskOf(exec)?.progress({ progress: 1, total: 2 })
          await gate.promise
          return 'reported'
        },
      }),
    )
    const id = taskIdOf(await call(tools, 'reporter', {}))
    const read = await call(tools, 'task_output', { task_id: id })
    const card = tools.get('task_output')?.presentResult?.({ task_id: id }, read)
    expect(card).toEqual({ card: 'task', title: `Task ${id} (reporter)`, taskId: id, status: 'working', statusMessage: 'halfway', progress: { progress: 1, total: 2 } })
    const killed = await call(tools, 'task_kill', { task_id: id })
    expect(tools.get('task_kill')?.presentResult?.({ task_id: id }, killed)).toMatchObject({ card: 'task', status: 'cancelled' })
    // A failure (an unknown id) keeps the generic card.
    const unknown = await call(tools, 'task_output', { task_id: 'task_none' })
    expect(tools.get('task_output')?.presentResult?.({ task_id: 'task_none' }, unknown)).toBeUndefined()
    gate.resolve()
  })
})

describe('stopping a task', () => {
  it('task_kill stops a cooperative body: cancelled, and said so', async () => {
    const { tools, settled } = await setup()
    tools.register(
      defineTool({
        name: 'sleeper',
        description: 'Sleeps until stopped.',
        parameters: {},
        execution: { background: 'required' },
        execute: (_args, exec) =>
          new Promise<string>((resolve) => taskOf(exec)?.signal.addEventListener('abort', () => resolve('woke'), { once: true })),
      }),
    )
    const agent = createTestAgent('a')
    const id = taskIdOf(await call(tools, 'sleeper', {}, agent))
    const killed = await call(tools, 'task_kill', { task_id: id }, agent)
    expect(text(killed)).toBe(`Task ${id} was stopped.`)
    const read = await call(tools, 'task_output', { task_id: id }, agent)
    expect(text(read)).toContain(`Task ${id} (sleeper): cancelled`)
    expect(text(read)).toContain('stopped before it finished')
    expect(agent.injected).toEqual([])
    expect(settled).toEqual([])
  })

  it('a body that ignores its signal: "may still be running", and its late settlement changes nothing', async () => {
    const { tools } = await setup({ killGraceMs: 50 })
    const gate = deferred()
    tools.register(gatedTool(gate.promise, { background: 'required' }, 'stubborn'))
    const id = taskIdOf(await call(tools, 'stubborn', { size: 1 }))
    const killed = await call(tools, 'task_kill', { task_id: id })
    expect(text(killed)).toContain('may still be running')
    gate.resolve()
    await pause(10)
    const read = await call(tools, 'task_output', { task_id: id })
    expect(text(read)).toContain('cancelled')
    expect(text(read)).not.toContain('job of size 1 finished')
  })

  it('a task past its maximum run time fails with TASK_TIMEOUT, its signal fired, and the owner is told', async () => {
    const { tools, settled } = await setup()
    const stopped: boolean[] = []
    tools.register(
      defineTool({
        name: 'endless',
        description: 'Runs until stopped.',
        parameters: {},
        execution: { background: 'required', maxRuntimeMs: 60 },
        execute: (_args, exec) =>
          new Promise<string>((resolve) =>
            taskOf(exec)?.signal.addEventListener('abort', () => {
              stopped.push(true)
              resolve('stopped')
            }),
          ),
      }),
    )
    const agent = createTestAgent('a')
    const id = taskIdOf(await call(tools, 'endless', {}, agent))
    await pause(150)
    expect(stopped).toEqual([true])
    expect(settled.map(([task]) => [task.id, task.status])).toEqual([[id, 'failed']])
    expect(text(await call(tools, 'task_output', { task_id: id }, agent))).toContain('failed')
    expect(agent.injected).toHaveLength(1)
  })
})

describe('who sees a task', () => {
  it("another agent's task id reads exactly like an unknown one, in task_output, task_kill and task_list", async () => {
    const { tools } = await setup()
    tools.register(gatedTool(deferred().promise, { background: 'required' }))
    const a = createTestAgent('a')
    const b = createTestAgent('b')
    const id = taskIdOf(await call(tools, 'slow_job', { size: 1 }, a))
    for (const name of ['task_output', 'task_kill']) {
      const foreign = await call(tools, name, { task_id: id }, b)
      const unknown = await call(tools, name, { task_id: 'task_nothing' }, b)
      expect(foreign.error?.code).toBe(TASK_ERROR_CODES.UNKNOWN)
      expect(text(foreign).replace(id, 'ID')).toBe(text(unknown).replace('task_nothing', 'ID'))
    }
    expect(text(await call(tools, 'task_list', {}, b))).toBe('You have no background tasks.')
    expect(text(await call(tools, 'task_list', {}, a))).toContain(id)
  })

  it('an id of an earlier run of the host says so', async () => {
    const { tools } = await setup()
    const result = await call(tools, 'task_output', { task_id: 'task_abcdef_1' })
    expect(result.error?.code).toBe(TASK_ERROR_CODES.HOST_RESTARTED)
  })
})

describe('caps and retention', () => {
  it('the task past the per-agent cap is not started (TASK_LIMIT); other agents still may', async () => {
    const { tools } = await setup({ maxRunningPerAgent: 2 })
    tools.register(gatedTool(deferred().promise, { background: 'optional' }))
    const a = createTestAgent('a')
    for (let index = 0; index < 2; index++) expect((await call(tools, 'slow_job', { size: 1, run_in_background: true }, a)).isError).toBe(false)
    const third = await call(tools, 'slow_job', { size: 1, run_in_background: true }, a)
    expect(third.error?.code).toBe(TASK_ERROR_CODES.LIMIT)
    expect(text(third)).toContain('you already have 2 tasks running')
    expect((await call(tools, 'slow_job', { size: 1, run_in_background: true }, createTestAgent('b'))).isError).toBe(false)
  })

  it('the global cap holds across agents', async () => {
    const { tools } = await setup({ maxRunningTotal: 2 })
    tools.register(gatedTool(deferred().promise, { background: 'required' }))
    await call(tools, 'slow_job', { size: 1 }, createTestAgent('a'))
    await call(tools, 'slow_job', { size: 1 }, createTestAgent('b'))
    expect((await call(tools, 'slow_job', { size: 1 }, createTestAgent('c'))).error?.code).toBe(TASK_ERROR_CODES.LIMIT)
  })

  it('past the cap of finished unread tasks the oldest is dropped, and reading it says why', async () => {
    const { tools } = await setup({ maxFinishedPerAgent: 1 })
    tools.register(gatedTool(Promise.resolve(), { background: 'required' }))
    const a = createTestAgent('a')
    const first = taskIdOf(await call(tools, 'slow_job', { size: 1 }, a))
    await pause(5)
    const second = taskIdOf(await call(tools, 'slow_job', { size: 2 }, a))
    await pause(5)
    const expired = await call(tools, 'task_output', { task_id: first }, a)
    expect(expired.error?.code).toBe(TASK_ERROR_CODES.EXPIRED)
    expect(text(expired)).toContain('more than 1 finished tasks were not read')
    expect(text(await call(tools, 'task_output', { task_id: second }, a))).toContain('completed')
    // Another agent asking about the dropped id learns nothing.
    expect((await call(tools, 'task_output', { task_id: first }, createTestAgent('b'))).error?.code).toBe(TASK_ERROR_CODES.UNKNOWN)
  })

  it('a finished task is forgotten after the retention time', async () => {
    const { tools } = await setup({ retentionMs: 30 })
    tools.register(gatedTool(Promise.resolve(), { background: 'required' }))
    const id = taskIdOf(await call(tools, 'slow_job', { size: 1 }))
    await pause(80)
    expect((await call(tools, 'task_output', { task_id: id })).error?.code).toBe(TASK_ERROR_CODES.EXPIRED)
  })
})

describe('notices', () => {
  it('a task that ends on its own tells its owner once and emits tasks/settled once', async () => {
    const { tools, settled } = await setup()
    const gate = deferred()
    tools.register(gatedTool(gate.promise, { background: 'required' }))
    const agent = createTestAgent('a')
    const id = taskIdOf(await call(tools, 'slow_job', { size: 1 }, agent))
    gate.resolve()
    await pause(10)
    expect(agent.injected).toHaveLength(1)
    expect(agent.injected[0]?.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining(`Background task ${id}`) })
    expect(settled.map(([task, told]) => [task.id, task.status, told])).toEqual([[id, 'completed', agent]])
  })

  it('an owner that cannot be told (no inject, or inject throws) passes the notice to its nearest live parent', async () => {
    const { tools, settled } = await setup()
    const gate = deferred()
    tools.register(gatedTool(gate.promise, { background: 'required' }))
    const parent = createTestAgent('parent')
    const child: Agent = {
      id: 'child',
      parent,
      inject() {
        throw new Error('this agent has ended')
      },
    }
    await call(tools, 'slow_job', { size: 1 }, child)
    gate.resolve()
    await pause(10)
    expect(parent.injected).toHaveLength(1)
    expect(settled[0]?.[1]).toBe(parent)
  })
})

describe('the state machine', () => {
  it('never leaves a terminal status, and never reports completed before the body settled, whatever the order of events', async () => {
    const { tools } = await setup({ killGraceMs: 0 })
    const gates = new Map<number, () => void>()
    tools.register(
      defineTool({
        name: 'controlled',
        description: 'Ends when told.',
        parameters: { n: { type: 'integer', required: true } },
        execution: { background: 'required' },
        execute: (args, exec) =>
          new Promise<string>((resolve) => {
            const task = taskOf(exec)
            gates.set(args.n, () => resolve(`body ${args.n} settled`))
            task?.status('working hard')
            task?.progress({ progress: 1, total: 2 })
          }),
      }),
    )
    const agent = createTestAgent('a')
    for (let round = 0; round < 30; round++) {
      const id = taskIdOf(await call(tools, 'controlled', { n: round }, agent))
      const order = [...['kill', 'settle', 'read'].keys()].sort(() => Math.random() - 0.5)
      const seen: string[] = []
      for (const step of order) {
        if (step === 0) await call(tools, 'task_kill', { task_id: id }, agent)
        if (step === 1) {
          gates.get(round)?.()
          await pause(1)
        }
        const status = (await call(tools, 'task_output', { task_id: id, since: 0 }, agent)).meta as { task: TaskSnapshot }
        seen.push(status.task.status)
      }
      const settledAt = order.indexOf(1)
      const terminalAt = seen.findIndex((status) => status !== 'working')
      // Once terminal, terminal for good, and always the same status.
      for (const status of seen.slice(terminalAt === -1 ? seen.length : terminalAt)) expect(status).toBe(seen[terminalAt])
      // "completed" only at or after the step where the body settled.
      const completedAt = seen.indexOf('completed')
      if (completedAt !== -1) expect(completedAt).toBeGreaterThanOrEqual(settledAt)
      await call(tools, 'task_kill', { task_id: id }, agent)
      gates.get(round)?.()
    }
  })
})

describe('durability', () => {
  /** A store in memory, shared by two loads of the layer as a file would be by two runs of the host. */
  function memoryStore(records: Map<string, StoredTask>): TaskStore {
    return {
      load: async () => [...records.values()],
      save: (task) => void records.set(task.id, structuredClone(task)),
      drop: (id) => void records.delete(id),
      close: async () => {},
    }
  }

  it('after a restart, a delivered result is readable again and a task that was running reads failed: host restarted', async () => {
    const records = new Map<string, StoredTask>()
    const first = await setup({ store: memoryStore(records) })
    const gate = deferred()
    first.tools.register(gatedTool(Promise.resolve(), { background: 'required' }, 'quick'))
    first.tools.register(gatedTool(gate.promise, { background: 'required' }, 'long'))
    const agent = createTestAgent('a')
    const done = taskIdOf(await call(first.tools, 'quick', { size: 1 }, agent))
    const running = taskIdOf(await call(first.tools, 'long', { size: 2 }, agent))
    expect(done).toMatch(/^task_[a-z0-9]{10}$/)
    const delivered = await readUntilEnd(first.tools, done, agent)
    // The host dies here (nothing runs its unload): what the store holds is what the next run finds.
    const crashed = new Map([...records].map(([id, task]) => [id, structuredClone(task)]))
    expect(crashed.get(running)?.status).toBe('working')
    const second = await setup({ store: memoryStore(crashed) })
    const records2 = crashed
    const sameAgent = createTestAgent('a')
    expect(records2.get(running)?.status).toBe('failed')
    expect(records2.get(running)?.error?.code).toBe(TASK_ERROR_CODES.HOST_RESTARTED)
    const again = await call(second.tools, 'task_output', { task_id: done }, sameAgent)
    expect(text(again)).toContain('job of size 1 finished')
    expect(delivered).toContain('job of size 1 finished')
    const lost = await call(second.tools, 'task_output', { task_id: running }, sameAgent)
    expect(text(lost)).toContain('failed')
    expect((lost.meta as { task: TaskSnapshot }).task.status).toBe('failed')
    expect((await call(second.tools, 'task_output', { task_id: done }, createTestAgent('b'))).error?.code).toBe(TASK_ERROR_CODES.UNKNOWN)
  })
})

describe('unloading', () => {
  it('stops every running task, removes the tools and the wrapper, and leaves nothing behind', async () => {
    const report = await expectCleanUnload(TaskService, { config: { killGraceMs: 10 } })
    expect([...report.footprint.tools].sort()).toEqual(['task_kill', 'task_list', 'task_output'])
    const { tools, unload } = await setup()
    const signals: AbortSignal[] = []
    tools.register(
      defineTool({
        name: 'sleeper',
        description: 'Sleeps.',
        parameters: {},
        execution: { background: 'required' },
        execute: (_args, exec) => {
          const signal = taskOf(exec)?.signal as AbortSignal
          signals.push(signal)
          return new Promise<string>((resolve) => signal.addEventListener('abort', () => resolve('stopped')))
        },
      }),
    )
    await call(tools, 'sleeper', {})
    await unload()
    expect(signals[0]?.aborted).toBe(true)
    expect(tools.schemas().map((schema) => schema.name)).toEqual(['sleeper'])
  })

  it('stops a call still in its foreground budget too', async () => {
    const { tools, unload } = await setup()
    const signals: AbortSignal[] = []
    tools.register(
      defineTool({
        name: 'patient',
        description: 'Waits.',
        parameters: {},
        execution: { background: 'optional', autoBackgroundAfterMs: 60_000 },
        execute: (_args, exec) => {
          const signal = taskOf(exec)?.signal as AbortSignal
          signals.push(signal)
          return new Promise<string>((resolve) => signal.addEventListener('abort', () => resolve('stopped')))
        },
      }),
    )
    const pending = call(tools, 'patient', {})
    await pause(10)
    await unload()
    expect(signals[0]?.aborted).toBe(true)
    expect(text(await pending)).toBe('stopped')
  })
})

describe('a tool that starts its own task (ctx.tasks.start)', () => {
  /** A tool with its own `later` flag: when set, its body hands `run` to the layer and answers at once. */
  function ownFlagTool(tasks: TaskService, run: (signal: AbortSignal, output: (text: string) => void) => Promise<string>) {
    return defineTool({
      name: 'own_flag',
      description: 'Runs now or later.',
      parameters: { later: { type: 'boolean' } },
      async execute(args, exec) {
        if (args.later !== true) return run(exec.signal, () => undefined)
        const started = tasks.start(exec, (task) => run(task.signal, (chunk) => task.output(chunk)))
        return { content: [{ type: 'text', text: `later as ${started.task.id}` }], meta: { id: started.task.id } }
      },
    })
  }

  it('is a task like any other: listed, read with task_output (output, then the final result), and its owner is told once', async () => {
    const { tools, tasks, settled } = await setup()
    const gate = deferred()
    tools.register(
      ownFlagTool(tasks, async (_signal, output) => {
        output('first\n')
        await gate.promise
        output('second\n')
        return 'all done'
      }),
    )
    const agent = createTestAgent('own')
    const started = await call(tools, 'own_flag', { later: true }, agent)
    const id = (started.meta as { id: string }).id
    expect(text(started)).toBe(`later as ${id}`)
    expect(tasks.list(agent).map((task) => [task.id, task.tool, task.status])).toEqual([[id, 'own_flag', 'working']])
    await pause(5)
    expect(text(await call(tools, 'task_output', { task_id: id }, agent))).toContain('first\n')
    gate.resolve()
    const rest = await readUntilEnd(tools, id, agent)
    expect(rest).toContain('second\n')
    expect(rest).toContain('The task completed. Its result:\nall done')
    expect(rest).not.toContain('first')
    expect(agent.injected).toHaveLength(1)
    expect(settled.map(([task]) => [task.id, task.status])).toEqual([[id, 'completed']])
  })

  it('task_kill fires the run’s signal; a run that throws fails the task with its code', async () => {
    const { tools, tasks } = await setup()
    let seen: AbortSignal | undefined
    const unregister = tools.register(
      ownFlagTool(tasks, (signal) => {
        seen = signal
        return new Promise<string>((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(Object.assign(new Error('stopped by its signal'), { code: 'ABORTED' }))),
        )
      }),
    )
    const id = (await call(tools, 'own_flag', { later: true })).meta as { id: string }
    expect(text(await call(tools, 'task_kill', { task_id: id.id }))).toBe(`Task ${id.id} was stopped.`)
    expect(seen?.aborted).toBe(true)
    expect(tasks.get(id.id)?.status).toBe('cancelled')

    unregister()
    tools.register(ownFlagTool(tasks, () => Promise.reject(Object.assign(new Error('the disk is full'), { name: 'DiskError', code: 'DISK_FULL' }))))
    const failed = (await call(tools, 'own_flag', { later: true })).meta as { id: string }
    const read = await readUntilEnd(tools, failed.id)
    expect(read).toContain(`Task ${failed.id} (own_flag): failed`)
    expect(read).toContain('The task failed (DISK_FULL). Its result:\nthe disk is full')
  })

  it('refuses with TASK_LIMIT before running anything when a cap is reached; cancel() stops a task without a notice', async () => {
    const { tools, tasks, settled } = await setup({ maxRunningPerAgent: 1 })
    const runs: AbortSignal[] = []
    tools.register(
      ownFlagTool(tasks, (signal) => {
        runs.push(signal)
        return new Promise<string>((resolve) => signal.addEventListener('abort', () => resolve('stopped')))
      }),
    )
    const agent = createTestAgent('capped')
    const first = await call(tools, 'own_flag', { later: true }, agent)
    expect(tasks.roomFor(agent)).toMatch(/^you already have 1 tasks running/)
    expect(tasks.roomFor(createTestAgent('other'))).toBeUndefined()
    const refused = await call(tools, 'own_flag', { later: true }, agent)
    expect(refused).toMatchObject({ isError: true, error: { name: 'TaskError', code: TASK_ERROR_CODES.LIMIT } })
    expect(text(refused)).toMatch(/^The call to own_flag was not started in the background: you already have 1 tasks running/)
    await pause(5)
    expect(runs).toHaveLength(1)
    // cancel(): as an unload does it.
    const exec = { callId: 'direct', name: 'own_flag', arguments: {}, signal: new AbortController().signal, agent: createTestAgent('direct') }
    const started = tasks.start(exec, (task) => new Promise<string>((resolve) => task.signal.addEventListener('abort', () => resolve('gone'))))
    started.cancel('the tool was unloaded')
    await pause(5)
    expect(tasks.get(started.task.id, exec.agent)?.status).toBe('cancelled')
    expect(exec.agent.injected).toHaveLength(0)
    expect(settled).toEqual([])
    expect((first.meta as { id: string }).id).not.toBe(started.task.id)
  })
})

import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { TaskService } from '@dsh/tool-tasks'
import type { Agent, TaskSnapshot, ToolExecutionResult } from '@dsh/tools-core'
import { createTestAgent, createToolContext, type ToolTestContext } from '@dsh/tools-testing'
import { afterEach, describe, expect, it } from 'vitest'
import type { BashStartMeta } from './bash-tool-meta.js'
import { BashTools } from './bash-tools.js'
import { LocalBashExecutor } from './local-bash-executor.js'
import { isProcessAlive } from './process-group.js'
import { pidsIn, useScratch, waitFor } from './test-support.js'

const { scratch, spillRoot } = useScratch('tool-bash-layer-')
const opened: ToolTestContext[] = []
afterEach(async () => {
  for (const t of opened.splice(0)) await t.dispose()
})

interface Loaded {
  readonly t: ToolTestContext
  readonly settled: Array<[TaskSnapshot, Agent | undefined]>
  call(name: string, args: unknown, agent?: Agent): Promise<ToolExecutionResult>
}

let serial = 0

/** The registry, the local executor, the task layer (`layer` config) and the bash tools, in that order. */
async function load(layer: Record<string, unknown> = {}): Promise<Loaded> {
  const t = await createToolContext({
    plugins: [
      [LocalBashExecutor, { cwd: scratch, tempDir: spillRoot, killGraceMs: 300 }],
      [TaskService, { killGraceMs: 2_000, ...layer }],
      [BashTools, {}],
    ],
  })
  opened.push(t)
  const settled: Array<[TaskSnapshot, Agent | undefined]> = []
  t.ctx.on('tasks/settled', (task, agent) => void settled.push([task, agent]))
  return {
    t,
    settled,
    call: (name, args, agent) => t.tools.execute({ callId: `call_${(serial += 1)}`, name, arguments: args, ...(agent === undefined ? {} : { agent }) }),
  }
}

const text = (result: ToolExecutionResult): string => result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n')

async function start(loaded: Loaded, command: string, agent?: Agent): Promise<BashStartMeta> {
  const result = await loaded.call('bash', { command, run_in_background: true }, agent)
  expect(result).toMatchObject({ isError: false })
  return result.meta as BashStartMeta
}

/** task_output (or bash_output) until the task has ended: every read's text, joined. */
async function readToEnd(loaded: Loaded, id: string, agent?: Agent, tool = 'task_output'): Promise<string> {
  const texts: string[] = []
  for (let read = 0; read < 100; read++) {
    const result = await loaded.call(tool, tool === 'task_output' ? { task_id: id, wait_ms: 5_000 } : { task_id: id }, agent)
    expect(result.isError).toBe(false)
    texts.push(text(result))
    if ((result.meta as { task: TaskSnapshot }).task.status !== 'working') return texts.join('\n')
    if (tool !== 'task_output') await new Promise((resolve) => setTimeout(resolve, 30))
  }
  throw new Error(`task ${id} did not end: ${texts.slice(-2).join(' | ')}`)
}

describe('bash with run_in_background on the task layer', () => {
  it('is a layer task: listed by task_list, read by task_output and bash_output alike, and its owner is told once', async () => {
    const loaded = await load()
    const agent = createTestAgent('builder')
    const gate = join(scratch, 'gate-read')
    const started = await loaded.call(
      'bash',
      { command: `echo one; while [ ! -e ${gate} ]; do sleep 0.01; done; echo two >&2; echo three; exit 3`, run_in_background: true },
      agent,
    )
    const meta = started.meta as BashStartMeta
    expect(meta).toMatchObject({ taskId: expect.stringMatching(/^task_/), status: 'running', pid: expect.any(Number), cwd: scratch, timeoutMs: 600_000 })
    expect(meta.task).toMatchObject({ id: meta.taskId, tool: 'bash', status: 'working' })
    expect(text(started)).toBe(
      `Started background task ${meta.taskId} in ${scratch} (timeout 600000ms). Read its output with bash_output or task_output ` +
        `and stop it with bash_kill or task_kill (task_id "${meta.taskId}"); you will be told when it ends.`,
    )
    const listed = await loaded.call('task_list', {}, agent)
    expect(listed.meta).toMatchObject({ tasks: [{ id: meta.taskId, tool: 'bash', status: 'working' }] })
    // Another agent sees nothing of it.
    expect(await loaded.call('task_list', {}, createTestAgent('other'))).toMatchObject({ content: [{ text: 'You have no background tasks.' }] })
    await waitFor(() => loaded.t.ctx.tasks.get(meta.taskId, agent)?.outputBytes === 4)
    const first = await loaded.call('bash_output', { task_id: meta.taskId }, agent)
    expect(text(first)).toBe(`Task ${meta.taskId} (bash): working\none\n\n[cursor: 4]`)
    const again = await loaded.call('task_output', { task_id: meta.taskId, since: 0 }, agent)
    expect(text(again)).toBe(text(first))
    writeFileSync(gate, '')
    const rest = await readToEnd(loaded, meta.taskId, agent)
    expect(rest).not.toContain('one')
    expect(rest).toContain('[stderr]\ntwo\n')
    expect(rest).toContain('three\n')
    expect(rest).toContain(`Task ${meta.taskId} (bash): completed`)
    expect(rest).toContain('The task completed. Its result:\nThe command finished with exit code 3.')
    expect(agent.injected).toHaveLength(1)
    expect(agent.injected[0]?.content[0]).toMatchObject({ text: expect.stringContaining(`Background task ${meta.taskId} (bash: `) })
    expect(loaded.settled.map(([task, told]) => [task.id, task.status, told])).toEqual([[meta.taskId, 'completed', agent]])
  })

  it('every byte reaches the task, past both windows, and a character split across chunks stays whole', async () => {
    const loaded = await load()
    const expected = Array.from({ length: 20_000 }, (_, index) => `${index + 1}\n`).join('')
    const { taskId } = await start(loaded, 'seq 1 20000')
    await readToEnd(loaded, taskId)
    const task = loaded.t.ctx.tasks.get(taskId)
    expect(task?.outputBytes).toBe(Buffer.byteLength(expected))
    const middle = await loaded.call('task_output', { task_id: taskId, since: 50_000 })
    expect(text(middle)).toContain(expected.slice(50_000, 50_100))

    const gate = join(scratch, 'gate-split')
    const split = await start(loaded, `printf 'caf\\xc3'; while [ ! -e ${gate} ]; do sleep 0.01; done; printf '\\xa9!'`)
    await new Promise((resolve) => setTimeout(resolve, 100))
    writeFileSync(gate, '')
    const reads = await readToEnd(loaded, split.taskId)
    const whole = text(await loaded.call('task_output', { task_id: split.taskId, since: 0 }))
    expect(whole).toContain('\ncafé!\n')
    expect(reads + whole).not.toContain('\uFFFD')
  })

  it('task_kill and bash_kill stop the whole process tree, answer alike, and nobody is told', async () => {
    const loaded = await load()
    const agent = createTestAgent('killer')
    const tree = "echo $$; sleep 100 & echo $!; bash -c 'sleep 100 & echo $!; wait'; wait"
    const killed: string[] = []
    for (const tool of ['task_kill', 'bash_kill']) {
      const { taskId } = await start(loaded, tree, agent)
      const pids = pidsIn(await outputWhen(loaded, taskId, agent, (output) => pidsIn(output).length === 3))
      const result = await loaded.call(tool, { task_id: taskId }, agent)
      expect(result).toMatchObject({ isError: false, meta: { task: { id: taskId, status: 'cancelled' } } })
      killed.push(text(result).replace(taskId, 'ID'))
      for (const pid of pids) expect(isProcessAlive(pid)).toBe(false)
    }
    expect(killed).toEqual(['Task ID was stopped.', 'Task ID was stopped.'])
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(agent.injected).toHaveLength(0)
    expect(loaded.settled).toEqual([])
  })

  it("the layer's caps apply: a start past them is TASK_LIMIT and no process starts", async () => {
    const loaded = await load({ maxRunningPerAgent: 1 })
    const agent = createTestAgent('busy')
    const { taskId } = await start(loaded, 'sleep 30', agent)
    const refused = await loaded.call('bash', { command: `touch ${join(scratch, 'refused')}`, run_in_background: true }, agent)
    expect(refused).toMatchObject({ isError: true, error: { name: 'TaskError', code: 'TASK_LIMIT' } })
    expect(text(refused)).toMatch(/^Cannot start another background task: you already have 1 tasks running/)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(existsSync(join(scratch, 'refused'))).toBe(false)
    // Foreground commands are not tasks.
    expect(text(await loaded.call('bash', { command: 'echo foreground' }, agent))).toBe('foreground')
    await loaded.call('bash_kill', { task_id: taskId }, agent)
    await start(loaded, 'true', agent)
  })

  it('a command that fails is a completed task that says how it ended; a missing workdir is refused at the call, with no task', async () => {
    const loaded = await load()
    const { taskId } = await start(loaded, 'exec /nonexistent/binary-of-nobody')
    const read = await readToEnd(loaded, taskId)
    expect(read).toContain(`Task ${taskId} (bash): completed`)
    expect(read).toContain('The command finished with exit code 127.')
    expect(await loaded.call('bash', { command: 'true', run_in_background: true, workdir: join(scratch, 'missing-dir') })).toMatchObject({
      isError: true,
      error: { code: 'BASH_SPAWN_FAILED' },
    })
    expect(loaded.t.ctx.tasks.list()).toHaveLength(1)
  })

  it('unloading the bash tools stops their tasks (cancelled, no notice); unloading the layer stops them too', async () => {
    for (const unload of ['bash tools', 'task layer'] as const) {
      const t = await createToolContext({ plugins: [[LocalBashExecutor, { cwd: scratch, tempDir: spillRoot, killGraceMs: 300 }]] })
      opened.push(t)
      const layer = await t.load(TaskService, { killGraceMs: 2_000 })
      const tools = await t.load(BashTools)
      const agent = createTestAgent('owner')
      const pidFile = join(scratch, `unload-pids-${unload.replace(' ', '-')}`)
      const started = await t.tools.execute({
        callId: 'c1',
        name: 'bash',
        agent,
        arguments: { command: `echo $$ > ${pidFile}; sleep 100 & echo $! >> ${pidFile}; trap '' TERM; wait`, run_in_background: true },
      })
      const { taskId } = started.meta as BashStartMeta
      await waitFor(() => existsSync(pidFile) && pidsIn(readFileSync(pidFile, 'utf8')).length === 2)
      const pids = pidsIn(readFileSync(pidFile, 'utf8'))
      if (unload === 'bash tools') {
        await tools.dispose()
        expect(t.ctx.tasks.get(taskId, agent)?.status).toBe('cancelled')
      } else {
        await layer.dispose()
      }
      await waitFor(() => pids.every((pid) => !isProcessAlive(pid)))
      expect(agent.injected).toHaveLength(0)
    }
  })

  it("a task id of tool-bash's own table is still read by it once the layer is loaded", async () => {
    const t = await createToolContext({ plugins: [[LocalBashExecutor, { cwd: scratch, tempDir: spillRoot, killGraceMs: 300 }], [BashTools, {}]] })
    opened.push(t)
    const own = await t.tools.execute({ callId: 'c1', name: 'bash', arguments: { command: 'echo mine', run_in_background: true } })
    const { taskId } = own.meta as BashStartMeta
    expect(taskId).toMatch(/^bash_\d+$/)
    await t.load(TaskService)
    let read = ''
    for (let attempt = 0; attempt < 100 && !read.includes('has finished'); attempt++) {
      read = text(await t.tools.execute({ callId: 'c2', name: 'bash_output', arguments: { task_id: taskId } }))
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(read).toBe(`mine\n[task ${taskId} has finished]`)
  })
})

/** Waits until everything the task printed so far (a `since: 0` read, which moves no cursor) passes `predicate`; returns it. */
async function outputWhen(loaded: Loaded, id: string, agent: Agent, predicate: (output: string) => boolean): Promise<string> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const output = (await loaded.t.ctx.tasks.read(id, agent, { since: 0 })).output?.text ?? ''
    if (predicate(output)) return output
    if (Date.now() > deadline) throw new Error(`task ${id} never printed what was expected: ${JSON.stringify(output)}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

import { chmodSync, copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Agent } from '@dsh/tools-core'
import { createTestAgent, createToolContext } from '@dsh/tools-testing'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { BackgroundTasks } from './background-tasks.js'
import type { BashStartMeta, BashTaskMeta } from './bash-tool-meta.js'
import { BashTools } from './bash-tools.js'
import { resolveBashToolsConfig, type BashToolsConfig } from './bash-tools-config.js'
import { LocalBashExecutor } from './local-bash-executor.js'
import { isProcessAlive } from './process-group.js'
import { UnknownBashTaskError } from './unknown-bash-task-error.js'
import { pidsIn, resultText, useExecutors, useScratch, useTools, waitFor, type LoadedTools } from './test-support.js'

const dirs = useScratch('tool-bash-background-')
const { scratch, spillRoot } = dirs
const tools = useTools(dirs)
const executors = useExecutors(dirs)

async function start(loaded: LoadedTools, command: string, agent?: Agent): Promise<string> {
  const result = await loaded.call('bash', { command, run_in_background: true }, agent === undefined ? {} : { agent })
  expect(result.isError).toBe(false)
  return (result.meta as BashStartMeta).taskId
}

/** Reads a task until `predicate` holds for the accumulated text (or the task ended); returns every read. */
async function readUntil(
  loaded: LoadedTools,
  taskId: string,
  predicate: (text: string) => boolean,
  agent?: Agent,
): Promise<{ texts: string[]; metas: BashTaskMeta[] }> {
  const texts: string[] = []
  const metas: BashTaskMeta[] = []
  let all = ''
  const deadline = Date.now() + 10_000
  for (;;) {
    if (Date.now() > deadline) throw new Error(`task ${taskId} did not get there: ${JSON.stringify(texts.slice(-3))}`)
    const result = await loaded.call('bash_output', { task_id: taskId }, agent === undefined ? {} : { agent })
    expect(result.isError).toBe(false)
    texts.push(resultText(result))
    metas.push(result.meta as BashTaskMeta)
    all += `${resultText(result)}\n`
    if (predicate(all) || (result.meta as BashTaskMeta).status !== 'running') return { texts, metas }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('starting and reading', () => {
  it('returns a task id at once; bash_output returns only the new output, then the end, then forgets the task', async () => {
    const loaded = await tools()
    const gate = join(scratch, 'gate-first-read')
    const started = await loaded.call('bash', {
      command: `echo one; while [ ! -e ${gate} ]; do sleep 0.01; done; echo two >&2; echo three; exit 3`,
      run_in_background: true,
    })
    const meta = started.meta as BashStartMeta
    expect(meta).toEqual({ taskId: expect.stringMatching(/^bash_\d+$/), status: 'running', pid: expect.any(Number), cwd: scratch, timeoutMs: 600_000 })
    expect(resultText(started)).toBe(
      `Started background task ${meta.taskId} in ${scratch} (timeout 600000ms). Read its output with bash_output and stop it with bash_kill (task_id "${meta.taskId}").`,
    )
    const first = await readUntil(loaded, meta.taskId, (text) => text.includes('one'))
    expect(first.texts.at(-1)).toBe(`one\n[task ${meta.taskId} is still running]`)
    expect(first.metas.at(-1)).toMatchObject({ taskId: meta.taskId, status: 'running', stdout: { bytes: 4 } })
    expect(first.metas.at(-1)).not.toHaveProperty('exitCode')
    writeFileSync(gate, '')
    const rest = await readUntil(loaded, meta.taskId, () => false)
    // Usually one read; a read may also land between the last echo and the exit.
    const joined = rest.texts.join('\n')
    expect(joined).not.toContain('one')
    expect(joined).toContain('three')
    expect(joined).toContain('[stderr]\ntwo')
    expect(rest.texts.at(-1)).toMatch(new RegExp(`\\[exit code: 3\\]\\n\\[task ${meta.taskId} has finished\\]$`))
    expect(rest.metas.at(-1)).toMatchObject({ status: 'completed', exitCode: 3, signal: null, timedOut: false, stopReason: null })
    const gone = await loaded.call('bash_output', { task_id: meta.taskId })
    expect(gone).toMatchObject({ isError: true, error: { name: 'UnknownBashTaskError', code: 'BASH_UNKNOWN_TASK' } })
  })

  it('ids are unique across a reload of the plugin, so an old id never reaches a new task', async () => {
    await using t = await createToolContext({ plugins: [[LocalBashExecutor, { cwd: scratch, tempDir: spillRoot }]] })
    const ids: string[] = []
    for (let round = 0; round < 2; round++) {
      const loaded = await t.load(BashTools)
      for (let index = 0; index < 2; index++) {
        const result = await t.tools.execute({ callId: 'c', name: 'bash', arguments: { command: 'true', run_in_background: true } })
        ids.push((result.meta as BashStartMeta).taskId)
      }
      await loaded.dispose()
    }
    expect(new Set(ids).size).toBe(4)
  })

  it('never splits a multi-byte character across reads', async () => {
    const loaded = await tools()
    const gate = (name: string): string => `while [ ! -e ${join(scratch, name)} ]; do sleep 0.01; done`
    const taskId = await start(
      loaded,
      `printf 'caf\\xc3'; ${gate('gate-1')}; printf '\\xa9 \\xf0\\x9f'; ${gate('gate-2')}; printf '\\x98\\x80!'`,
    )
    // The first part ends inside "é": the read shows "caf" and holds the lead byte back.
    const first = await readUntil(loaded, taskId, (text) => text.includes('caf'))
    expect(first.texts.at(-1)).toBe(`caf\n[task ${taskId} is still running]`)
    expect(first.metas.at(-1)?.stdout.bytes).toBe(3)
    writeFileSync(join(scratch, 'gate-1'), '')
    const second = await readUntil(loaded, taskId, (text) => text.includes('é'))
    expect(second.texts.at(-1)).toBe(`é \n[task ${taskId} is still running]`)
    writeFileSync(join(scratch, 'gate-2'), '')
    const rest = await readUntil(loaded, taskId, () => false)
    expect(rest.texts.join('\n')).toContain('😀!')
    expect([...first.texts, ...second.texts, ...rest.texts].join('')).not.toContain('\uFFFD')
  })

  it('a spawn failure in the background reads as failed, not as killed, and the agent is told', async () => {
    const shell = join(scratch, 'vanishing-bash')
    copyFileSync('/bin/bash', shell)
    chmodSync(shell, 0o755)
    const loaded = await tools({ executor: { shell } })
    rmSync(shell)
    const agent = createTestAgent('builder')
    const taskId = await start(loaded, 'echo never', agent)
    const read = await readUntil(loaded, taskId, () => false, agent)
    expect(read.metas.at(-1)).toMatchObject({ taskId, status: 'failed' })
    expect(read.metas.at(-1)).not.toHaveProperty('signal')
    expect(read.texts.at(-1)).toMatch(new RegExp(`^\\(no new output\\)\\n\\[task ${taskId} failed to start: cannot start ${shell}`))
    expect(read.texts.at(-1)).not.toContain('killed')
    expect(agent.injected).toHaveLength(1)
    expect(agent.injected[0]?.content[0]).toMatchObject({ text: expect.stringContaining(`Background task ${taskId} (\`echo never\`) failed to start: cannot start`) })
  })
})

describe('ownership', () => {
  it('another agent gets BASH_UNKNOWN_TASK with the same text as for an id that never existed', async () => {
    const loaded = await tools()
    const owner = createTestAgent('owner')
    const other = createTestAgent('other')
    const taskId = await start(loaded, 'sleep 30', owner)
    const theirs = await loaded.call('bash_output', { task_id: taskId }, { agent: other })
    const nobodys = await loaded.call('bash_output', { task_id: 'bash_999999' }, { agent: other })
    expect(theirs).toMatchObject({ isError: true, error: { code: 'BASH_UNKNOWN_TASK' } })
    expect(nobodys).toMatchObject({ isError: true, error: { code: 'BASH_UNKNOWN_TASK' } })
    expect(resultText(theirs).replace(taskId, 'ID')).toBe(resultText(nobodys).replace('bash_999999', 'ID'))
    expect(resultText(theirs)).toContain('You have no background tasks.')
    const killAttempt = await loaded.call('bash_kill', { task_id: taskId }, { agent: other })
    expect(killAttempt).toMatchObject({ isError: true, error: { code: 'BASH_UNKNOWN_TASK' } })
    // Calls without an agent are a group of their own.
    expect(await loaded.call('bash_output', { task_id: taskId })).toMatchObject({ error: { code: 'BASH_UNKNOWN_TASK' } })
    const mine = await loaded.call('bash_output', { task_id: 'bash_0' }, { agent: owner })
    expect(resultText(mine)).toContain(`Your background tasks: ${taskId} (running).`)
    const still = await loaded.call('bash_output', { task_id: taskId }, { agent: owner })
    expect(still).toMatchObject({ isError: false, meta: { status: 'running' } })
  })

  it('caps running tasks per agent with BASH_TASK_LIMIT; other agents are not affected; a kill frees a slot', async () => {
    const loaded = await tools({ tools: { maxBackgroundTasks: 2 } })
    const agent = createTestAgent('busy')
    const other = createTestAgent('idle')
    const first = await start(loaded, 'sleep 30', agent)
    const second = await start(loaded, 'sleep 30', agent)
    const refused = await loaded.call('bash', { command: 'echo never > refused', run_in_background: true }, { agent })
    expect(refused).toMatchObject({ isError: true, error: { name: 'BashTaskLimitError', code: 'BASH_TASK_LIMIT' } })
    expect(resultText(refused)).toBe(
      `Cannot start another background task: 2 of at most 2 are already running for this agent (${first}, ${second}). ` +
        'Stop one with bash_kill, or wait until one finishes.',
    )
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(existsSync(join(scratch, 'refused'))).toBe(false)
    await start(loaded, 'sleep 30', other)
    // Foreground commands are not background tasks.
    expect(resultText(await loaded.call('bash', { command: 'echo foreground' }, { agent }))).toBe('foreground')
    await loaded.call('bash_kill', { task_id: first }, { agent })
    await start(loaded, 'sleep 30', agent)
  })

  it('a task that finished frees its slot at once, and stays readable until its final read', async () => {
    const loaded = await tools({ tools: { maxBackgroundTasks: 1 } })
    const agent = createTestAgent('solo', { onInject: () => undefined })
    const first = await start(loaded, 'echo done', agent)
    await waitFor(() => agent.injected.length === 1)
    const second = await start(loaded, 'sleep 30', agent)
    expect(second).not.toBe(first)
    const read = await loaded.call('bash_output', { task_id: first }, { agent })
    expect(resultText(read)).toBe(`done\n[task ${first} has finished]`)
  })

  it('forgets the oldest finished, unread tasks beyond maxFinishedTasks', async () => {
    const loaded = await tools({ tools: { maxFinishedTasks: 1 } })
    const agent = createTestAgent('forgetful')
    const first = await start(loaded, 'echo 1', agent)
    await waitFor(() => agent.injected.length === 1)
    const second = await start(loaded, 'echo 2', agent)
    await waitFor(() => agent.injected.length === 2)
    expect(await loaded.call('bash_output', { task_id: first }, { agent })).toMatchObject({ error: { code: 'BASH_UNKNOWN_TASK' } })
    expect(resultText(await loaded.call('bash_output', { task_id: second }, { agent }))).toBe(`2\n[task ${second} has finished]`)
  })
})

describe('retention of finished, unread tasks (regression: they kept their agent objects alive for ever)', () => {
  it('keeps at most maxFinishedTasks per agent: the oldest finished is dropped, and reading it says it expired', async () => {
    const loaded = await tools({ tools: { maxFinishedTasks: 2 } })
    const agent = createTestAgent('hoarder')
    const ids: string[] = []
    for (let index = 1; index <= 3; index++) {
      ids.push(await start(loaded, `echo ${index}`, agent))
      await waitFor(() => agent.injected.length === index)
    }
    const [oldest, middle, newest] = ids as [string, string, string]
    const expired = await loaded.call('bash_output', { task_id: oldest }, { agent })
    expect(expired).toMatchObject({ isError: true, error: { name: 'UnknownBashTaskError', code: 'BASH_UNKNOWN_TASK' } })
    expect(resultText(expired)).toBe(
      `Background task "${oldest}" has expired: it finished and was not read while 2 newer finished tasks of this agent ` +
        `waited (at most 2 finished, unread tasks are kept per agent), so its output was dropped and can no longer be read. ` +
        `Your background tasks: ${middle} (finished), ${newest} (finished).`,
    )
    expect(await loaded.call('bash_kill', { task_id: oldest }, { agent })).toMatchObject({ error: { code: 'BASH_UNKNOWN_TASK' } })
    // Another agent learns nothing: the same answer as for an id that never existed.
    const other = createTestAgent('nosy')
    const theirs = await loaded.call('bash_output', { task_id: oldest }, { agent: other })
    const nobodys = await loaded.call('bash_output', { task_id: 'bash_999999' }, { agent: other })
    expect(resultText(theirs).replace(oldest, 'ID')).toBe(resultText(nobodys).replace('bash_999999', 'ID'))
    expect(resultText(await loaded.call('bash_output', { task_id: middle }, { agent }))).toBe(`2\n[task ${middle} has finished]`)
    expect(resultText(await loaded.call('bash_output', { task_id: newest }, { agent }))).toBe(`3\n[task ${newest} has finished]`)
  })

  it('drops a finished task nobody read within finishedTaskRetentionMs, and says so; a running task is not timed out by it', async () => {
    const loaded = await tools({ tools: { finishedTaskRetentionMs: 300 } })
    const agent = createTestAgent('absent-minded')
    const finished = await start(loaded, 'echo soon forgotten', agent)
    const running = await start(loaded, 'sleep 3; echo still here', agent)
    await waitFor(() => agent.injected.length === 1)
    await new Promise((resolve) => setTimeout(resolve, 450))
    const expired = await loaded.call('bash_output', { task_id: finished }, { agent })
    expect(expired).toMatchObject({ isError: true, error: { code: 'BASH_UNKNOWN_TASK' } })
    expect(resultText(expired)).toBe(
      `Background task "${finished}" has expired: it finished and was not read within 300 ms, so its output was dropped ` +
        `and can no longer be read. Your background tasks: ${running} (running).`,
    )
    const rest = await readUntil(loaded, running, () => false, agent)
    expect(rest.texts.join('\n')).toContain('still here')
    expect(rest.metas.at(-1)).toMatchObject({ status: 'completed', exitCode: 0 })
  })

  it('bash_output tells the model how long a finished task stays readable', async () => {
    const described = async (config: BashToolsConfig): Promise<string> => {
      const loaded = await tools({ tools: config })
      const schema = loaded.t.tools.schemas().find((entry) => entry.name === 'bash_output')
      return schema?.description ?? ''
    }
    expect(await described({})).toContain('A finished task nobody reads is dropped after 30 min (or once 16 newer finished tasks wait)')
    expect(await described({ finishedTaskRetentionMs: 300, maxFinishedTasks: 2 })).toContain('dropped after 300 ms (or once 2 newer')
  })

  it('a finished task read in time is read normally', async () => {
    const loaded = await tools({ tools: { finishedTaskRetentionMs: 5_000 } })
    const agent = createTestAgent('prompt')
    const taskId = await start(loaded, 'echo in time', agent)
    await waitFor(() => agent.injected.length === 1)
    expect(resultText(await loaded.call('bash_output', { task_id: taskId }, { agent }))).toBe(`in time\n[task ${taskId} has finished]`)
  })
})

describe('what BackgroundTasks holds for an agent', () => {
  const config = (overrides: BashToolsConfig = {}): ReturnType<typeof resolveBashToolsConfig> =>
    resolveBashToolsConfig({ notifyOnCompletion: true, ...overrides })

  it('has no entry for an agent once its tasks are read, killed or expired', async () => {
    const { bash } = await executors()
    const tasks = new BackgroundTasks(config({ finishedTaskRetentionMs: 1_000 }), () => {})
    const reader = createTestAgent('reader')
    const killer = createTestAgent('killer')
    const idle = createTestAgent('idle')
    const readRecord = await tasks.start(bash, reader, { command: 'echo read me' })
    const killRecord = await tasks.start(bash, killer, { command: 'sleep 30' })
    expect([tasks.holds(reader), tasks.holds(killer)]).toEqual([true, true])
    // Each check follows the event it checks with no wait between them (only microtasks), so the retention timer,
    // which starts when a task finishes, cannot run out first however loaded the machine is.
    await readRecord.task.done
    expect(tasks.read(reader, readRecord.id).outcome).toBeDefined()
    expect(tasks.holds(reader)).toBe(false)
    await tasks.kill(killer, killRecord.id)
    expect(tasks.holds(killer)).toBe(false)
    const idleRecord = await tasks.start(bash, idle, { command: 'echo never read' })
    expect(tasks.holds(idle)).toBe(true)
    await idleRecord.task.done
    expect(tasks.holds(idle)).toBe(true)
    await waitFor(() => !tasks.holds(idle))
    expect(tasks.retained).toEqual({ tasks: 0, finished: 0 })
    expect(() => tasks.read(idle, idleRecord.id)).toThrow(UnknownBashTaskError)
    expect(() => tasks.read(idle, idleRecord.id)).toThrow('has expired: it finished and was not read within 1 s')
    await tasks.dispose()
  })

  it('does not keep an agent alive: an agent with finished, unread tasks that is otherwise gone is collected, and its tasks go with it', async () => {
    setFlagsFromString('--expose-gc')
    const collect = runInNewContext('gc') as () => void
    const { bash } = await executors()
    const tasks = new BackgroundTasks(config(), () => {})
    let agent: Agent | undefined = createTestAgent('short-lived', { onInject: () => undefined })
    const agentRef = new WeakRef(agent)
    for (let index = 0; index < 3; index++) {
      const record = await tasks.start(bash, agent, { command: `echo ${index}` })
      await record.task.done
    }
    await waitFor(() => tasks.retained.finished === 3)
    expect(tasks.holds(agent)).toBe(true)
    agent = undefined
    // A WeakRef's target survives the job that created or read it, so collect in a job of its own each time.
    let collected = false
    for (let attempt = 0; attempt < 50 && !(collected && tasks.retained.tasks === 0); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10))
      collect()
      await new Promise((resolve) => setTimeout(resolve, 10))
      collected = agentRef.deref() === undefined
    }
    expect(collected).toBe(true)
    // The finalizer dropped what nobody can read any more.
    expect(tasks.retained).toEqual({ tasks: 0, finished: 0 })
    await tasks.dispose()
  })
})

describe('bash_kill', () => {
  it('stops the whole tree of a running task, returns its last output, and sends no notice', async () => {
    const loaded = await tools()
    const agent = createTestAgent('killer')
    const taskId = await start(loaded, "echo $$; sleep 100 & echo $!; bash -c 'sleep 100 & echo $!; wait' ; wait", agent)
    const read = await readUntil(loaded, taskId, (text) => pidsIn(text).length === 3, agent)
    const pids = pidsIn(read.texts.join('\n'))
    const killed = await loaded.call('bash_kill', { task_id: taskId }, { agent })
    expect(killed).toMatchObject({ isError: false, meta: { taskId, status: 'completed', signal: 'SIGTERM', stopReason: 'kill' } })
    expect(resultText(killed)).toBe(`(no new output)\n[killed by signal: SIGTERM]\n[task ${taskId} was killed]`)
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(false)
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(agent.injected).toHaveLength(0)
    expect(await loaded.call('bash_kill', { task_id: taskId }, { agent })).toMatchObject({ error: { code: 'BASH_UNKNOWN_TASK' } })
  })

  it('on a task that already ended, says so and returns what was unread', async () => {
    const loaded = await tools()
    const agent = createTestAgent('late')
    const taskId = await start(loaded, 'echo finished; exit 4', agent)
    await waitFor(() => agent.injected.length === 1)
    const result = await loaded.call('bash_kill', { task_id: taskId }, { agent })
    expect(resultText(result)).toBe(`Task ${taskId} had already ended.\nfinished\n[exit code: 4]\n[task ${taskId} has finished]`)
    expect(result.meta).toMatchObject({ status: 'completed', exitCode: 4, stopReason: null })
  })
})

describe('completion notices', () => {
  it('tells the agent through inject when a task ends on its own, with the bash plugin as source', async () => {
    const loaded = await tools()
    const agent = createTestAgent('notified')
    const taskId = await start(loaded, 'echo hi; exit 2', agent)
    await waitFor(() => agent.injected.length === 1)
    expect(agent.injected[0]).toEqual({
      content: [
        {
          type: 'text',
          text: `Background task ${taskId} (\`echo hi; exit 2\`) finished with exit code 2. Read the rest of its output with bash_output (task_id "${taskId}").`,
        },
      ],
      options: { source: { kind: 'plugin', plugin: 'bash' } },
    })
    const timedOut = createTestAgent('slow')
    const result = await loaded.call('bash', { command: 'sleep 30', run_in_background: true, timeout: 100 }, { agent: timedOut })
    await waitFor(() => timedOut.injected.length === 1)
    expect(timedOut.injected[0]?.content[0]).toMatchObject({
      text: expect.stringContaining(`${(result.meta as BashStartMeta).taskId} (\`sleep 30\`) timed out after 100ms and was stopped (signal SIGTERM)`),
    })
  })

  it('survives an agent whose inject throws or rejects: the failure is logged, the task stays readable', async () => {
    const loaded = await tools()
    const gone = createTestAgent('gone', {
      onInject: () => {
        throw new Error('agent disposed')
      },
    })
    const taskId = await start(loaded, 'echo still here', gone)
    await waitFor(() => gone.injected.length === 1)
    await waitFor(() => loaded.t.logs.some((log) => log.text.includes('could not tell agent "gone"')))
    expect(loaded.t.logs.find((log) => log.text.includes('could not tell agent'))).toMatchObject({ name: 'bash', type: 'warn' })
    expect(resultText(await loaded.call('bash_output', { task_id: taskId }, { agent: gone }))).toBe(`still here\n[task ${taskId} has finished]`)

    const asyncGone: Agent = {
      id: 'async-gone',
      inject: () => Promise.reject(new Error('closed session')),
    }
    await start(loaded, 'true', asyncGone)
    await waitFor(() => loaded.t.logs.some((log) => log.text.includes('could not tell agent "async-gone"')))
  })

  it('sends nothing to agents without inject, and nothing at all with notifyOnCompletion: false', async () => {
    const quiet = await tools({ tools: { notifyOnCompletion: false } })
    const agent = createTestAgent('muted')
    const started = await quiet.call('bash', { command: 'true', run_in_background: true }, { agent })
    expect(resultText(started)).not.toContain('you will be told')
    const taskId = (started.meta as BashStartMeta).taskId
    await readUntil(quiet, taskId, () => false, agent)
    expect(agent.injected).toHaveLength(0)
    const plain: Agent = { id: 'plain' }
    const loaded = await tools()
    const result = await loaded.call('bash', { command: 'true', run_in_background: true }, { agent: plain })
    expect(resultText(result)).not.toContain('you will be told')
    expect(loaded.t.logs.filter((log) => log.type === 'warn')).toEqual([])
  })
})

describe('disposal', () => {
  it('unloading the tools kills every background task and its children, and sends no notice', async () => {
    await using t = await createToolContext({ plugins: [[LocalBashExecutor, { cwd: scratch, tempDir: spillRoot, killGraceMs: 300 }]] })
    const tools = await t.load(BashTools)
    const agent = createTestAgent('owner')
    const pidFile = join(scratch, 'dispose-pids')
    const started = await t.tools.execute({
      callId: 'c1',
      name: 'bash',
      agent,
      arguments: { command: `echo $$ > ${pidFile}; sleep 100 & echo $! >> ${pidFile}; trap '' TERM; wait`, run_in_background: true },
    })
    expect(started.isError).toBe(false)
    await waitFor(() => existsSync(pidFile) && pidsIn(readFileSync(pidFile, 'utf8')).length === 2)
    const pids = pidsIn(readFileSync(pidFile, 'utf8'))
    await tools.dispose()
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(false)
    expect(agent.injected).toHaveLength(0)
    expect(t.tools.schemas()).toEqual([])
    expect(t.ctx.bash).toBeDefined()
  })

  it('a background start still in flight when the tools unload is stopped too', async () => {
    await using t = await createToolContext({ plugins: [[LocalBashExecutor, { cwd: scratch, tempDir: spillRoot, killGraceMs: 300 }]] })
    const tools = await t.load(BashTools)
    const pidFile = join(scratch, 'in-flight-pid')
    const pending = t.tools.execute({
      callId: 'c1',
      name: 'bash',
      arguments: { command: `echo $$ > ${pidFile}; exec sleep 100`, run_in_background: true },
    })
    // Unload while the executor is still checking the working directory.
    await Promise.resolve()
    await tools.dispose()
    const result = await pending
    expect(result).toMatchObject({ isError: true, error: { name: 'BashAbortedError', code: 'ABORTED' } })
    expect(resultText(result)).toBe('The bash tools were unloaded while the task started; it was stopped.')
    if (existsSync(pidFile)) for (const pid of pidsIn(readFileSync(pidFile, 'utf8'))) expect(isProcessAlive(pid)).toBe(false)
  })
})

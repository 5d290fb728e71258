// Contract parity: the bash tools over the container executor behave as over the local one (the control row runs
// the same expectations on LocalBashExecutor). Texts and markers, metas, spills, UTF-8 at the window's cut,
// workdirs, invalid input, the environment scrub, timeouts and aborts that take the whole tree, 20 calls at once,
// background tasks, unloading with a task running. The container row runs on each engine (podman on a unix socket
// with the host's node, Docker over TCP+TLS with the image's).
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { getEventListeners } from 'node:events'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BashTools, LocalBashExecutor } from '@dsh/tool-bash'
import type { ToolExecutionResult } from '@dsh/tools-core'
import { createTestAgent, createToolContext, type ToolTestContext } from '@dsh/tools-testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ContainerBashExecutor } from './container-bash-executor.js'
import { declaredEngines, describeInEngines, processesWith, requireEngine, type TestEngine } from './test-support.js'

const base = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-ct-parity-')))
const workdir = join(base, 'work')
mkdirSync(join(workdir, 'one', 'two'), { recursive: true })
writeFileSync(join(workdir, 'plain-file'), 'x\n')
afterAll(() => rmSync(base, { recursive: true, force: true }))

const hook = join(workdir, 'hook.sh')
const hookRan = join(workdir, 'hook-ran')
const planted: Record<string, string> = {
  BASH_ENV: hook,
  ENV: hook,
  DSH_CT_SECRET_TOKEN: 'never-for-the-model',
  DSH_CT_NAMED: 'named',
  'BASH_FUNC_ls%%': `() { touch ${hookRan}; }`,
}

type Row = readonly [string, (options: Record<string, unknown>) => readonly [unknown, Record<string, unknown>], TestEngine | null]
const rows: Row[] = [
  ['LocalBashExecutor (control)', (options) => [LocalBashExecutor, options], null],
  ...declaredEngines.map((engine): Row => [`ContainerBashExecutor on ${engine.title}`, (options) => [ContainerBashExecutor, { ...engine.options(), ...options }], engine]),
]

const textOf = (result: ToolExecutionResult): string => (result.content[0]?.type === 'text' ? result.content[0].text : '')
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
let counter = 0
const unique = (): string => `7${(counter += 1)}${process.pid % 997}`

describeInEngines(() => {
  describe.each(rows)('the bash tools over %s', (_name, plugin, engine) => {
    const inContainer = engine !== null
    if (engine !== null) requireEngine(engine)
    let t: ToolTestContext
    const saved: Record<string, string | undefined> = {}
    const call = (name: string, args: unknown, options: { signal?: AbortSignal; agent?: ReturnType<typeof createTestAgent> } = {}) =>
      t.tools.execute({ callId: `c${(counter += 1)}`, name, arguments: args, signal: options.signal, ...(options.agent ? { agent: options.agent } : {}) })
    const waitForProcesses = async (mark: string, count: number): Promise<void> => {
      for (let attempt = 0; attempt < 200 && processesWith(mark).length < count; attempt += 1) await sleep(50)
    }

    beforeAll(async () => {
      writeFileSync(hook, `touch ${hookRan}\n`)
      for (const [key, value] of Object.entries(planted)) {
        saved[key] = process.env[key]
        process.env[key] = value
      }
      t = await createToolContext({
        plugins: [plugin({ cwd: workdir, killGraceMs: 300, outputWindowBytes: 256, allowEnv: ['DSH_CT_NAMED'] }) as never, [BashTools, {}]],
      })
    })
    afterAll(async () => {
      await t?.dispose()
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key]
        else process.env[key] = value
      }
    })

    it('output, markers and meta: exit 0 unmarked, a nonzero exit marked, stderr in its own section, (no output)', async () => {
      const ok = await call('bash', { command: 'echo one; echo two' })
      expect(textOf(ok)).toBe('one\ntwo')
      expect(ok.meta).toMatchObject({ exitCode: 0, signal: null, timedOut: false, cwd: workdir, stdout: { bytes: 8, omittedBytes: 0, spillPath: null } })
      expect(Object.isFrozen(ok)).toBe(true)
      expect(textOf(await call('bash', { command: 'echo e1 >&2; echo o; exit 4' }))).toBe('o\n[stderr]\ne1\n[exit code: 4]')
      expect(textOf(await call('bash', { command: 'false' }))).toBe('(no output)\n[exit code: 1]')
      const self = await call('bash', { command: 'echo last; kill -KILL $$' })
      expect(textOf(self)).toBe('last\n[killed by signal: SIGKILL]')
    })

    it('a long output is cut to its head and tail, spilled, and the cut never splits a character', async () => {
      const long = await call('bash', { command: 'seq 1 2000' })
      const lines = textOf(long).split('\n')
      expect(lines[0]).toBe('1')
      expect(lines).toContain('2000')
      expect(textOf(long)).toMatch(/\[output truncated: \d+ of 8893 bytes of stdout omitted; full output: \/\S+-stdout\.log\]/)
      const spill = /full output: (\S+)\]/.exec(textOf(long))?.[1] ?? ''
      // The spill file lives where the commands run: the next command can read it.
      expect(textOf(await call('bash', { command: `wc -c < ${spill}` }))).toBe('8893')
      const wide = await call('bash', { command: "for i in $(seq 1 300); do printf 'é€'; done" })
      expect(textOf(wide)).not.toContain('\uFFFD')
    })

    it('workdirs: the default, relative, absolute, the agent cwd; a missing one is BASH_SPAWN_FAILED and nothing runs', async () => {
      expect(textOf(await call('bash', { command: 'pwd' }))).toBe(workdir)
      expect(textOf(await call('bash', { command: 'pwd', workdir: 'one/two' }))).toBe(join(workdir, 'one', 'two'))
      expect(textOf(await call('bash', { command: 'pwd', workdir: '/tmp' }))).toBe('/tmp')
      const agent = createTestAgent('a1', { cwd: join(workdir, 'one') })
      expect(textOf(await call('bash', { command: 'pwd', workdir: 'two' }, { agent }))).toBe(join(workdir, 'one', 'two'))
      const marker = join(workdir, 'must-not-exist')
      const missing = await call('bash', { command: `touch ${marker}`, workdir: 'absent' })
      expect(missing).toMatchObject({ isError: true, error: { name: 'BashSpawnError', code: 'BASH_SPAWN_FAILED' } })
      expect(textOf(missing)).toBe(`cannot run the command: working directory ${join(workdir, 'absent')} does not exist`)
      expect(textOf(await call('bash', { command: 'true', workdir: 'plain-file' }))).toContain('is not a directory')
      expect(existsSync(marker)).toBe(false)
    })

    it('invalid input is INVALID_ARGS; extra keys cannot set the environment, stdin or the shell', async () => {
      expect(await call('bash', { command: 'true', timeout: 600_001 })).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } })
      expect(await call('bash', { command: '  ' })).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } })
      const extra = await call('bash', { command: 'echo "[${FOO-unset}]"; cat; echo end', env: { FOO: 'x' }, stdin: 'in\n', shell: '/bin/sh' })
      expect(textOf(extra)).toBe('[unset]\nend')
    })

    it('the environment: no BASH_ENV/ENV, no unnamed host variable, the named one, no exported function', async () => {
      const result = await call('bash', {
        command: 'echo "${BASH_ENV-u} ${ENV-u} ${DSH_CT_SECRET_TOKEN-u} ${DSH_CT_NAMED-u}"; env | grep -c "^BASH_FUNC_" || true; ls -d .',
      })
      expect(textOf(result)).toBe('u u u named\n0\n.')
      expect(existsSync(hookRan)).toBe(false)
    })

    it('a timeout and an abort take the whole tree (nothing with the mark is left on the host)', async () => {
      const mark = unique()
      const timed = await call('bash', { command: `bash -c 'sleep ${mark} & sleep ${mark} & wait' & sleep ${mark}; wait`, timeout: 600 })
      expect(textOf(timed).split('\n').slice(-2)).toEqual(['[timed out after 600ms]', '[killed by signal: SIGTERM]'])
      expect(processesWith(mark)).toEqual([])
      const second = unique()
      const controller = new AbortController()
      const running = call('bash', { command: `echo begun; bash -c 'sleep ${second} & sleep ${second} & wait'; wait` }, { signal: controller.signal })
      await waitForProcesses(second, 2)
      expect(processesWith(second).length).toBeGreaterThanOrEqual(2)
      controller.abort()
      const aborted = await running
      expect(aborted).toMatchObject({ isError: true, error: { code: 'ABORTED' } })
      expect(textOf(aborted)).toContain('begun')
      expect(processesWith(second)).toEqual([])
    })

    it('leaves no abort listener on a signal shared by many calls', async () => {
      const shared = new AbortController()
      for (let index = 0; index < 3; index += 1) await call('bash', { command: 'true' }, { signal: shared.signal })
      await call('bash', { command: 'sleep 5', timeout: 100 }, { signal: shared.signal })
      expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0)
    })

    it('20 calls at once, each with its own output and status', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, (_, index) => call('bash', { command: `echo n${index}; exit $((${index} % 5))` })))
      results.forEach((result, index) => {
        expect(result.meta).toMatchObject({ exitCode: index % 5 })
        expect(textOf(result).split('\n')[0]).toBe(`n${index}`)
      })
    })

    it('states the limits, and the container its policy, in the description', () => {
      const description = t.tools.schemas().find((tool) => tool.name === 'bash')?.description ?? ''
      expect(description).toContain('600000')
      expect(description.includes('Commands run in a container')).toBe(inContainer)
    })

    it('background tasks: output while running, bash_kill, then the task is unknown', async () => {
      const started = await call('bash', { command: 'echo up; sleep 30', run_in_background: true })
      const id = (started.meta as { taskId: string }).taskId
      let seen = ''
      for (let attempt = 0; attempt < 50 && !seen.includes('up'); attempt += 1) {
        seen += textOf(await call('bash_output', { task_id: id }))
        if (!seen.includes('up')) await sleep(100)
      }
      expect(seen).toContain('up')
      expect(textOf(await call('bash_kill', { task_id: id }))).toContain(`[task ${id} was killed]`)
      expect((await call('bash_output', { task_id: id })).error?.code).toBe('BASH_UNKNOWN_TASK')
    })

    it('unloading with a background task running leaves no process of it', async () => {
      const mark = unique()
      const own = await createToolContext({ plugins: [plugin({ cwd: workdir, killGraceMs: 300 }) as never, [BashTools, {}]] })
      await own.tools.execute({ callId: 'bg', name: 'bash', arguments: { command: `sleep ${mark} & sleep ${mark}`, run_in_background: true } })
      await waitForProcesses(mark, 2)
      expect(processesWith(mark).length).toBeGreaterThanOrEqual(2)
      await own.dispose()
      expect(processesWith(mark)).toEqual([])
    })
  })
})

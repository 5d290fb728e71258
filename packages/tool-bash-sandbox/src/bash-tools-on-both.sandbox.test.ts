// The model-facing bash tools behave the same over both executors: the behaviour tool-bash's own tool tests check
// (texts, markers, metas, workdirs, invalid input, stops, the environment, many calls, a scripted session, hot
// unload, background tasks), run once per executor from one table. Where the sandbox differs by design (a shell
// that kills itself is reported as 128+n, since bwrap's pid namespace turns the signal into an exit code; a command
// that traps SIGTERM still ends at the SIGTERM, since bwrap itself does not trap it and its pid namespace takes the
// whole tree down; the description states the policy), the executor's row says so.
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { getEventListeners } from 'node:events'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BashTools, LocalBashExecutor } from '@dsh/tool-bash'
import type { ToolExecutionResult } from '@dsh/tools-core'
import { createTestAgent, createToolContext, formatSessionLog, runScriptedSession, type ToolTestContext } from '@dsh/tools-testing'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { SandboxedBashExecutor } from './sandboxed-bash-executor.js'
import { describeInSandbox, processesWith } from './test-support.js'

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-sbx-tools-')))
const workdir = join(scratch, 'work')
mkdirSync(join(workdir, 'sub', 'deeper'), { recursive: true })
writeFileSync(join(workdir, 'a-file'), 'not a directory\n')
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

interface ExecutorRow {
  readonly executor: typeof LocalBashExecutor | typeof SandboxedBashExecutor
  /** What the tool says about a shell that killed itself with SIGKILL, and the meta it carries. */
  readonly selfKill: { readonly marker: string; readonly exitCode: number | null; readonly signal: string | null }
  /** The signal that ends a command which traps SIGTERM, at its timeout. */
  readonly trappedTermEndsBy: 'SIGKILL' | 'SIGTERM'
  /** Whether the bash tool's description states a sandbox policy. */
  readonly statesPolicy: boolean
}

const EXECUTORS: ReadonlyArray<readonly [string, ExecutorRow]> = [
  ['LocalBashExecutor', { executor: LocalBashExecutor, selfKill: { marker: '[killed by signal: SIGKILL]', exitCode: null, signal: 'SIGKILL' }, trappedTermEndsBy: 'SIGKILL', statesPolicy: false }],
  ['SandboxedBashExecutor', { executor: SandboxedBashExecutor, selfKill: { marker: '[exit code: 137]', exitCode: 137, signal: null }, trappedTermEndsBy: 'SIGTERM', statesPolicy: true }],
]

// Planted in the host's environment before each executor loads: none of it may reach a command.
const hook = join(workdir, 'hook.sh')
const sourced = join(workdir, 'hook-was-sourced')
const PLANTED: Record<string, string> = {
  BASH_ENV: hook,
  ENV: hook,
  DSH_TEST_API_TOKEN: 'ghp_not_for_the_model',
  DSH_TEST_NAMED: 'named by the deployment',
  'BASH_FUNC_echo%%': `() { builtin echo hijacked; touch ${sourced}; }`,
}

const text = (result: ToolExecutionResult): string => (result.content[0]?.type === 'text' ? result.content[0].text : '')
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
let serial = 0
const token = (): string => `4${(serial += 1)}${process.pid % 1000}`

describeInSandbox(() => {
  describe.each(EXECUTORS)('the bash tools over %s', (_name, row) => {
    let t: ToolTestContext
    const saved = new Map<string, string | undefined>()
    const call = (name: string, args: unknown, options: { signal?: AbortSignal; agent?: ReturnType<typeof createTestAgent> } = {}): Promise<ToolExecutionResult> =>
      t.tools.execute({ callId: `call_${(serial += 1)}`, name, arguments: args, signal: options.signal, ...(options.agent === undefined ? {} : { agent: options.agent }) })
    const meta = (result: ToolExecutionResult): Record<string, unknown> => result.meta as Record<string, unknown>

    beforeAll(async () => {
      writeFileSync(hook, `touch ${sourced}\necho "hook ran"\n`)
      for (const [name, value] of Object.entries(PLANTED)) {
        saved.set(name, process.env[name])
        process.env[name] = value
      }
      t = await createToolContext({
        plugins: [
          [row.executor, { cwd: workdir, tempDir: scratch, killGraceMs: 300, outputWindowBytes: 256, allowEnv: ['DSH_TEST_NAMED'] }],
          [BashTools, {}],
        ],
      })
    })
    afterAll(async () => {
      await t.dispose()
      for (const [name, value] of saved) {
        if (value === undefined) delete process.env[name]
        else process.env[name] = value
      }
    })
    afterEach(() => rmSync(join(workdir, 'out.txt'), { force: true }))

    describe('what the model reads', () => {
      it('exit 0: the output, no marker; the exit status and the streams travel in a frozen meta', async () => {
        const result = await call('bash', { command: 'echo hello; echo world' })
        expect(result.isError).toBe(false)
        expect(text(result)).toBe('hello\nworld')
        expect(meta(result)).toMatchObject({ exitCode: 0, signal: null, timedOut: false, cwd: workdir, timeoutMs: 120_000, stdout: { bytes: 12, omittedBytes: 0, spillPath: null } })
        expect(Object.isFrozen(result)).toBe(true)
      })

      it('a nonzero exit is not an error: [exit code: N] ends the text; empty output says (no output)', async () => {
        const failed = await call('bash', { command: 'echo partial; exit 9' })
        expect(failed).toMatchObject({ isError: false, meta: { exitCode: 9, signal: null, timedOut: false } })
        expect(failed.error).toBeUndefined()
        expect(text(failed)).toBe('partial\n[exit code: 9]')
        expect(text(await call('bash', { command: 'true' }))).toBe('(no output)')
        expect(text(await call('bash', { command: 'false' }))).toBe('(no output)\n[exit code: 1]')
      })

      it('a shell that kills itself is reported by its marker, never as an error', async () => {
        const result = await call('bash', { command: 'echo bye; kill -KILL $$' })
        expect(text(result)).toBe(`bye\n${row.selfKill.marker}`)
        expect(result).toMatchObject({ isError: false, meta: { exitCode: row.selfKill.exitCode, signal: row.selfKill.signal } })
      })

      it('puts stderr in its own [stderr] section after stdout, whatever order they were written in', async () => {
        const result = await call('bash', { command: 'echo first-err >&2; echo out; echo second-err >&2; exit 2' })
        expect(text(result)).toBe('out\n[stderr]\nfirst-err\nsecond-err\n[exit code: 2]')
      })

      it('writes the markers in their fixed order (truncated, timed out, killed by signal) and names the spill files', async () => {
        const result = await call('bash', { command: "seq 1 1000; seq 1 500 >&2; trap '' TERM; sleep 100", timeout: 500 })
        const lines = text(result).split('\n')
        const markers = lines.filter((line) => /^\[(output truncated|timed out|killed by signal|exit code)/.test(line))
        expect(markers).toEqual([
          expect.stringMatching(/^\[output truncated: \d+ of 3893 bytes of stdout omitted; full output: .*-stdout\.log\]$/),
          expect.stringMatching(/^\[output truncated: \d+ of 1892 bytes of stderr omitted; full output: .*-stderr\.log\]$/),
          '[timed out after 500ms]',
          `[killed by signal: ${row.trappedTermEndsBy}]`,
        ])
        expect(lines.slice(-4)).toEqual(markers)
        expect(lines[0]).toBe('1')
        expect(lines).toContain('1000')
        expect(result).toMatchObject({ isError: false, meta: { timedOut: true, signal: row.trappedTermEndsBy, exitCode: null } })
      })

      it('multi-byte characters at the cut of the window come out whole', async () => {
        const result = await call('bash', { command: "for i in $(seq 1 400); do printf 'é€'; done" })
        expect(text(result)).not.toContain('\uFFFD')
        expect(text(result)).toMatch(/^(é€)+é?\n/)
      })
    })

    describe('workdir', () => {
      it('runs in the executor cwd by default, in a relative workdir under it, and in an absolute one', async () => {
        expect(text(await call('bash', { command: 'pwd' }))).toBe(workdir)
        expect(text(await call('bash', { command: 'pwd', workdir: 'sub/deeper' }))).toBe(join(workdir, 'sub', 'deeper'))
        const elsewhere = realpathSync(tmpdir())
        const absolute = await call('bash', { command: 'pwd', workdir: elsewhere })
        expect(text(absolute)).toBe(elsewhere)
        expect(meta(absolute)['cwd']).toBe(elsewhere)
      })

      it("resolves a relative workdir against the agent's cwd, which is also the default", async () => {
        const agent = createTestAgent('worker', { cwd: join(workdir, 'sub') })
        expect(text(await call('bash', { command: 'pwd' }, { agent }))).toBe(join(workdir, 'sub'))
        expect(text(await call('bash', { command: 'pwd', workdir: 'deeper' }, { agent }))).toBe(join(workdir, 'sub', 'deeper'))
        expect(text(await call('bash', { command: 'pwd', workdir: '..' }, { agent }))).toBe(workdir)
      })

      it('a missing workdir (or a file) is an error result with BASH_SPAWN_FAILED, and nothing runs', async () => {
        const marker = join(workdir, 'should-not-exist')
        const missing = await call('bash', { command: `touch ${marker}`, workdir: 'nope' })
        expect(missing).toMatchObject({ isError: true, error: { name: 'BashSpawnError', code: 'BASH_SPAWN_FAILED' } })
        expect(text(missing)).toBe(`cannot run the command: working directory ${join(workdir, 'nope')} does not exist`)
        const file = await call('bash', { command: `touch ${marker}`, workdir: 'a-file' })
        expect(file).toMatchObject({ isError: true, error: { code: 'BASH_SPAWN_FAILED' } })
        expect(text(file)).toContain('is not a directory')
        expect(existsSync(marker)).toBe(false)
      })
    })

    describe('invalid input is an error the model can correct', () => {
      it.each([
        ['a missing command', { description: 'no command' }, /command/],
        ['an empty command', { command: '   ' }, /non-empty/],
        ['a zero timeout', { command: 'true', timeout: 0 }, /timeout must be an integer number of milliseconds from 1 to 600000/],
        ['a timeout above the maximum', { command: 'true', timeout: 600_001 }, /from 1 to 600000, got 600001/],
        ['an empty workdir', { command: 'true', workdir: '' }, /workdir must be a non-empty path/],
        ['a non-boolean run_in_background', { command: 'true', run_in_background: 'yes' }, /run_in_background/],
      ])('%s', async (_case, args, message) => {
        const result = await call('bash', args)
        expect(result).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } })
        expect(text(result)).toMatch(message)
      })

      it('arguments cannot set the environment, stdin, the shell or the cwd: extra keys have no effect', async () => {
        const result = await call('bash', {
          command: 'echo "FOO=[${FOO-unset}] PATH_SET=[${PATH:+yes}]"; cat; echo "stdin read"',
          env: { FOO: 'injected', PATH: '' },
          stdin: 'secret input\n',
          shell: '/bin/sh',
          cwd: '/',
        })
        expect(result.isError).toBe(false)
        expect(text(result)).toBe('FOO=[unset] PATH_SET=[yes]\nstdin read')
        expect(meta(result)['cwd']).toBe(workdir)
      })
    })

    it('the environment: BASH_ENV and ENV are not sourced, only allow-listed host variables pass, no exported functions', async () => {
      const result = await call('bash', {
        command: [
          'echo "BASH_ENV=[${BASH_ENV-unset}] ENV=[${ENV-unset}]"',
          'echo "token=[${DSH_TEST_API_TOKEN-unset}] named=[${DSH_TEST_NAMED-unset}]"',
          'env | grep -c "^BASH_FUNC_" || true',
          "bash -c 'echo nested'",
        ].join('; '),
      })
      expect(text(result)).toBe(['BASH_ENV=[unset] ENV=[unset]', 'token=[unset] named=[named by the deployment]', '0', 'nested'].join('\n'))
      expect(existsSync(sourced)).toBe(false)
    })

    describe('stopping', () => {
      it('a timeout kills the whole tree: no process of it is left', async () => {
        const mark = token()
        const result = await call('bash', { command: `bash -c 'sleep ${mark} & sleep ${mark} & wait' & sleep ${mark}; wait`, timeout: 600 })
        expect(text(result).split('\n').slice(-2)).toEqual(['[timed out after 600ms]', '[killed by signal: SIGTERM]'])
        expect(result).toMatchObject({ isError: false, meta: { timedOut: true, signal: 'SIGTERM' } })
        expect(processesWith(mark)).toEqual([])
      })

      it('an aborted call is an ABORTED error, after the whole tree is gone, with what it printed', async () => {
        const mark = token()
        const controller = new AbortController()
        const running = call('bash', { command: `echo started; bash -c 'sleep ${mark} & sleep ${mark} & wait'; wait` }, { signal: controller.signal })
        for (let attempt = 0; attempt < 200 && processesWith(mark).length < 2; attempt += 1) await pause(50)
        expect(processesWith(mark)).toHaveLength(2)
        controller.abort()
        const result = await running
        expect(result).toMatchObject({ isError: true, error: { name: 'BashAbortedError', code: 'ABORTED' } })
        expect(text(result)).toBe(
          'The command was stopped before it finished because the call was cancelled; all of its processes were stopped. ' +
            'What it printed:\nstarted\n[killed by signal: SIGTERM]',
        )
        expect(processesWith(mark)).toEqual([])
      })

      it('keeps no abort listener once each call is done (a session signal serves many calls)', async () => {
        const session = new AbortController()
        for (let index = 0; index < 5; index++) await call('bash', { command: 'true' }, { signal: session.signal })
        await call('bash', { command: 'sleep 5', timeout: 50 }, { signal: session.signal })
        expect(getEventListeners(session.signal, 'abort')).toHaveLength(0)
      })
    })

    it('runs 20 commands at once, each with its own output and exit code', async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, index) => call('bash', { command: `echo "job ${index}"; exit $((${index} % 7))` })),
      )
      results.forEach((result, index) => {
        const code = index % 7
        expect(text(result)).toBe(code === 0 ? `job ${index}` : `job ${index}\n[exit code: ${code}]`)
        expect(result.meta).toMatchObject({ exitCode: code })
      })
    })

    it('through a scripted model loop: the model sees a failing command, reacts, and the log records both calls', async () => {
      const session = await runScriptedSession(t.tools, [
        [{ id: 'call_1', name: 'bash', arguments: { command: 'test -f missing.txt || { echo "missing.txt not found" >&2; exit 1; }' } }],
        ({ previous }) => {
          const first = previous?.results[0]
          const said = first?.content[0]?.type === 'text' ? first.content[0].text : ''
          return said.endsWith('[exit code: 1]') && first?.isError === false
            ? [{ id: 'call_2', name: 'bash', arguments: { command: 'echo created > out.txt && cat out.txt' } }]
            : []
        },
      ])
      expect(formatSessionLog(session.log)).toBe(
        [
          'step 1',
          '  tool/call call_1 bash {"command":"test -f missing.txt || { echo \\"missing.txt not found\\" >&2; exit 1; }"} (batch 1, serial)',
          '  tool/result call_1 ok: [stderr]',
          '    missing.txt not found',
          '    [exit code: 1]',
          'step 2',
          '  tool/call call_2 bash {"command":"echo created > out.txt && cat out.txt"} (batch 1, serial)',
          '  tool/result call_2 ok: created',
        ].join('\n'),
      )
    })

    it("states the executor's limits (and the sandbox its policy) in the model-facing description", async () => {
      const description = t.tools.schemas().find((tool) => tool.name === 'bash')?.description ?? ''
      expect(description).toContain('600000')
      expect(description.includes('Commands run in a sandbox')).toBe(row.statesPolicy)
    })

    it('background tasks: run_in_background, bash_output, bash_kill; the task is gone after the kill', async () => {
      const started = await call('bash', { command: 'echo ready; sleep 30', run_in_background: true })
      const taskId = (started.meta as { taskId: string }).taskId
      let read = await call('bash_output', { task_id: taskId })
      for (let attempt = 0; attempt < 50 && !text(read).includes('ready'); attempt++) {
        await pause(100)
        read = await call('bash_output', { task_id: taskId })
      }
      expect(text(read)).toContain('ready')
      expect(text(read)).toContain(`[task ${taskId} is still running]`)
      const killed = await call('bash_kill', { task_id: taskId })
      expect(text(killed)).toContain(`[task ${taskId} was killed]`)
      expect((await call('bash_output', { task_id: taskId })).error?.code).toBe('BASH_UNKNOWN_TASK')
    })

    it('a context with a running background task unloads clean: the tools are gone and so is every process', async () => {
      const mark = token()
      const own = await createToolContext({
        plugins: [
          [row.executor, { cwd: workdir, tempDir: scratch, killGraceMs: 300 }],
          [BashTools, {}],
        ],
      })
      await own.tools.execute({ callId: 'bg', name: 'bash', arguments: { command: `sleep ${mark} & sleep ${mark}`, run_in_background: true } })
      for (let attempt = 0; attempt < 200 && processesWith(mark).length < 2; attempt += 1) await pause(50)
      expect(processesWith(mark)).toHaveLength(2)
      await own.dispose()
      expect(processesWith(mark)).toEqual([])
    })
  })
})

import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { getEventListeners } from 'node:events'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readTerminalResultMeta } from '@dsh/tools-presentation'
import { createTestAgent, createToolContext, formatSessionLog, runScriptedSession } from '@dsh/tools-testing'
import { describe, expect, it } from 'vitest'
import type { BashRunMeta } from './bash-tool-meta.js'
import { BashTools } from './bash-tools.js'
import { LocalBashExecutor } from './local-bash-executor.js'
import { isProcessAlive } from './process-group.js'
import { pidsIn, useScratch, useTools, waitFor } from './test-support.js'

const dirs = useScratch('tool-bash-tools-')
const { scratch, spillRoot } = dirs
mkdirSync(join(scratch, 'sub', 'deeper'), { recursive: true })
writeFileSync(join(scratch, 'a-file'), 'not a directory\n')
const tools = useTools(dirs)

const meta = (result: { meta?: unknown }): BashRunMeta => result.meta as BashRunMeta

describe('what the model reads', () => {
  it('exit 0: the output, no marker; the exit status travels in meta', async () => {
    const { call, text } = await tools()
    const result = await call('bash', { command: 'echo hello; echo world' })
    expect(result.isError).toBe(false)
    expect(text(result)).toBe('hello\nworld')
    expect(readTerminalResultMeta(result.meta)).toEqual({ exitCode: 0, signal: null, timedOut: false, durationMs: expect.any(Number) })
    expect(meta(result)).toMatchObject({ cwd: scratch, timeoutMs: 120_000, stdout: { bytes: 12, omittedBytes: 0, spillPath: null } })
    expect(Object.isFrozen(result)).toBe(true)
  })

  it('a nonzero exit is not an error: [exit code: N] ends the text', async () => {
    const { call, text } = await tools()
    const result = await call('bash', { command: 'echo partial; exit 9' })
    expect(result).toMatchObject({ isError: false, meta: { exitCode: 9, signal: null, timedOut: false } })
    expect(result.error).toBeUndefined()
    expect(text(result)).toBe('partial\n[exit code: 9]')
  })

  it('a command ended by a signal reads [killed by signal: S], not an exit code', async () => {
    const { call, text } = await tools()
    const result = await call('bash', { command: 'echo bye; kill -KILL $$' })
    expect(text(result)).toBe('bye\n[killed by signal: SIGKILL]')
    expect(result).toMatchObject({ isError: false, meta: { exitCode: null, signal: 'SIGKILL' } })
  })

  it('says (no output) when nothing was printed', async () => {
    const { call, text } = await tools()
    expect(text(await call('bash', { command: 'true' }))).toBe('(no output)')
    expect(text(await call('bash', { command: 'false' }))).toBe('(no output)\n[exit code: 1]')
  })

  it('puts stderr in its own [stderr] section after stdout, whatever order they were written in', async () => {
    const { call, text } = await tools()
    const result = await call('bash', { command: 'echo first-err >&2; echo out; echo second-err >&2; exit 2' })
    expect(text(result)).toBe('out\n[stderr]\nfirst-err\nsecond-err\n[exit code: 2]')
  })

  it('writes the markers in their fixed order: truncated, timed out, killed by signal', async () => {
    const { call, text } = await tools({ executor: { outputWindowBytes: 64 } })
    const result = await call('bash', {
      command: "seq 1 1000; seq 1 500 >&2; trap '' TERM; sleep 100",
      timeout: 500,
    })
    const lines = text(result).split('\n')
    const markers = lines.filter((line) => /^\[(output truncated|timed out|killed by signal|exit code)/.test(line))
    expect(markers).toEqual([
      expect.stringMatching(/^\[output truncated: \d+ of 3893 bytes of stdout omitted; full output: .*-stdout\.log\]$/),
      expect.stringMatching(/^\[output truncated: \d+ of 1892 bytes of stderr omitted; full output: .*-stderr\.log\]$/),
      '[timed out after 500ms]',
      '[killed by signal: SIGKILL]',
    ])
    expect(lines.slice(-4)).toEqual(markers)
    expect(lines[0]).toBe('1')
    expect(lines).toContain('1000')
    expect(lines).toContain('[stderr]')
    expect(result).toMatchObject({ isError: false, meta: { timedOut: true, signal: 'SIGKILL', exitCode: null } })
  })
})

describe('workdir', () => {
  it('runs in the executor cwd by default, in a relative workdir under it, and in an absolute one', async () => {
    const { call, text } = await tools()
    expect(text(await call('bash', { command: 'pwd' }))).toBe(scratch)
    expect(text(await call('bash', { command: 'pwd', workdir: 'sub/deeper' }))).toBe(join(scratch, 'sub', 'deeper'))
    const elsewhere = realpathSync(tmpdir())
    const absolute = await call('bash', { command: 'pwd', workdir: elsewhere })
    expect(text(absolute)).toBe(elsewhere)
    expect(meta(absolute).cwd).toBe(elsewhere)
  })

  it("resolves a relative workdir against the agent's cwd, which is also the default", async () => {
    const { call, text } = await tools()
    const agent = createTestAgent('worker', { cwd: join(scratch, 'sub') })
    expect(text(await call('bash', { command: 'pwd' }, { agent }))).toBe(join(scratch, 'sub'))
    expect(text(await call('bash', { command: 'pwd', workdir: 'deeper' }, { agent }))).toBe(join(scratch, 'sub', 'deeper'))
    expect(text(await call('bash', { command: 'pwd', workdir: '..' }, { agent }))).toBe(scratch)
    expect(text(await call('bash', { command: 'pwd', workdir: scratch }, { agent }))).toBe(scratch)
  })

  it('a missing workdir (or a file) is an error result with BASH_SPAWN_FAILED, and nothing runs', async () => {
    const { call, text } = await tools()
    const marker = join(scratch, 'should-not-exist')
    const missing = await call('bash', { command: `touch ${marker}`, workdir: 'nope' })
    expect(missing).toMatchObject({ isError: true, error: { name: 'BashSpawnError', code: 'BASH_SPAWN_FAILED' } })
    expect(text(missing)).toBe(`cannot run the command: working directory ${join(scratch, 'nope')} does not exist`)
    const file = await call('bash', { command: `touch ${marker}`, workdir: 'a-file' })
    expect(file).toMatchObject({ isError: true, error: { code: 'BASH_SPAWN_FAILED' } })
    expect(text(file)).toContain('is not a directory')
    expect(existsSync(marker)).toBe(false)
  })
})

describe('invalid input is an error the model can correct', () => {
  it.each([
    ['a missing command', { description: 'no command' }, /command/],
    ['a command of the wrong type', { command: 42 }, /command/],
    ['an empty command', { command: '   ' }, /non-empty/],
    ['a fractional timeout', { command: 'true', timeout: 1.5 }, /timeout/],
    ['a zero timeout', { command: 'true', timeout: 0 }, /timeout must be an integer number of milliseconds from 1 to 600000/],
    ['a timeout above the maximum', { command: 'true', timeout: 600_001 }, /from 1 to 600000, got 600001/],
    ['an empty workdir', { command: 'true', workdir: '' }, /workdir must be a non-empty path/],
    ['a non-boolean run_in_background', { command: 'true', run_in_background: 'yes' }, /run_in_background/],
  ])('%s', async (_name, args, message) => {
    const { call, text } = await tools()
    const result = await call('bash', args)
    expect(result).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } })
    expect(text(result)).toMatch(message)
  })

  it('arguments cannot set the environment or stdin: extra keys have no effect', async () => {
    const { call, text } = await tools()
    const result = await call('bash', {
      command: 'echo "FOO=[${FOO-unset}] PATH_SET=[${PATH:+yes}]"; cat; echo "stdin read"',
      env: { FOO: 'injected', PATH: '' },
      stdin: 'secret input\n',
      input: 'secret input\n',
      shell: '/bin/sh',
      cwd: '/',
    })
    expect(result.isError).toBe(false)
    expect(text(result)).toBe('FOO=[unset] PATH_SET=[yes]\nstdin read')
    expect(meta(result).cwd).toBe(scratch)
  })
})

describe('stopping', () => {
  it("a timeout kills the whole tree: `bash -c 'sleep 100 & sleep 100 & wait'` leaves no pid alive", async () => {
    const { call, text } = await tools()
    const result = await call('bash', {
      command: `echo $$; bash -c 'sleep 100 & echo $!; sleep 100 & echo $!; echo $$; wait'`,
      timeout: 400,
    })
    const pids = pidsIn(text(result))
    expect(pids).toHaveLength(4)
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(false)
    expect(text(result).split('\n').slice(-2)).toEqual(['[timed out after 400ms]', '[killed by signal: SIGTERM]'])
    expect(result).toMatchObject({ isError: false, meta: { timedOut: true, signal: 'SIGTERM' } })
  })

  it('a command that traps SIGTERM dies by SIGKILL after the grace', async () => {
    const { call, text } = await tools({ executor: { killGraceMs: 200 } })
    const result = await call('bash', { command: "trap '' TERM; echo $$; sleep 100 & echo $!; wait; wait", timeout: 200 })
    const pids = pidsIn(text(result))
    expect(pids).toHaveLength(2)
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(false)
    expect(text(result).split('\n').slice(-2)).toEqual(['[timed out after 200ms]', '[killed by signal: SIGKILL]'])
    expect(result.meta).toMatchObject({ signal: 'SIGKILL', timedOut: true })
  })

  it('an abort of the call is an ABORTED error, after the whole tree is gone, with what it printed', async () => {
    const { call, text } = await tools()
    const pidFile = join(scratch, 'abort-pids')
    const controller = new AbortController()
    const running = call(
      'bash',
      { command: `echo started; bash -c 'echo $$; sleep 100 & echo $!; sleep 100 & echo $!; wait' > ${pidFile}; wait` },
      { signal: controller.signal },
    )
    await waitFor(() => existsSync(pidFile) && pidsIn(readFileSync(pidFile, 'utf8')).length === 3)
    controller.abort()
    const result = await running
    expect(result).toMatchObject({ isError: true, error: { name: 'BashAbortedError', code: 'ABORTED' } })
    expect(result.meta).toBeUndefined()
    expect(text(result)).toBe(
      'The command was stopped before it finished because the call was cancelled; all of its processes were stopped. ' +
        'What it printed:\nstarted\n[killed by signal: SIGTERM]',
    )
    const pids = pidsIn(readFileSync(pidFile, 'utf8'))
    expect(pids).toHaveLength(3)
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(false)
  })

  it('unloading the tools stops a foreground command and ends its call as ABORTED', async () => {
    await using t = await createToolContext({ plugins: [[LocalBashExecutor, { cwd: scratch, tempDir: spillRoot, killGraceMs: 300 }]] })
    const loaded = await t.load(BashTools)
    const pidFile = join(scratch, 'unload-pids')
    const running = t.tools.execute({ callId: 'c1', name: 'bash', arguments: { command: `echo $$ > ${pidFile}; sleep 100` } })
    await waitFor(() => existsSync(pidFile) && pidsIn(readFileSync(pidFile, 'utf8')).length === 1)
    await loaded.dispose()
    const result = await running
    expect(result).toMatchObject({ isError: true, error: { name: 'BashAbortedError', code: 'ABORTED' } })
    expect(result.content[0]).toMatchObject({ text: expect.stringContaining('because the bash tools were unloaded') })
    for (const pid of pidsIn(readFileSync(pidFile, 'utf8'))) expect(isProcessAlive(pid)).toBe(false)
    expect(t.tools.get('bash')).toBeUndefined()
  })
})

describe('many commands', () => {
  it('runs 50 commands at once, each with its own output and exit code', async () => {
    const { call, text } = await tools()
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, index) => call('bash', { command: `echo "job ${index}"; sleep 0.05; exit $((${index} % 7))` })),
    )
    results.forEach((result, index) => {
      const code = index % 7
      expect(result.isError).toBe(false)
      expect(text(result)).toBe(code === 0 ? `job ${index}` : `job ${index}\n[exit code: ${code}]`)
      expect(result.meta).toMatchObject({ exitCode: code })
    })
  })
})

describe('a long-lived caller signal', () => {
  it('keeps no abort listener once each call is done (a session signal serves many calls)', async () => {
    const { call } = await tools()
    const session = new AbortController()
    for (let index = 0; index < 20; index++) await call('bash', { command: 'true' }, { signal: session.signal })
    await call('bash', { command: 'sleep 5', timeout: 20 }, { signal: session.signal })
    expect(getEventListeners(session.signal, 'abort')).toHaveLength(0)
  })
})

describe('through a scripted model loop', () => {
  it('the model sees a failing command, reacts to it, and the session log records both calls', async () => {
    const { t } = await tools()
    const session = await runScriptedSession(t.tools, [
      [{ id: 'call_1', name: 'bash', arguments: { command: 'test -f missing.txt || { echo "missing.txt not found" >&2; exit 1; }' } }],
      ({ previous }) => {
        const first = previous?.results[0]
        const text = first?.content[0]?.type === 'text' ? first.content[0].text : ''
        return text.endsWith('[exit code: 1]') && first?.isError === false
          ? [{ id: 'call_2', name: 'bash', arguments: { command: 'echo created > missing.txt && cat missing.txt' } }]
          : []
      },
    ])
    expect(session.steps).toHaveLength(2)
    expect(formatSessionLog(session.log)).toBe(
      [
        'step 1',
        '  tool/call call_1 bash {"command":"test -f missing.txt || { echo \\"missing.txt not found\\" >&2; exit 1; }"} (batch 1, serial)',
        '  tool/result call_1 ok: [stderr]',
        '    missing.txt not found',
        '    [exit code: 1]',
        'step 2',
        '  tool/call call_2 bash {"command":"echo created > missing.txt && cat missing.txt"} (batch 1, serial)',
        '  tool/result call_2 ok: created',
      ].join('\n'),
    )
  })
})

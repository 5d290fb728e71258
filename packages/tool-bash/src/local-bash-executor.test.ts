import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { getEventListeners } from 'node:events'
import { dirname, join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { BashRequest, BashResult } from './bash-executor.js'
import { BashConfigError } from './bash-config-error.js'
import { BashRequestError } from './bash-request-error.js'
import { BashSpawnError } from './bash-spawn-error.js'
import { LocalBashExecutor } from './local-bash-executor.js'
import { isProcessAlive } from './process-group.js'
import { pidsIn, useExecutors, useScratch, waitFor } from './test-support.js'

const dirs = useScratch('tool-bash-executor-')
const { scratch, spillRoot } = dirs
const executor = useExecutors(dirs)

function output(result: BashResult): string {
  return result.stdout.head + result.stdout.tail
}

describe('loading', () => {
  it('provides ctx.bash with the configured limits', async () => {
    const { bash, local } = await executor({ defaultTimeoutMs: 5_000, maxTimeoutMs: 9_000, outputWindowBytes: 128 })
    expect(bash).toBeDefined()
    expect(bash.limits).toEqual({
      cwd: scratch,
      defaultTimeoutMs: 5_000,
      maxTimeoutMs: 9_000,
      backgroundTimeoutMs: 9_000,
      outputWindowBytes: 128,
    })
    expect(local.config.killGraceMs).toBe(300)
    expect(local.spillDirectory).toBeNull()
  })

  it('fails to load with INVALID_CONFIG and provides nothing', async () => {
    const ctx = new Context()
    const fiber = ctx.plugin(LocalBashExecutor, { maxTimeoutMs: -1, cwd: join(scratch, 'missing') })
    const error: unknown = await fiber.then(
      () => undefined,
      (reason: unknown) => reason,
    )
    expect(BashConfigError.isInstance(error)).toBe(true)
    expect(error).toMatchObject({ code: 'INVALID_CONFIG', name: 'BashConfigError' })
    expect((error as BashConfigError).issues).toHaveLength(2)
    expect(ctx.get('bash')).toBeUndefined()
    await fiber.dispose()
  })
})

describe('running a command', () => {
  it('reports exit 0 and the output', async () => {
    const { bash } = await executor()
    const result = await bash.run({ command: 'echo hello; printf "no newline"' })
    expect(result).toMatchObject({
      command: 'echo hello; printf "no newline"',
      cwd: scratch,
      exitCode: 0,
      signal: null,
      timedOut: false,
      aborted: false,
      stopReason: null,
      timeoutMs: 120_000,
      stdout: { head: 'hello\nno newline', tail: '', omittedBytes: 0, totalBytes: 16, spill: null },
      stderr: { head: '', tail: '', omittedBytes: 0, totalBytes: 0, spill: null },
    })
    expect(result.pid).toEqual(expect.any(Number))
    expect(result.durationMs).toBeGreaterThan(0)
    expect(Object.isFrozen(result)).toBe(true)
    expect(Object.isFrozen(result.stdout)).toBe(true)
    expect(JSON.parse(JSON.stringify(result))).toEqual(result)
  })

  it('reports a nonzero exit code without throwing, and stderr apart from stdout', async () => {
    const { bash } = await executor()
    const result = await bash.run({ command: 'echo out; echo err >&2; exit 9' })
    expect(result).toMatchObject({ exitCode: 9, signal: null, stdout: { head: 'out\n' }, stderr: { head: 'err\n' } })
  })

  it('reports the signal that ended the shell', async () => {
    const { bash } = await executor()
    const result = await bash.run({ command: 'kill -USR1 $$' })
    expect(result).toMatchObject({ exitCode: null, signal: 'SIGUSR1', timedOut: false, aborted: false })
  })

  it('runs bash non-login and non-interactive, with stdin from /dev/null, in its own process group', async () => {
    const { bash } = await executor()
    const result = await bash.run({
      command: [
        'case $- in *i*) echo interactive;; *) echo non-interactive;; esac',
        'shopt -q login_shell && echo login || echo non-login',
        'readlink /proc/self/fd/0',
        'cat', // would hang on a terminal or an open pipe
        'echo "pgid=$(cut -d" " -f5 /proc/$$/stat) pid=$$"',
      ].join('\n'),
    })
    const lines = output(result).trim().split('\n')
    expect(lines.slice(0, 3)).toEqual(['non-interactive', 'non-login', '/dev/null'])
    expect(lines[3]).toBe(`pgid=${result.pid} pid=${result.pid}`)
  })

  it('ignores request fields it does not know, so nothing can set the environment or stdin', async () => {
    const { bash } = await executor()
    const request = { command: 'echo "[$INJECTED]"; cat', env: { INJECTED: 'x' }, stdin: 'data', input: 'data' }
    const result = await bash.run(request as BashRequest)
    expect(output(result)).toBe('[]\n')
  })

  it('runs 50 commands at once, each with its own output', async () => {
    const { bash, local } = await executor()
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, index) => bash.run({ command: `sleep 0.0${index % 5}; echo ${index}; exit ${index % 7}` })),
    )
    results.forEach((result, index) => {
      expect(output(result)).toBe(`${index}\n`)
      expect(result.exitCode).toBe(index % 7)
    })
    expect(new Set(results.map((result) => result.pid)).size).toBe(50)
    expect(local.activeCount).toBe(0)
  })
})

describe('output listeners of a background task', () => {
  it('onOutput hands over every chunk as it arrives, on either stream, whatever the read window keeps; removed, it is not called', async () => {
    const { bash } = await executor({ outputWindowBytes: 64 })
    const gate = (name: string): string => `while [ ! -e ${join(scratch, name)} ]; do sleep 0.01; done`
    const task = await bash.start({ command: `seq 1 100; ${gate('on-output-1')}; echo two >&2; ${gate('on-output-2')}; echo three` })
    const chunks: string[] = []
    const off = task.onOutput?.((stream, chunk) => chunks.push(`${stream}:${Buffer.from(chunk).toString('utf8')}`))
    expect(off).toBeTypeOf('function')
    const seq = Array.from({ length: 100 }, (_, index) => `${index + 1}\n`).join('')
    await waitFor(() => chunks.map((chunk) => chunk.slice('stdout:'.length)).join('') === seq)
    // The read window (64 bytes) left most of it out; the chunks did not.
    expect(task.read().stdout.omittedBytes).toBeGreaterThan(0)
    writeFileSync(join(scratch, 'on-output-1'), '')
    await waitFor(() => chunks.at(-1) === 'stderr:two\n')
    const seen = chunks.length
    off?.()
    writeFileSync(join(scratch, 'on-output-2'), '')
    await task.done
    expect(chunks).toHaveLength(seen)
    expect(task.read().stdout.head).toBe('three\n')
  })
})

describe('working directory', () => {
  it('defaults to the configured cwd and resolves relative paths against it', async () => {
    mkdirSync(join(scratch, 'sub'), { recursive: true })
    const { bash } = await executor()
    expect(output(await bash.run({ command: 'pwd' }))).toBe(`${scratch}\n`)
    const relative = await bash.run({ command: 'pwd', cwd: 'sub' })
    expect(relative.cwd).toBe(join(scratch, 'sub'))
    expect(output(relative)).toBe(`${join(scratch, 'sub')}\n`)
    expect(output(await bash.run({ command: 'pwd', cwd: '/' }))).toBe('/\n')
  })

  it('fails to spawn, with the path in the message, when the directory is missing or a file', async () => {
    const { bash } = await executor()
    const missing = join(scratch, 'does-not-exist')
    await expect(bash.run({ command: 'true', cwd: missing })).rejects.toSatisfy(
      (error: unknown) =>
        BashSpawnError.isInstance(error) &&
        error.code === 'BASH_SPAWN_FAILED' &&
        error.cwd === missing &&
        error.message === `cannot run the command: working directory ${missing} does not exist`,
    )
    const file = join(scratch, 'a-file')
    writeFileSync(file, '')
    await expect(bash.start({ command: 'true', cwd: file })).rejects.toThrow(
      `cannot run the command: working directory ${file} is not a directory`,
    )
    await expect(bash.run({ command: 'true', cwd: join(file, 'below') })).rejects.toThrow(/does not exist$/)
  })
})

describe('request validation', () => {
  it.each([
    { label: 'an empty command', request: { command: '' }, field: 'command' },
    { label: 'a blank command', request: { command: '   ' }, field: 'command' },
    { label: 'a NUL byte', request: { command: 'echo a\0b' }, field: 'command' },
    { label: 'a command that is not a string', request: { command: 42 }, field: 'command' },
    { label: 'a command over 131071 bytes', request: { command: `: ${'x'.repeat(131_070)}` }, field: 'command' },
    { label: 'a zero timeout', request: { command: 'true', timeoutMs: 0 }, field: 'timeoutMs' },
    { label: 'a fractional timeout', request: { command: 'true', timeoutMs: 1.5 }, field: 'timeoutMs' },
    { label: 'a timeout over the maximum', request: { command: 'true', timeoutMs: 600_001 }, field: 'timeoutMs' },
    { label: 'a string timeout', request: { command: 'true', timeoutMs: '100' }, field: 'timeoutMs' },
    { label: 'an empty cwd', request: { command: 'true', cwd: '' }, field: 'cwd' },
    { label: 'no object', request: null, field: 'request' },
  ])('rejects $label before running anything', async ({ request, field }) => {
    const { bash, local } = await executor()
    const error: unknown = await bash.run(request as BashRequest).then(
      () => undefined,
      (reason: unknown) => reason,
    )
    expect(BashRequestError.isInstance(error)).toBe(true)
    expect(error).toMatchObject({ code: 'INVALID_ARGS', field })
    expect(local.activeCount).toBe(0)
  })

  it('accepts a command of exactly the longest length one argument may have', async () => {
    const { bash } = await executor()
    const command = `: ${'x'.repeat(131_060)}; echo ok`
    expect(Buffer.byteLength(command)).toBe(131_071)
    const result = await bash.run({ command })
    expect(output(result)).toBe('ok\n')
  })

  it('resolves a request to what will run', async () => {
    const { bash } = await executor({ defaultTimeoutMs: 1_000, backgroundTimeoutMs: 2_000 })
    expect(await bash.resolve({ command: 'ls', cwd: '.' })).toEqual({ command: 'ls', cwd: scratch, timeoutMs: 1_000 })
    expect(await bash.resolve({ command: 'ls' }, { background: true })).toEqual({ command: 'ls', cwd: scratch, timeoutMs: 2_000 })
    expect(await bash.resolve({ command: 'ls', timeoutMs: 600_000 })).toMatchObject({ timeoutMs: 600_000 })
  })
})

describe('stopping', () => {
  it('kills the whole tree on timeout: every pid is gone when the result arrives', async () => {
    const { bash } = await executor()
    const result = await bash.run({ command: 'echo $$; sleep 100 & echo $!; sleep 100 & echo $!; wait', timeoutMs: 300 })
    const pids = pidsIn(output(result))
    expect(pids).toHaveLength(3)
    expect(pids[0]).toBe(result.pid)
    expect(result).toMatchObject({ timedOut: true, aborted: false, stopReason: 'timeout', exitCode: null, signal: 'SIGTERM' })
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(false)
  })

  it('SIGKILLs a command that traps SIGTERM once the grace has passed', async () => {
    const { bash } = await executor({ killGraceMs: 200 })
    const result = await bash.run({ command: "trap '' TERM; echo $$; sleep 100 & echo $!; wait; wait", timeoutMs: 200 })
    expect(result).toMatchObject({ timedOut: true, signal: 'SIGKILL', exitCode: null })
    const pids = pidsIn(output(result))
    expect(pids).toHaveLength(2)
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(false)
  })

  it('stops the whole tree when the request is aborted, and removes its abort listener', async () => {
    const { bash } = await executor()
    const controller = new AbortController()
    const pidFile = join(scratch, 'abort-pids')
    const running = bash.run({
      command: `echo $$ > ${pidFile}; sleep 100 & echo $! >> ${pidFile}; wait`,
      signal: controller.signal,
    })
    await waitFor(() => existsSync(pidFile) && pidsIn(readFileSync(pidFile, 'utf8')).length === 2)
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1)
    controller.abort()
    const result = await running
    expect(result).toMatchObject({ aborted: true, stopReason: 'abort', timedOut: false, signal: 'SIGTERM' })
    for (const pid of pidsIn(readFileSync(pidFile, 'utf8'))) expect(isProcessAlive(pid)).toBe(false)
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
  })

  it('removes its abort listener when the command ends on its own', async () => {
    const { bash } = await executor()
    const controller = new AbortController()
    await bash.run({ command: 'true', signal: controller.signal })
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
  })

  it('starts nothing when the signal is already aborted', async () => {
    const { bash } = await executor()
    const result = await bash.run({ command: `touch ${join(scratch, 'should-not-exist')}`, signal: AbortSignal.abort() })
    expect(result).toMatchObject({ pid: null, aborted: true, stopReason: 'abort', exitCode: null, signal: null, durationMs: 0 })
    expect(existsSync(join(scratch, 'should-not-exist'))).toBe(false)
  })

  it('leaves nothing behind when the shell exits: background children are stopped too', async () => {
    const { bash } = await executor()
    const result = await bash.run({
      command: 'sleep 100 & echo $!; nohup sleep 100 >/dev/null 2>&1 & echo $!; (sleep 100 &) ; echo done',
    })
    expect(result).toMatchObject({ exitCode: 0, stopReason: null, timedOut: false })
    const pids = pidsIn(output(result))
    expect(pids).toHaveLength(2)
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(false)
  })
})

describe('environment', () => {
  const saved = new Map<string, string | undefined>()
  const setEnv = (name: string, value: string): void => {
    if (!saved.has(name)) saved.set(name, process.env[name])
    process.env[name] = value
  }
  afterEach(() => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
    saved.clear()
  })

  it('does not source BASH_ENV or ENV, and does not import exported functions', async () => {
    const marker = join(scratch, 'bash-env-sourced')
    const hook = join(scratch, 'hook.sh')
    writeFileSync(hook, `touch ${marker}\necho HOOKED\n`)
    setEnv('BASH_ENV', hook)
    setEnv('ENV', hook)
    setEnv('BASH_FUNC_greet%%', '() { echo hijacked; }')
    const { bash } = await executor()
    const result = await bash.run({ command: 'echo "[$BASH_ENV][$ENV]"; type greet >/dev/null 2>&1 && echo has-greet; echo ok' })
    expect(output(result)).toBe('[][]\nok\n')
    expect(existsSync(marker)).toBe(false)
  })

  it('passes only allow-listed host variables (secrets only when named exactly), and sets the fixed variables', async () => {
    setEnv('DSH_TEST_API_KEY', 'secret-1')
    setEnv('DSH_TEST_TOKEN', 'secret-2')
    setEnv('DSH_TEST_PLAIN', 'plain')
    setEnv('DSH_TEST_OTHER', 'not named')
    setEnv('TERM', 'xterm-256color')
    const { bash } = await executor({ allowEnv: ['DSH_TEST_TOKEN', 'DSH_TEST_P*', 'DSH_TEST_API*'], env: { DSH_TEST_EXTRA: 'extra' } })
    const result = await bash.run({
      command:
        'echo "$DSH_TEST_API_KEY|$DSH_TEST_TOKEN|$DSH_TEST_PLAIN|$DSH_TEST_OTHER|$DSH_TEST_EXTRA|$NO_COLOR|$TERM|$PAGER|$GIT_PAGER"',
    })
    expect(output(result)).toBe('|secret-2|plain||extra|1|dumb|cat|cat\n')
  })
})

describe('output', () => {
  it('keeps head and tail of large output, counts the rest, and spills all of it to a private file', async () => {
    const { bash, local, fiber } = await executor({ outputWindowBytes: 1024 })
    const result = await bash.run({ command: 'seq 1 100000' })
    const expected = Array.from({ length: 100_000 }, (_, index) => `${index + 1}\n`).join('')
    const { stdout } = result
    expect(stdout.totalBytes).toBe(Buffer.byteLength(expected))
    expect(Buffer.byteLength(stdout.head)).toBe(512)
    expect(Buffer.byteLength(stdout.tail)).toBe(512)
    expect(expected.startsWith(stdout.head)).toBe(true)
    expect(expected.endsWith(stdout.tail)).toBe(true)
    expect(stdout.omittedBytes).toBe(stdout.totalBytes - 1024)
    const spill = stdout.spill
    expect(spill).toMatchObject({ bytes: stdout.totalBytes, complete: true, stoppedBy: null })
    const path = spill?.path as string
    expect(readFileSync(path, 'utf8')).toBe(expected)
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(dirname(path)).toBe(local.spillDirectory)
    expect(statSync(dirname(path)).mode & 0o777).toBe(0o700)
    expect(result.stderr.spill).toBeNull()
    await fiber.dispose()
    expect(existsSync(path)).toBe(false)
    expect(existsSync(dirname(path))).toBe(false)
  })

  it('stops spilling at the cap and says so', async () => {
    const { bash } = await executor({ outputWindowBytes: 64, spillCapBytes: 1000 })
    const result = await bash.run({ command: 'head -c 5000 /dev/zero | tr "\\0" x' })
    expect(result.stdout.spill).toMatchObject({ bytes: 1000, complete: false, stoppedBy: 'cap' })
    expect(statSync(result.stdout.spill?.path as string).size).toBe(1000)
    expect(result.stdout.omittedBytes).toBe(5000 - 64)
    const next = await bash.run({ command: 'head -c 100 /dev/zero' })
    expect(next.stdout.spill).toEqual({ path: null, bytes: 0, complete: false, stoppedBy: 'cap' })
  })

  it('never splits a multi-byte character, at the window cuts or across pipe chunks', async () => {
    const { bash } = await executor({ outputWindowBytes: 15 })
    // 3-byte characters written one byte at a time with pauses, so chunk edges fall inside characters.
    const result = await bash.run({
      command: "for i in 1 2 3 4 5 6 7 8; do printf '\\xe2'; sleep 0.01; printf '\\x82'; sleep 0.01; printf '\\xac'; done",
    })
    const { stdout } = result
    expect(stdout.totalBytes).toBe(24)
    expect(stdout.head).toBe('€€') // 7 bytes of head room hold two whole characters
    expect(stdout.tail).toBe('€€') // 8 bytes of tail room likewise
    expect(stdout.omittedBytes).toBe(24 - 12)
    const whole = await bash.run({ command: "printf 'a\\xe2\\x82'; sleep 0.05; printf '\\xac b\\xf0\\x9f'; sleep 0.05; printf '\\x98\\x80'" })
    expect(whole.stdout.head).toBe('a€ b😀')
  })

  it('holds 200 MB of output in bounded memory with the right head, tail, count and a complete spill file', async () => {
    const { bash, fiber } = await executor()
    const size = 200_000_000
    const baseline = process.memoryUsage.rss()
    let peak = baseline
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss())
    }, 2)
    const result = await bash.run({ command: `head -c ${size} /dev/zero | tr '\\0' 'z'; echo end >&2` })
    clearInterval(sampler)
    peak = Math.max(peak, process.memoryUsage.rss())
    expect(peak - baseline).toBeLessThan(100 * 1024 * 1024)
    expect(result.stdout).toMatchObject({
      head: 'z'.repeat(16_384),
      tail: 'z'.repeat(16_384),
      omittedBytes: size - 32_768,
      totalBytes: size,
      spill: { bytes: size, complete: true, stoppedBy: null },
    })
    expect(result.stderr.head).toBe('end\n')
    const path = result.stdout.spill?.path as string
    expect(statSync(path).size).toBe(size)
    await fiber.dispose()
    expect(existsSync(path)).toBe(false)
  })
})

describe('failing to spawn', () => {
  it('rejects run with BASH_SPAWN_FAILED when the shell cannot be executed', async () => {
    const shell = join(scratch, 'vanishing-bash')
    copyFileSync('/bin/bash', shell)
    const { bash } = await executor({ shell })
    rmSync(shell)
    const error: unknown = await bash.run({ command: 'true' }).then(
      () => undefined,
      (reason: unknown) => reason,
    )
    expect(BashSpawnError.isInstance(error)).toBe(true)
    expect(error).toMatchObject({ code: 'BASH_SPAWN_FAILED', cwd: scratch })
    expect((error as Error).message).toContain(shell)
  })

  it('refuses new commands once disposed', async () => {
    const { local, fiber } = await executor()
    await fiber.dispose()
    await expect(local.run({ command: 'true' })).rejects.toThrow('the bash executor has been disposed')
  })
})

describe('disposal', () => {
  let exitListeners = 0
  beforeAll(() => {
    exitListeners = process.listenerCount('exit')
  })

  /**
   * Handles that keep the event loop busy (child processes, pipes, timers, file requests), after one turn of the
   * loop: Node lists a file request until its callback has returned.
   */
  const liveResources = async (): Promise<string[]> => {
    await new Promise((resolve) => setImmediate(resolve))
    return process.getActiveResourcesInfo().filter((resource) => resource !== 'TTYWrap' && resource !== 'MessagePort').sort()
  }

  /** The resources in `after` beyond those in `before`, counted per kind. */
  const newResources = (before: string[], after: string[]): string[] => {
    const remaining = [...before]
    return after.filter((resource) => {
      const index = remaining.indexOf(resource)
      if (index < 0) return true
      remaining.splice(index, 1)
      return false
    })
  }

  it('stops foreground and background commands, waits until their pids are gone, and removes the temp dir', async () => {
    const resourcesBefore = await liveResources()
    const { bash, local, fiber } = await executor({ outputWindowBytes: 64 })
    expect(process.listeners('exit')).toHaveLength(exitListeners + 1)
    const pidFile = join(scratch, 'dispose-pids')
    const foreground = bash.run({ command: `echo $$ > ${pidFile}; sleep 100 & echo $! >> ${pidFile}; wait` })
    const task = await bash.start({ command: 'head -c 1000 /dev/zero; sleep 100 & echo; echo $!; wait' })
    await waitFor(() => existsSync(pidFile) && pidsIn(readFileSync(pidFile, 'utf8')).length === 2)
    const taskPids: number[] = []
    await waitFor(() => {
      const read = task.read()
      taskPids.push(...pidsIn(read.stdout.head + read.stdout.tail))
      return taskPids.length === 1
    })
    const spillDirectory = local.spillDirectory as string
    expect(existsSync(spillDirectory)).toBe(true)
    const pids = [...pidsIn(readFileSync(pidFile, 'utf8')), task.pid as number, ...taskPids]
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(true)

    await fiber.dispose()

    for (const pid of pids) expect(isProcessAlive(pid)).toBe(false)
    expect(existsSync(spillDirectory)).toBe(false)
    expect(local.activeCount).toBe(0)
    expect(process.listenerCount('exit')).toBe(exitListeners)
    expect(await foreground).toMatchObject({ aborted: true, stopReason: 'dispose' })
    expect(task.outcome).toMatchObject({ status: 'completed', result: { aborted: true, stopReason: 'dispose' } })
    // No child handle, pipe, timer or pending file request is left: nothing is live now that was not before
    // (a handle of the test runner may end meanwhile, so this compares counts per kind, not the lists).
    expect(newResources(resourcesBefore, await liveResources())).toEqual([])
  })

  it('SIGKILLs every running command from its exit hook if the hosting process exits first', async () => {
    const before = process.listeners('exit')
    const { bash, fiber } = await executor()
    const hook = process.listeners('exit').find((listener) => !before.includes(listener))
    expect(hook).toBeTypeOf('function')
    const task = await bash.start({ command: "trap '' TERM; sleep 100 & echo $!; wait" })
    let stdout = ''
    await waitFor(() => {
      stdout += task.read().stdout.head
      return pidsIn(stdout).length === 1
    })
    const pids = [task.pid as number, ...pidsIn(stdout)]
    ;(hook as (code: number) => void)(0)
    await waitFor(() => pids.every((pid) => !isProcessAlive(pid)))
    expect(await task.done).toMatchObject({ status: 'completed', result: { signal: 'SIGKILL' } })
    await fiber.dispose()
    expect(process.listeners('exit')).toEqual(before)
  })

  it('loads again after a hot unload', async () => {
    const ctx = new Context()
    const first = await ctx.plugin(LocalBashExecutor, { cwd: scratch, tempDir: spillRoot })
    expect((await ctx.bash.run({ command: 'echo one' })).stdout.head).toBe('one\n')
    await first.dispose()
    expect(ctx.get('bash')).toBeUndefined()
    const second = await ctx.plugin(LocalBashExecutor, { cwd: scratch, tempDir: spillRoot })
    expect((await ctx.bash.run({ command: 'echo two' })).stdout.head).toBe('two\n')
    await second.dispose()
    expect(process.listenerCount('exit')).toBe(exitListeners)
  })
})

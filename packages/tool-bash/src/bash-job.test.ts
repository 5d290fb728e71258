import { copyFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { BashTask, BashTaskOutcome, CapturedOutput } from './bash-executor.js'
import { BashSpawnError } from './bash-spawn-error.js'
import { isProcessAlive } from './process-group.js'
import { pidsIn, useExecutors, useScratch, waitFor } from './test-support.js'

const dirs = useScratch('tool-bash-task-')
const { scratch } = dirs
const executor = useExecutors(dirs)
// Registered after useExecutors' hook, so it runs first: real timers before the executors are disposed.
afterEach(() => {
  vi.useRealTimers()
})

const text = (output: CapturedOutput): string => output.head + output.tail

/** Reads the task until `predicate` holds for everything read so far; returns all stdout read. */
async function readUntil(task: BashTask, predicate: (stdout: string) => boolean): Promise<string> {
  let stdout = ''
  await waitFor(() => {
    stdout += text(task.read().stdout)
    return predicate(stdout)
  })
  return stdout
}

describe('background tasks', () => {
  it('runs in the background: status, incremental reads, the outcome and a final read', async () => {
    const { bash } = await executor()
    const gate = join(scratch, 'gate-1')
    const task = await bash.start({ command: `echo first; echo warn >&2; until [ -e ${gate} ]; do sleep 0.01; done; echo second; exit 4` })
    expect(task).toMatchObject({ command: expect.stringContaining('echo first'), cwd: scratch, timeoutMs: 600_000, status: 'running' })
    expect(task.outcome).toBeUndefined()
    expect(task.pid).toEqual(expect.any(Number))
    expect(task.startedAt).toBeLessThanOrEqual(Date.now())
    expect(await readUntil(task, (stdout) => stdout === 'first\n')).toBe('first\n')
    expect(task.read()).toMatchObject({ status: 'running', stdout: { head: '', totalBytes: 0 } })
    writeFileSync(gate, '')
    const outcome = await task.done
    expect(outcome).toMatchObject({ status: 'completed', result: { exitCode: 4, stdout: { head: 'first\nsecond\n' }, stderr: { head: 'warn\n' } } })
    expect(task.status).toBe('completed')
    expect(task.outcome).toBe(outcome)
    // The whole stream is in the result; the reads hand out each byte once.
    expect(task.read()).toMatchObject({ status: 'completed', stdout: { head: 'second\n' }, stderr: { head: '' } })
    expect(task.read()).toMatchObject({ status: 'completed', stdout: { head: '', totalBytes: 0 } })
  })

  it('holds a multi-byte character back until it is complete across reads', async () => {
    const { bash } = await executor()
    const gate = join(scratch, 'gate-2')
    // `x`, then the first two bytes of `€`; the last byte only after the gate opens.
    const task = await bash.start({ command: `printf 'x\\xe2\\x82'; until [ -e ${gate} ]; do sleep 0.01; done; printf '\\xac!'` })
    // One write delivers `x` and the two bytes together; reads show `x` and hold the bytes back.
    let seen = await readUntil(task, (stdout) => stdout.length > 0)
    expect(seen).toBe('x')
    for (let read = 0; read < 3; read += 1) expect(task.read().stdout).toMatchObject({ head: '', totalBytes: 0 })
    writeFileSync(gate, '')
    await task.done
    seen += text(task.read().stdout)
    expect(seen).toBe('x€!')
  })

  it('bounds what accumulates between reads and points at the spill file', async () => {
    const { bash } = await executor({ outputWindowBytes: 32 })
    const task = await bash.start({ command: 'seq 1 1000' })
    await task.done
    const read = task.read()
    expect(read.stdout.totalBytes).toBe(3893)
    expect(read.stdout.head).toBe('1\n2\n3\n4\n5\n6\n7\n8\n')
    expect(read.stdout.tail).toBe('97\n998\n999\n1000\n')
    expect(read.stdout.omittedBytes).toBe(3893 - 32)
    expect(read.stdout.spill).toMatchObject({ bytes: 3893, complete: true })
  })

  it('kill() stops the whole tree and settles as killed', async () => {
    const { bash, local } = await executor()
    const task = await bash.start({ command: 'sleep 100 & echo $!; sleep 100 & echo $!; wait' })
    const pids = pidsIn(await readUntil(task, (stdout) => pidsIn(stdout).length === 2))
    const outcome = await task.kill()
    expect(outcome).toMatchObject({ status: 'completed', result: { aborted: true, stopReason: 'kill', timedOut: false, signal: 'SIGTERM' } })
    for (const pid of [task.pid as number, ...pids]) expect(isProcessAlive(pid)).toBe(false)
    expect(local.activeCount).toBe(0)
    expect(await task.kill()).toBe(outcome)
  })

  it('uses the background timeout by default', async () => {
    const { bash } = await executor({ backgroundTimeoutMs: 200 })
    const task = await bash.start({ command: 'sleep 100' })
    expect(task.timeoutMs).toBe(200)
    expect(await task.done).toMatchObject({ result: { timedOut: true, stopReason: 'timeout' } })
  })

  it('calls completion listeners once, late ones on a microtask, and survives a listener that throws', async () => {
    const { bash } = await executor()
    const task = await bash.start({ command: 'echo done' })
    const first = vi.fn()
    const removed = vi.fn()
    const throwing = vi.fn(() => {
      throw new Error('listener failure')
    })
    task.onDone(throwing)
    task.onDone(first)
    const unsubscribe = task.onDone(removed)
    unsubscribe()
    const outcome = await task.done
    expect(throwing).toHaveBeenCalledOnce()
    expect(first).toHaveBeenCalledExactlyOnceWith(outcome)
    expect(removed).not.toHaveBeenCalled()
    const late = vi.fn()
    task.onDone(late)
    expect(late).not.toHaveBeenCalled()
    await Promise.resolve()
    expect(late).toHaveBeenCalledExactlyOnceWith(outcome)
  })

  it('reads as failed, not killed, when the shell cannot be spawned', async () => {
    const shell = join(scratch, 'vanishing-bash')
    copyFileSync('/bin/bash', shell)
    const { bash, local } = await executor({ shell })
    rmSync(shell)
    const task = await bash.start({ command: 'echo never' })
    const outcome: BashTaskOutcome = await task.done
    expect(outcome.status).toBe('failed')
    if (outcome.status !== 'failed') return
    expect(BashSpawnError.isInstance(outcome.error)).toBe(true)
    expect(outcome.error).toMatchObject({ code: 'BASH_SPAWN_FAILED', cwd: scratch })
    expect(task).toMatchObject({ status: 'failed', pid: null })
    expect(task.read()).toMatchObject({ status: 'failed', stdout: { head: '' }, stderr: { head: '' } })
    expect(local.activeCount).toBe(0)
  })
})

describe('timers (fake clock, real processes)', () => {
  /** Lets real I/O happen without advancing the fake clock. */
  const ioTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

  async function settle(task: BashTask): Promise<BashTaskOutcome> {
    while (task.outcome === undefined) {
      await ioTurn()
      await vi.advanceTimersByTimeAsync(1)
    }
    return task.outcome
  }

  /** The signals sent to the process group `pid` so far (the real `process.kill` still runs). */
  function groupSignals(pid: number, kill: { mock: { calls: unknown[][] } }): unknown[] {
    return kill.mock.calls.filter(([target, signal]) => target === -pid && signal !== 0).map(([, signal]) => signal)
  }

  it('fires the timeout at timeoutMs, not before', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const kill = vi.spyOn(process, 'kill')
    const { bash } = await executor()
    const task = await bash.start({ command: 'echo $$; exec sleep 100', timeoutMs: 60_000 })
    const pid = task.pid as number
    while (task.read().stdout.totalBytes === 0) await ioTurn()
    vi.advanceTimersByTime(59_999)
    expect(groupSignals(pid, kill)).toEqual([])
    expect(task.status).toBe('running')
    vi.advanceTimersByTime(1)
    expect(groupSignals(pid, kill)).toEqual(['SIGTERM'])
    const outcome = await settle(task)
    expect(outcome).toMatchObject({ status: 'completed', result: { timedOut: true, signal: 'SIGTERM' } })
    expect(isProcessAlive(pid)).toBe(false)
    kill.mockRestore()
  })

  it('sends SIGKILL exactly when the grace after SIGTERM has passed', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const kill = vi.spyOn(process, 'kill')
    const { bash } = await executor({ killGraceMs: 5_000 })
    const task = await bash.start({ command: "trap '' TERM; echo ready; sleep 100", timeoutMs: 1_000 })
    const pid = task.pid as number
    while (task.read().stdout.totalBytes === 0) await ioTurn()
    vi.advanceTimersByTime(1_000)
    expect(groupSignals(pid, kill)).toEqual(['SIGTERM'])
    vi.advanceTimersByTime(4_999)
    for (let turn = 0; turn < 20; turn += 1) await ioTurn()
    expect(groupSignals(pid, kill)).toEqual(['SIGTERM'])
    expect(task.status).toBe('running')
    expect(isProcessAlive(pid)).toBe(true)
    vi.advanceTimersByTime(1)
    expect(groupSignals(pid, kill)).toEqual(['SIGTERM', 'SIGKILL'])
    const outcome = await settle(task)
    expect(outcome).toMatchObject({ status: 'completed', result: { timedOut: true, signal: 'SIGKILL' } })
    kill.mockRestore()
  })
})

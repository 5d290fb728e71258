// Processes that leave the command's process group: `setsid … &` writers that hold the output pipes after the
// shell exited (issue 14, item 1), and `set -m` jobs and setsid'd descendants (item 3).
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createToolContext } from '@dsh/tools-testing'
import { afterEach, describe, expect, it } from 'vitest'
import { BashTools } from './bash-tools.js'
import { LocalBashExecutor } from './local-bash-executor.js'
import { isProcessAlive } from './process-group.js'
import { pidsIn, useExecutors, useScratch, useTools, waitFor } from './test-support.js'

const dirs = useScratch('tool-bash-escaped-')
const { scratch, spillRoot } = dirs
const executor = useExecutors(dirs)
const tools = useTools(dirs)

let serial = 0
/** A fresh pid file in the scratch directory; every pid written to one is SIGKILLed after the test. */
function pidFile(): string {
  serial += 1
  const file = join(scratch, `pids-${serial}`)
  files.push(file)
  return file
}
const files: string[] = []

function pidsOf(file: string): number[] {
  return existsSync(file) ? pidsIn(readFileSync(file, 'utf8')) : []
}

afterEach(() => {
  for (const file of files.splice(0)) {
    for (const pid of pidsOf(file)) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // Gone, as it should be.
      }
    }
  }
})

/**
 * Waits until the process `$!` leads a session of its own (field 6 of /proc/<pid>/stat is the session id), so that
 * it has surely left the command's group and session before the shell exits.
 */
const untilEscaped = 'while [ "$(cut -d" " -f6 /proc/$!/stat)" != "$!" ]; do sleep 0.01; done'

/** `yes` in a session of its own, writing to the inherited stdout for ever; its pid goes to `file`. */
const setsidWriter = (file: string): string => `setsid yes & echo $! > ${file}; ${untilEscaped}`

describe('a process that left the group keeps writing to the inherited stdout (setsid … &)', () => {
  it('run() settles at the drain bound, says the output was cut off, and the writer dies of the closed pipe', async () => {
    const { bash } = await executor({ drainTimeoutMs: 200 })
    const file = pidFile()
    const result = await bash.run({ command: setsidWriter(file), timeoutMs: 60_000 })
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, aborted: false, stopReason: null, outputCutOff: 'drain' })
    expect(result.stdout.totalBytes).toBeGreaterThan(0)
    const [writer] = pidsOf(file)
    expect(writer).toBeGreaterThan(0)
    // Closing the pipe is what stops a writer that never pauses: its next write gets SIGPIPE.
    await waitFor(() => !isProcessAlive(writer as number))
  })

  it('the default drain bound (500 ms) holds for a writer that never pauses', async () => {
    const { bash, local } = await executor()
    expect(local.config.drainTimeoutMs).toBe(500)
    const file = pidFile()
    const result = await bash.run({ command: setsidWriter(file) })
    expect(result.outputCutOff).toBe('drain')
    expect(result.exitCode).toBe(0)
  })

  it('a writer that ignores SIGPIPE still cannot hold the job: it settles at the drain bound', async () => {
    const { bash } = await executor({ drainTimeoutMs: 200 })
    const file = pidFile()
    const result = await bash.run({
      command: `setsid bash -c 'trap "" PIPE; while :; do echo x; done 2>/dev/null' & echo $! > ${file}; ${untilEscaped}`,
      timeoutMs: 60_000,
    })
    expect(result.outputCutOff).toBe('drain')
  })

  it('the abort stays live after the shell exited: an aborted run() ends though the drain bound is far away', async () => {
    const { bash } = await executor({ drainTimeoutMs: 60_000 })
    const file = pidFile()
    const controller = new AbortController()
    const shell = pidFile()
    const running = bash.run({ command: `echo $$ > ${shell}; ${setsidWriter(file)}`, signal: controller.signal })
    await waitFor(() => pidsOf(shell).length === 1 && !isProcessAlive(pidsOf(shell)[0] as number))
    controller.abort()
    const result = await running
    expect(result).toMatchObject({ aborted: true, stopReason: 'abort', outputCutOff: 'stop', exitCode: 0 })
  })

  it('the deadline stays live after the shell exited: the timeout ends the job', async () => {
    const { bash } = await executor({ drainTimeoutMs: 60_000 })
    const file = pidFile()
    const result = await bash.run({ command: setsidWriter(file), timeoutMs: 700 })
    expect(result).toMatchObject({ timedOut: true, stopReason: 'timeout', outputCutOff: 'stop' })
  })

  it('disposing the executor finishes while a background task’s escaped writer holds its pipes', async () => {
    const { bash, fiber, local } = await executor({ drainTimeoutMs: 60_000 })
    const file = pidFile()
    const task = await bash.start({ command: setsidWriter(file) })
    await waitFor(() => pidsOf(file).length === 1 && task.pid !== null && !isProcessAlive(task.pid))
    await fiber.dispose()
    const outcome = await task.done
    expect(outcome).toMatchObject({ status: 'completed', result: { stopReason: 'dispose', outputCutOff: 'stop' } })
    expect(local.activeCount).toBe(0)
  })

  it('the bash tool call returns with the cut-off marker and meta, and unloading the tools finishes', async () => {
    const loaded = await tools({ executor: { drainTimeoutMs: 200 } })
    const file = pidFile()
    const result = await loaded.call('bash', { command: setsidWriter(file) })
    expect(result.isError).toBe(false)
    expect(loaded.text(result)).toContain('[output cut off: a process that left the command')
    expect(result.meta).toMatchObject({ outputCutOff: 'drain', exitCode: 0 })
  })

  it('unloading the tools while a foreground call waits on an escaped writer ends the call', async () => {
    await using t = await createToolContext({
      plugins: [[LocalBashExecutor, { cwd: scratch, tempDir: spillRoot, killGraceMs: 300, drainTimeoutMs: 60_000 }]],
    })
    const loaded = await t.load(BashTools)
    const file = pidFile()
    const shell = pidFile()
    const command = `echo $$ > ${shell}; ${setsidWriter(file)}`
    const running = t.tools.execute({ callId: 'c1', name: 'bash', arguments: { command } })
    await waitFor(() => pidsOf(shell).length === 1 && !isProcessAlive(pidsOf(shell)[0] as number))
    await loaded.dispose()
    const result = await running
    expect(result).toMatchObject({ isError: true, error: { code: 'ABORTED' } })
  })
})

describe.runIf(process.platform === 'linux')('job control and setsid inside a command', () => {
  it('set -m jobs (other process groups of the session) are killed when the command ends', async () => {
    const { bash } = await executor()
    const file = pidFile()
    const result = await bash.run({ command: `set -m; sleep 100 & echo $! >> ${file}; sleep 100 > /dev/null & echo $! >> ${file}` })
    expect(result.exitCode).toBe(0)
    const jobs = pidsOf(file)
    expect(jobs).toHaveLength(2)
    for (const pid of jobs) expect(isProcessAlive(pid)).toBe(false)
  })

  it('set -m jobs are killed when the command is aborted, and when it times out', async () => {
    const { bash } = await executor()
    const aborted = pidFile()
    const controller = new AbortController()
    const running = bash.run({ command: `set -m; sleep 100 & echo $! > ${aborted}; wait`, signal: controller.signal })
    await waitFor(() => pidsOf(aborted).length === 1)
    controller.abort()
    expect(await running).toMatchObject({ aborted: true })
    expect(isProcessAlive(pidsOf(aborted)[0] as number)).toBe(false)

    const timedOut = pidFile()
    const result = await bash.run({ command: `set -m; sleep 100 > /dev/null 2>&1 & echo $! > ${timedOut}; wait`, timeoutMs: 500 })
    expect(result.timedOut).toBe(true)
    expect(isProcessAlive(pidsOf(timedOut)[0] as number)).toBe(false)
  })

  it('a setsid descendant whose parent is still the command’s is killed at the timeout', async () => {
    const { bash } = await executor()
    const file = pidFile()
    const result = await bash.run({ command: `(setsid sleep 100 > /dev/null 2>&1 & echo $! > ${file}; wait); wait`, timeoutMs: 500 })
    expect(result.timedOut).toBe(true)
    const [escaped] = pidsOf(file)
    expect(isProcessAlive(escaped as number)).toBe(false)
  })

  it('set -m jobs of a background task are killed when the executor is unloaded', async () => {
    const { bash, fiber } = await executor()
    const file = pidFile()
    await bash.start({ command: `set -m; sleep 100 > /dev/null 2>&1 & echo $! > ${file}; wait` })
    await waitFor(() => pidsOf(file).length === 1)
    await fiber.dispose()
    expect(isProcessAlive(pidsOf(file)[0] as number)).toBe(false)
  })
})

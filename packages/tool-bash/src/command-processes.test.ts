import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { afterEach, describe, expect, it } from 'vitest'
import { CommandProcesses, readForkCount } from './command-processes.js'
import { isProcessAlive, readProcStat, signalProcessGroup } from './process-group.js'
import { waitFor } from './test-support.js'

/** Pids the tests started outside any tracking: killed after each test whatever happened. */
const strays = new Set<number>()

afterEach(() => {
  for (const pid of strays) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
  strays.clear()
})

/** Spawns `script` as a command is spawned (own session and group); resolves with it and the pids it prints. */
async function startCommand(
  script: string,
  lines: number,
): Promise<{ child: ChildProcess; pids: number[]; tracked: CommandProcesses; exited: Promise<unknown> }> {
  const forks = readForkCount()
  const child = spawn('bash', ['-c', script], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] })
  // Listened for at once: a short script may be gone before its output has been read.
  const exited = once(child, 'exit')
  const tracked = new CommandProcesses(child.pid as number, forks)
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  await waitFor(() => output.split('\n').length > lines)
  const pids = output.trim().split('\n').map(Number)
  for (const pid of pids) strays.add(pid)
  return { child, pids, tracked, exited }
}

describe.runIf(process.platform === 'linux')('what a command started, beyond its group', () => {
  it('set -m jobs (new process groups of the same session) survived the group signal: the session finds them', async () => {
    const { child, pids, tracked } = await startCommand('set -m; sleep 100 & echo $!; sleep 100 & echo $!; wait', 2)
    const pid = child.pid as number
    for (const job of pids) expect(readProcStat(job)).toMatchObject({ sid: pid, pgrp: job })
    expect(tracked.live().sort()).toEqual([pid, ...pids].sort())
    const exited = once(child, 'exit')
    signalProcessGroup(pid, 'SIGKILL')
    await exited
    // The shell's group is gone, its jobs are not: only the session ties them to the command.
    expect(signalProcessGroup(pid, 0)).toBe(false)
    for (const job of pids) expect(isProcessAlive(job)).toBe(true)
    expect(tracked.live().sort()).toEqual([...pids].sort())
    expect(tracked.signal('SIGKILL')).toBe(2)
    await waitFor(() => pids.every((job) => !isProcessAlive(job)))
    await waitFor(() => tracked.live().length === 0) // the shell itself may still be exiting for a moment
    expect(tracked.live()).toEqual([])
  })

  it('a setsid child (its own session) escaped group and session: it is found through its parent while it has one', async () => {
    // The subshell stays in the group and is the setsid child's parent; the child is in a session of its own.
    const { child, pids, tracked } = await startCommand('(setsid sleep 100 & echo $!; wait) & wait', 1)
    const escaped = pids[0] as number
    await waitFor(() => readProcStat(escaped)?.sid === escaped)
    expect(tracked.live()).toContain(escaped)
    const exited = once(child, 'exit')
    expect(tracked.signal('SIGKILL')).toBeGreaterThanOrEqual(3)
    await exited
    await waitFor(() => !isProcessAlive(escaped))
    // SIGKILL is delivered asynchronously: the subshell and the shell may still be exiting for a moment.
    await waitFor(() => tracked.live().length === 0)
    expect(tracked.live()).toEqual([])
  })

  it('documented residue: a process that left the session and lost its parent before the scan is not found', async () => {
    // `setsid` child of a shell that then exits: re-parented to init (or a subreaper), in a session of its own, in
    // no group of the command. Nothing in /proc ties it to the command any more; only a pid namespace (the
    // sandboxed executor) would. This test pins that residue exactly, and kills the process itself.
    const { child, pids, tracked, exited } = await startCommand('setsid sleep 100 > /dev/null 2>&1 & echo $!', 1)
    const escaped = pids[0] as number
    await exited
    await waitFor(() => readProcStat(escaped)?.ppid !== child.pid && readProcStat(escaped)?.sid === escaped)
    expect(isProcessAlive(escaped)).toBe(true)
    expect(tracked.live()).toEqual([])
    process.kill(escaped, 'SIGKILL')
    strays.delete(escaped)
    await waitFor(() => !isProcessAlive(escaped))
  })
})

import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { CommandProcesses, readForkCount } from './command-processes.js'
import { isProcessAlive, signalProcessGroup } from './process-group.js'
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

describe('process groups', () => {
  it('signals a whole group and sees when its live members are gone', async () => {
    const { child, pids, tracked } = await startCommand('sleep 100 & echo $!; sleep 100 & echo $!; wait', 2)
    const pid = child.pid as number
    expect(tracked.live().sort()).toEqual([pid, ...pids].sort())
    for (const member of [pid, ...pids]) expect(isProcessAlive(member)).toBe(true)
    const exited = once(child, 'exit')
    expect(signalProcessGroup(pid, 'SIGKILL')).toBe(true)
    await exited
    await waitFor(() => tracked.live().length === 0)
    for (const member of [pid, ...pids]) expect(isProcessAlive(member)).toBe(false)
  })

  it('reports a group that does not exist', () => {
    // The pid of a finished process no longer names a group.
    const finished = spawnSync('bash', ['-c', 'echo $$'], { encoding: 'utf8' })
    const pid = Number(finished.stdout.trim())
    expect(signalProcessGroup(pid, 0)).toBe(false)
    expect(new CommandProcesses(pid, readForkCount()).live()).toEqual([])
    expect(isProcessAlive(pid)).toBe(false)
  })

  it.runIf(process.platform === 'linux')('counts a zombie as dead, though kill(pid, 0) still reaches it', async () => {
    // bash starts a short sleep in the background, then becomes `sleep 100`, which never reaps it: once the short
    // sleep ends it stays a zombie. (A child that ended before the exec could be reaped by bash itself.)
    const { child, pids, tracked } = await startCommand('sleep 0.3 & echo $!; exec sleep 100', 1)
    const zombie = pids[0] as number
    await waitFor(() => readFileSync(`/proc/${zombie}/stat`, 'latin1').split(') ')[1]?.startsWith('Z') === true)
    expect(() => process.kill(zombie, 0)).not.toThrow()
    expect(isProcessAlive(zombie)).toBe(false)
    expect(tracked.live()).toEqual([child.pid])
    const exited = once(child, 'exit')
    signalProcessGroup(child.pid as number, 'SIGKILL')
    await exited
    await waitFor(() => tracked.live().length === 0)
  })
})

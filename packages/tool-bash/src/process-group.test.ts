import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ProcessGroupWatch, isProcessAlive, signalProcessGroup } from './process-group.js'
import { waitFor } from './test-support.js'

describe('process groups', () => {
  it('signals a whole group and sees when its live members are gone', async () => {
    const child = spawn('bash', ['-c', 'sleep 100 & echo $!; sleep 100 & echo $!; wait'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    const pid = child.pid as number
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    await waitFor(() => output.split('\n').length >= 3)
    const sleepers = output.trim().split('\n').map(Number)
    const watch = new ProcessGroupWatch(pid)
    expect(watch.hasLiveMembers()).toBe(true)
    for (const sleeper of [pid, ...sleepers]) expect(isProcessAlive(sleeper)).toBe(true)
    const exited = once(child, 'exit')
    expect(signalProcessGroup(pid, 'SIGKILL')).toBe(true)
    await exited
    await waitFor(() => !watch.hasLiveMembers())
    for (const sleeper of [pid, ...sleepers]) expect(isProcessAlive(sleeper)).toBe(false)
  })

  it('reports a group that does not exist', () => {
    // The pid of a finished process no longer names a group.
    const finished = spawnSync('bash', ['-c', 'echo $$'], { encoding: 'utf8' })
    const pid = Number(finished.stdout.trim())
    expect(signalProcessGroup(pid, 0)).toBe(false)
    expect(new ProcessGroupWatch(pid).hasLiveMembers()).toBe(false)
    expect(isProcessAlive(pid)).toBe(false)
  })

  it.runIf(process.platform === 'linux')('counts a zombie as dead, though kill(pid, 0) still reaches it', async () => {
    // bash starts a short sleep in the background, then becomes `sleep 100`, which never reaps it: once the short
    // sleep ends it stays a zombie. (A child that ended before the exec could be reaped by bash itself.)
    const child = spawn('bash', ['-c', 'sleep 0.3 & echo $!; exec sleep 100'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    await waitFor(() => output.endsWith('\n'))
    const zombie = Number(output.trim())
    await waitFor(() => readFileSync(`/proc/${zombie}/stat`, 'latin1').split(') ')[1]?.startsWith('Z') === true)
    expect(() => process.kill(zombie, 0)).not.toThrow()
    expect(isProcessAlive(zombie)).toBe(false)
    const watch = new ProcessGroupWatch(child.pid as number)
    expect(watch.hasLiveMembers()).toBe(true)
    const exited = once(child, 'exit')
    signalProcessGroup(child.pid as number, 'SIGKILL')
    await exited
    await waitFor(() => !watch.hasLiveMembers())
  })
})

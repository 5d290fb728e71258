import { spawn } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { HOST_SIGNALS } from '@dsh/tools-registry'
import { isProcessAlive } from './process-group.js'
import { loadExecutor, pidsIn, useScratch, waitFor } from './test-support.js'

const { scratch, spillRoot } = useScratch('tool-bash-host-exit-')
const fixture = fileURLToPath(new URL('./fixtures/signal-host.mjs', import.meta.url))

/** Every pid a host recorded, SIGKILLed after each test whatever happened. */
const recorded: number[] = []
afterEach(() => {
  for (const pid of recorded.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // Gone, as it should be.
    }
  }
})

let serial = 0

/** Starts a fixture host and resolves once its commands run and it has spilled: the host, its pids and spill dir. */
async function startHost(mode: 'plain' | 'own-sigint') {
  serial += 1
  const pidFile = join(scratch, `host-${serial}.pids`)
  writeFileSync(pidFile, '')
  const host = spawn(process.execPath, [fixture, pidFile, spillRoot, mode], { stdio: ['pipe', 'pipe', 'inherit'] })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    host.once('exit', (code, signal) => resolve({ code, signal }))
  })
  let output = ''
  host.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  await waitFor(() => /^ready .+\n/m.test(output), 45_000)
  const spillDirectory = /^ready (.+)$/m.exec(output)?.[1] as string
  const pids = pidsIn(readFileSync(pidFile, 'utf8'))
  recorded.push(...pids)
  return { host, exited, pids, spillDirectory, output: () => output }
}

describe('the host dies by a signal while commands and background tasks run', () => {
  for (const signal of HOST_SIGNALS) {
    it(`${signal}: the host still dies by ${signal}, and takes every process and spill file with it`, async () => {
      const { host, exited, pids, spillDirectory } = await startHost('plain')
      expect(pids).toHaveLength(8)
      for (const pid of pids) expect(isProcessAlive(pid)).toBe(true)
      expect(existsSync(spillDirectory)).toBe(true)
      host.kill(signal)
      expect(await exited).toEqual({ code: null, signal })
      // SIGKILL went out before the host died; the kernel may take a moment to end them.
      await waitFor(() => pids.every((pid) => !isProcessAlive(pid)))
      expect(existsSync(spillDirectory)).toBe(false)
    })
  }

  it('a host with its own SIGINT handler survives the signal, keeps its commands, and cleans up when it exits', async () => {
    const { host, exited, pids, spillDirectory, output } = await startHost('own-sigint')
    host.kill('SIGINT')
    await waitFor(() => output().includes('survived\n'))
    // The host decided to live on: its commands were left alone.
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(true)
    expect(existsSync(spillDirectory)).toBe(true)
    host.stdin.end()
    expect(await exited).toEqual({ code: 7, signal: null })
    await waitFor(() => pids.every((pid) => !isProcessAlive(pid)))
    expect(existsSync(spillDirectory)).toBe(false)
  })
})

describe('the host hooks', () => {
  const events = ['exit', ...HOST_SIGNALS] as const
  const counts = (): number[] => events.map((event) => process.listenerCount(event))

  it('are installed while an executor is live and removed with the last one (no listener leak)', async () => {
    const before = counts()
    const first = await loadExecutor({ cwd: scratch, tempDir: spillRoot })
    expect(counts()).toEqual(before.map((count) => count + 1))
    const second = await loadExecutor({ cwd: scratch, tempDir: spillRoot })
    expect(counts()).toEqual(before.map((count) => count + 1))
    await first.fiber.dispose()
    expect(counts()).toEqual(before.map((count) => count + 1))
    await second.fiber.dispose()
    expect(counts()).toEqual(before)
  })
})

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmdirSync, rmSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BashResult } from '@dsh/tool-bash'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { locateCgroups } from './cgroup-layout.js'
import { CGROUP_PREFIX } from './command-cgroups.js'
import type { SandboxedBashExecutor } from './sandboxed-bash-executor.js'
import { describeInSandbox, killAll, loadLocal, loadSandboxed, processesWith, type LoadedExecutor } from './test-support.js'

// Resource limits as root (CI's case): RLIMIT_NPROC does not bind uid 0, so only the per-command cgroups bound a fork
// bomb. Root may create cgroups on this kind of machine (v1 memory and pids); elsewhere these tests are not declared.
const isRoot = process.getuid?.() === 0

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-sbx-limits-')))
const workdir = join(scratch, 'work')
const tempDir = join(scratch, 'priv')
mkdirSync(workdir)
mkdirSync(tempDir)

const loaded: LoadedExecutor[] = []
async function sandbox(config: Parameters<typeof loadSandboxed>[0] = {}): Promise<LoadedExecutor & { executor: SandboxedBashExecutor }> {
  const executor = await loadSandboxed({ cwd: workdir, tempDir, ...config })
  loaded.push(executor)
  return { ...executor, executor: executor.bash as SandboxedBashExecutor }
}
afterEach(async () => {
  await Promise.all(loaded.splice(0).map(({ fiber }) => fiber.dispose()))
})
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const nonce = (): string => `4${randomBytes(3).readUIntBE(0, 3) % 100_000}`
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
const text = (result: BashResult): string => result.stdout.head + result.stdout.tail + result.stderr.head + result.stderr.tail

/** The directories of this process's own cgroups (memory, pids), where the executor makes its own. */
function ownCgroupDirectories(): string[] {
  const located = locateCgroups({
    mountinfo: readFileSync('/proc/self/mountinfo', 'utf8'),
    cgroup: readFileSync('/proc/self/cgroup', 'utf8'),
    controllersOf: (directory) => {
      try {
        return readFileSync(join(directory, 'cgroup.controllers'), 'utf8').trim().split(/\s+/)
      } catch {
        return []
      }
    },
  })
  return [...new Set([located.memory?.directory, located.pids?.directory].filter((path) => path !== undefined))]
}

/** Cgroup directories an executor of this process made (executor level and command level), wherever they are. */
function leftoverCgroups(): string[] {
  const found: string[] = []
  for (const parent of ownCgroupDirectories()) {
    for (const entry of readdirSync(parent)) {
      if (!entry.startsWith(`${CGROUP_PREFIX}${process.pid}-`)) continue
      found.push(join(parent, entry))
      for (const child of readdirSync(join(parent, entry), { withFileTypes: true })) {
        if (child.isDirectory()) found.push(join(parent, entry, child.name))
      }
    }
  }
  return found
}

const commandCgroups = (): string[] => leftoverCgroups().filter((path) => /\/command-\d+$/.test(path))

/**
 * A cgroup of the test's own with a pids limit, for the local executor's control run: its fork loop must be able to
 * escape the sandbox's limit, but never be unbounded on this machine. Returns a shell that joins it, and removal.
 */
function boundedControlShell(maxProcesses: number): { shell: string; remove: () => void } {
  const pids = locateCgroups({
    mountinfo: readFileSync('/proc/self/mountinfo', 'utf8'),
    cgroup: readFileSync('/proc/self/cgroup', 'utf8'),
    controllersOf: () => [],
  }).pids
  if (pids === undefined) throw new Error('no pids cgroup hierarchy: the control cannot be bounded')
  const directory = join(pids.directory, `dsh-sbx-test-${process.pid}-${nonce()}`)
  mkdirSync(directory)
  writeFileSync(join(directory, 'pids.max'), String(maxProcesses))
  const shell = join(scratch, `bounded-bash-${nonce()}`)
  writeFileSync(shell, `#!/usr/bin/bash\necho $$ > ${directory}/cgroup.procs || exit 125\nexec /usr/bin/bash "$@"\n`, { mode: 0o755 })
  return {
    shell,
    remove: () => {
      for (let attempt = 0; attempt < 100; attempt += 1) {
        killAll(readFileSync(join(directory, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number))
        try {
          rmdirSync(directory)
          return
        } catch {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20)
        }
      }
      throw new Error(`could not remove the control's cgroup ${directory}`)
    },
  }
}

/** Starts a loop of `count` background sleeps and returns the most that were alive at once (within 10 s: a loaded machine forks slowly). */
async function mostAlive(executor: LoadedExecutor, count: number): Promise<number> {
  const token = nonce()
  const task = await executor.bash.start({ command: `for i in $(seq 1 ${count}); do /usr/bin/sleep ${token} & done 2>/dev/null; wait`, timeoutMs: 60_000 })
  let most = 0
  const until = Date.now() + 10_000
  while (Date.now() < until) {
    most = Math.max(most, processesWith(token).length)
    if (most >= count) break
    await pause(100)
  }
  await task.kill()
  killAll(processesWith(token))
  return most
}

describeInSandbox(() => {
  if (!isRoot) return
  describe('resource limits through cgroups (as root)', () => {
    it('chooses per-command cgroups for both limits and says so in resourceLimits and the policy text', async () => {
      const { executor } = await sandbox({ memoryBytes: 268_435_456, maxProcesses: 40 })
      const limits = executor.resourceLimits
      expect(limits?.memory).toEqual({ bytes: 268_435_456, mechanism: expect.stringMatching(/^cgroup-v[12]$/) })
      expect(limits?.processes).toEqual({ max: 40, mechanism: expect.stringMatching(/^cgroup-v[12]$/) })
      expect(executor.limits.policy).toContain('each command may use at most 256 MiB of memory in total')
      expect(executor.limits.policy).toContain('each command may run at most 40 processes and threads at once')
    })

    it('places the command in its own cgroup before it can fork: a child of the command is in it', async () => {
      const { bash } = await sandbox({ maxProcesses: 40 })
      const token = nonce()
      const task = await bash.start({ command: `/usr/bin/sleep ${token} & wait`, timeoutMs: 60_000 })
      try {
        let pids: number[] = []
        for (let attempt = 0; attempt < 100 && pids.length === 0; attempt += 1) {
          pids = processesWith(token)
          if (pids.length === 0) await pause(50)
        }
        expect(pids).toHaveLength(1)
        const membership = readFileSync(`/proc/${pids[0]}/cgroup`, 'utf8')
        expect(membership).toMatch(new RegExp(`pids:.*/${CGROUP_PREFIX}${process.pid}-[0-9a-f]+/command-\\d+\\n`))
        const shellMembership = readFileSync(`/proc/${task.pid}/cgroup`, 'utf8')
        expect(shellMembership).toMatch(new RegExp(`pids:.*/${CGROUP_PREFIX}${process.pid}-[0-9a-f]+/command-\\d+\\n`))
      } finally {
        await task.kill()
      }
    })

    it('a fork loop as root stays under maxProcesses in the sandbox; the local control (in a bounded cgroup of the test) is not held to it', async () => {
      const limited = await sandbox({ maxProcesses: 40 })
      const inSandbox = await mostAlive(limited, 120)
      expect(inSandbox).toBeGreaterThan(0) // the count sees the sandbox's processes
      expect(inSandbox).toBeLessThanOrEqual(40)
      const control = boundedControlShell(400)
      try {
        const local = await loadLocal({ cwd: workdir, tempDir, shell: control.shell })
        loaded.push(local)
        // Past the sandbox's limit is what the control must show (all 120 may not be up in time on a loaded machine).
        expect(await mostAlive(local, 120)).toBeGreaterThan(40)
      } finally {
        await Promise.all(loaded.splice(0).map(({ fiber }) => fiber.dispose()))
        control.remove()
      }
    })

    it('a real fork bomb as root is held at maxProcesses, ended by the timeout, and leaves nothing behind', async () => {
      const { bash, executor } = await sandbox({ maxProcesses: 40 })
      // Never start an unbounded bomb: only with the process limit in a cgroup (the launch fails closed otherwise).
      expect(executor.resourceLimits?.processes?.mechanism).toMatch(/^cgroup-v[12]$/)
      const token = nonce()
      const running = bash.run({ command: `bomb() { /usr/bin/sleep ${token} & bomb & }; bomb; wait`, timeoutMs: 6_000 })
      let most = 0
      let settled = false
      void running.finally(() => (settled = true))
      while (!settled) {
        most = Math.max(most, processesWith(token).length)
        await pause(100)
      }
      const result = await running
      expect(result.stopReason).toBe('timeout')
      expect(most).toBeGreaterThan(0)
      expect(most).toBeLessThanOrEqual(40)
      expect(processesWith(token)).toEqual([])
      expect(result.executorMeta?.['limits']).toMatchObject({ processes: { max: 40, refusedForks: expect.any(Number) } })
      expect(result.note).toMatch(/^Note: the sandbox's process limit \(40 processes and threads per command\) refused [1-9]\d* fork/)
      expect(commandCgroups()).toEqual([])
    })

    it('a memory balloon as root is killed at memoryBytes (the whole command), and the result and note say so', async () => {
      const balloon = "/usr/bin/perl -e '$x = q(x) x (400 * 1024 * 1024); print qq(ALLOCATED\\n)'"
      const { bash } = await sandbox({ memoryBytes: 268_435_456 })
      const result = await bash.run({ command: balloon })
      expect(text(result)).not.toContain('ALLOCATED')
      expect(result.exitCode).not.toBe(0)
      expect(result.executorMeta?.['limits']).toEqual({ memory: { bytes: 268_435_456, mechanism: expect.stringMatching(/^cgroup-v[12]$/), oomKilled: true } })
      expect(result.note).toMatch(/^Note: the sandbox's memory limit \(256 MiB for the whole command\) was reached/)
      // Under the limit, the same command's meta says it was not killed, and there is no note.
      const small = await bash.run({ command: "/usr/bin/perl -e '$x = q(x) x (8 * 1024 * 1024); print qq(ALLOCATED\\n)'" })
      expect(text(small)).toContain('ALLOCATED')
      expect(small.note).toBeUndefined()
      expect(small.executorMeta?.['limits']).toMatchObject({ memory: { oomKilled: false } })
      const local = await loadLocal({ cwd: workdir, tempDir })
      loaded.push(local)
      expect(text(await local.bash.run({ command: balloon }))).toContain('ALLOCATED')
    })

    it('leaves no cgroup directory behind: none per command after it ends (also killed or timed out), none after disposal', async () => {
      const before = leftoverCgroups()
      const { bash, fiber } = await sandbox({ memoryBytes: 268_435_456, maxProcesses: 64 })
      expect(leftoverCgroups().length).toBeGreaterThan(before.length) // the executor's own directories exist
      await bash.run({ command: 'true' })
      await bash.run({ command: 'sleep 30', timeoutMs: 500 })
      const task = await bash.start({ command: 'sleep 30 & sleep 30 & wait', timeoutMs: 60_000 })
      expect(commandCgroups()).toHaveLength(ownCgroupDirectories().length)
      await task.kill()
      expect(commandCgroups()).toEqual([])
      const running = await bash.start({ command: 'sleep 30', timeoutMs: 60_000 })
      await fiber.dispose()
      loaded.splice(0)
      await running.done
      expect(leftoverCgroups()).toEqual([])
    })

    it("with resourceLimits: 'rlimit' makes no cgroup and falls back to prlimit (the balloon still fails)", async () => {
      const { bash, executor } = await sandbox({ memoryBytes: 268_435_456, resourceLimits: 'rlimit' })
      expect(executor.resourceLimits?.memory?.mechanism).toBe('rlimit')
      expect(executor.limits.policy).toContain('each process may reserve at most 256 MiB of address space')
      expect(leftoverCgroups()).toEqual([])
      const result = await bash.run({ command: "/usr/bin/perl -e '$x = q(x) x (400 * 1024 * 1024); print qq(ALLOCATED\\n)'" })
      expect(text(result)).not.toContain('ALLOCATED')
      expect(result.executorMeta?.['limits']).toEqual({ memory: { bytes: 268_435_456, mechanism: 'rlimit' } })
    })
  })
})

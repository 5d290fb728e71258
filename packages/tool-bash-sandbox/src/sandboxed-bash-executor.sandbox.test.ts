import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BashConfigError, BashTools, type BashResult } from '@dsh/tool-bash'
import { createToolContext } from '@dsh/tools-testing'
import { Context } from 'cordis'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { SandboxSetupError } from './sandbox-setup-error.js'
import { SandboxUnavailableError } from './sandbox-unavailable-error.js'
import { SandboxedBashExecutor } from './sandboxed-bash-executor.js'
import { loadLocal, loadSandboxed, outputOf, processesWith, describeInSandbox, runAs, type LoadedExecutor } from './test-support.js'

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-sbx-executor-')))
const workdir = join(scratch, 'work')
const tempDir = join(scratch, 'priv')
const bin = join(scratch, 'bin')
mkdirSync(workdir)
mkdirSync(tempDir)
mkdirSync(bin)

const loaded: LoadedExecutor[] = []
async function sandbox(config: Parameters<typeof loadSandboxed>[0] = {}): Promise<LoadedExecutor> {
  const executor = await loadSandboxed({ cwd: workdir, tempDir, ...config })
  loaded.push(executor)
  return executor
}

/** A fake bwrap: a shell script (its body decides how it fails). */
function stubBwrap(name: string, body: string): string {
  const path = join(bin, name)
  writeFileSync(path, `#!/bin/bash\n${body}\n`, { mode: 0o755 })
  return path
}

async function loadError(config: Parameters<typeof loadSandboxed>[0]): Promise<{ error: unknown; ctx: Context }> {
  const ctx = new Context()
  const error = await ctx.plugin(SandboxedBashExecutor, { cwd: workdir, tempDir, ...config }).then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  return { error, ctx }
}

const text = (result: BashResult): string => result.stdout.head + result.stdout.tail

afterEach(async () => {
  await Promise.all(loaded.splice(0).map(({ fiber }) => fiber.dispose()))
})
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describeInSandbox(() => {
  describe('fail closed: the preflight', () => {
    it('fails the load with SandboxUnavailableError naming the cause and the fix when bwrap cannot make namespaces', async () => {
      const marker = join(scratch, 'stub-ran-a-command')
      const bwrap = stubBwrap('bwrap-no-userns', `echo 'bwrap: Creating new namespace failed: Operation not permitted' >&2; exit 1`)
      const { error, ctx } = await loadError({ bwrap })
      expect(SandboxUnavailableError.isInstance(error)).toBe(true)
      const unavailable = error as SandboxUnavailableError
      expect(unavailable.code).toBe('SANDBOX_UNAVAILABLE')
      expect(unavailable.reason).toBe('namespaces-unavailable')
      expect(unavailable.message).toContain('Creating new namespace failed')
      expect(unavailable.fix).toMatch(/user namespaces/)
      expect(ctx.get('bash')).toBeUndefined() // never a silent fallback
      expect(existsSync(marker)).toBe(false)
      expect(readdirSync(tempDir)).toEqual([]) // the private directory went with the failed load
    })

    it('names the install command when bwrap is missing', async () => {
      const { error } = await loadError({ bwrap: join(scratch, 'no-such-bwrap') })
      expect((error as SandboxUnavailableError).reason).toBe('bwrap-missing')
      expect((error as SandboxUnavailableError).fix).toContain('apt-get install -y bubblewrap')
    })

    it('refuses a bwrap that runs the command without enforcing the profile', async () => {
      // Runs what follows `--` directly and even reports a clean exit: a sandbox in name only.
      const bwrap = stubBwrap(
        'bwrap-fake',
        'while [ "$1" != "--" ]; do shift; done; shift; "$@"; rc=$?; printf \'{ "exit-code": %d }\\n\' $rc >&4; exit $rc',
      )
      const { error, ctx } = await loadError({ bwrap })
      expect((error as SandboxUnavailableError).reason).toBe('profile-not-enforced')
      expect(ctx.get('bash')).toBeUndefined()
    })

    it("runs unsandboxed only when the deployment says so, and says so in the policy", async () => {
      const { bash, fiber } = await sandbox({ bwrap: join(scratch, 'no-such-bwrap'), onUnavailable: 'run-unsandboxed' })
      const service = bash as SandboxedBashExecutor
      expect(service.sandboxed).toBe(false)
      expect(service.unavailable?.reason).toBe('bwrap-missing')
      expect(bash.limits.policy).toMatch(/WITHOUT a sandbox/)
      expect(text(await bash.run({ command: 'echo ran' }))).toBe('ran\n')
      await fiber.dispose()
    })

    it('rejects configurations that would lower the sandbox or promise what it cannot do', () => {
      expect(() => new SandboxedBashExecutor(new Context(), { cwd: workdir, network: 'on' as never })).toThrow(BashConfigError)
      expect(() => new SandboxedBashExecutor(new Context(), { cwd: workdir, network: { allow: [] } })).toThrow(/non-empty/)
      expect(() => new SandboxedBashExecutor(new Context(), { cwd: workdir, network: { allow: ['exa mple.com'] } })).toThrow(/not a host name/)
      expect(() => new SandboxedBashExecutor(new Context(), { cwd: workdir, writableRoots: ['/'] })).toThrow(/cannot be writable/)
      expect(() => new SandboxedBashExecutor(new Context(), { cwd: workdir, hiddenPaths: [scratch] })).toThrow(/would be hidden/)
      expect(() => new SandboxedBashExecutor(new Context(), { cwd: workdir, onUnavailable: 'maybe' as never })).toThrow(BashConfigError)
    })
  })

  describe('a setup failure of one command', () => {
    it('is a SandboxSetupError (SANDBOX_SETUP_FAILED), never an exit code', async () => {
      const flag = join(scratch, 'break-now')
      const bwrap = stubBwrap(
        'bwrap-breaks-later',
        `if [ -e ${flag} ]; then echo 'bwrap: Can'"'"'t find source path /vanished: No such file or directory' >&2; exit 1; fi; exec /usr/bin/bwrap "$@"`,
      )
      const { bash } = await sandbox({ bwrap })
      writeFileSync(flag, '')
      const error: unknown = await bash.run({ command: 'echo never' }).catch((thrown: unknown) => thrown)
      rmSync(flag)
      expect(SandboxSetupError.isInstance(error)).toBe(true)
      expect((error as SandboxSetupError).code).toBe('SANDBOX_SETUP_FAILED')
      expect((error as SandboxSetupError).detail).toContain("Can't find source path /vanished")
      expect((await bash.run({ command: 'exit 1' })).exitCode).toBe(1) // the command's own failure stays an exit code
    })
  })

  describe('what still works in the sandbox (positive controls)', () => {
    it('the workdir and /tmp are usable, /tmp and HOME are fresh for each command, the policy is in limits', async () => {
      const { bash } = await sandbox()
      const first = await bash.run({ command: 'echo kept > kept.txt && echo scratch > /tmp/t && cat /tmp/t && touch "$HOME/h" && echo ok' })
      expect(text(first)).toBe('scratch\nok\n')
      expect(text(await bash.run({ command: 'cat kept.txt; ls /tmp/t 2>&1 | head -c 0; [ -e /tmp/t ] || echo fresh' }))).toBe('kept\nfresh\n')
      expect(bash.limits.policy).toContain(`write only under ${workdir} and /tmp`)
    })

    it('git works in an existing repository (its hooks stay read-only)', async () => {
      runAs(0, 'git init -q repo && cd repo && echo a > a.txt', workdir)
      const { bash } = await sandbox()
      const result = await bash.run({
        cwd: join(workdir, 'repo'),
        command: 'git add a.txt && git -c user.name=t -c user.email=t@example.invalid commit -qm one && git log --oneline | wc -l && touch .git/hooks/x',
      })
      expect(text(result)).toBe('1\n')
      expect(outputOf(result)).toContain('Read-only file system')
      rmSync(join(workdir, 'repo'), { recursive: true, force: true })
    })

    it('node, python, pipes, background jobs with wait, UTF-8, exit codes and signals', async () => {
      const { bash } = await sandbox()
      expect(text(await bash.run({ command: "/usr/bin/node -e 'console.log(1 + 1)'" }))).toBe('2\n')
      expect(text(await bash.run({ command: "/usr/bin/python3 -c 'print(6 * 7)'" }))).toBe('42\n')
      expect(text(await bash.run({ command: 'printf "b\\na\\n" | sort | tr a-z A-Z' }))).toBe('A\nB\n')
      expect(text(await bash.run({ command: '(sleep 0.2; echo bg) & wait; echo done' }))).toBe('bg\ndone\n')
      expect(text(await bash.run({ command: 'echo "héllo ✓ 日本"' }))).toBe('héllo ✓ 日本\n')
      expect((await bash.run({ command: 'exit 7' })).exitCode).toBe(7)
      expect((await bash.run({ command: 'kill -SEGV $$' })).exitCode).toBe(139)
    })

    it('output windows and spills, timeouts and aborts are the local executor’s', async () => {
      const { bash } = await sandbox({ outputWindowBytes: 1_024 })
      const big = await bash.run({ command: 'head -c 200000 /dev/zero | tr "\\0" x' })
      expect(big.stdout.totalBytes).toBe(200_000)
      expect(big.stdout.omittedBytes).toBe(200_000 - 1_024)
      expect(big.stdout.spill?.complete).toBe(true)
      const slow = await bash.run({ command: 'sleep 30', timeoutMs: 500 })
      expect(slow.timedOut).toBe(true)
      const controller = new AbortController()
      setTimeout(() => controller.abort(), 300)
      const aborted = await bash.run({ command: 'sleep 30', signal: controller.signal })
      expect(aborted.aborted).toBe(true)
    })

    it('background tasks: start, read, kill, and nothing survives', async () => {
      const { bash } = await sandbox()
      const token = String(31_000 + (process.pid % 997))
      const task = await bash.start({ command: `echo up; /usr/bin/sleep ${token}` })
      const deadline = Date.now() + 10_000
      while (processesWith(token).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
      expect(task.read().status).toBe('running')
      const outcome = await task.kill()
      expect(outcome.status).toBe('completed')
      expect(processesWith(token)).toEqual([])
    })
  })

  describe('what the model is told', () => {
    it('adds the policy note to a failure that looks like a policy block, and none to a plain failure', async () => {
      const { bash } = await sandbox()
      const blocked = await bash.run({ command: 'touch /etc/dsh-blocked' })
      expect(blocked.note).toMatch(/looks like a sandbox policy block/)
      expect((await bash.run({ command: 'echo no >&2; exit 3' })).note).toBeUndefined()
      expect((await bash.run({ command: 'true' })).note).toBeUndefined()
    })

    it('the bash tool shows the policy in its description, the note in its text, and setup failures as SANDBOX_SETUP_FAILED', async () => {
      const flag = join(scratch, 'tool-break-now')
      const bwrap = stubBwrap(
        'bwrap-tool-breaks',
        `if [ -e ${flag} ]; then echo 'bwrap: setup broke' >&2; exit 1; fi; exec /usr/bin/bwrap "$@"`,
      )
      const t = await createToolContext({
        plugins: [[SandboxedBashExecutor, { cwd: workdir, tempDir, bwrap }], [BashTools, {}]],
      })
      try {
        const description = t.tools.schemas().find((tool) => tool.name === 'bash')?.description ?? ''
        expect(description).toContain('Commands run in a sandbox')
        expect(description).toContain('the network is off')
        const blocked = await t.tools.execute({ callId: 'c1', name: 'bash', arguments: { command: 'echo x > /usr/x' } })
        const blockedText = blocked.content[0]?.type === 'text' ? blocked.content[0].text : ''
        expect(blockedText).toMatch(/\[exit code: 1\]\nNote: the failure above looks like a sandbox policy block/)
        writeFileSync(flag, '')
        const failed = await t.tools.execute({ callId: 'c2', name: 'bash', arguments: { command: 'echo x' } })
        expect(failed.isError).toBe(true)
        expect(failed.error).toEqual({ name: 'SandboxSetupError', code: 'SANDBOX_SETUP_FAILED' })
      } finally {
        rmSync(flag, { force: true })
        await t.dispose()
      }
    })
  })

  describe('limits and cleanup', () => {
    it('a memory balloon fails under memoryBytes (and succeeds under the local executor)', async () => {
      const balloon = "/usr/bin/perl -e '$x = q(x) x (400 * 1024 * 1024); print qq(ALLOCATED\\n)'"
      const { bash } = await sandbox({ memoryBytes: 268_435_456 })
      expect(text(await bash.run({ command: balloon }))).not.toContain('ALLOCATED')
      const local = await loadLocal({ cwd: workdir, tempDir })
      loaded.push(local)
      expect(text(await local.bash.run({ command: balloon }))).toContain('ALLOCATED')
    })

    it('disposal removes the private directory, every mount point stub and its host-exit hooks', async () => {
      const exitListeners = process.listenerCount('exit')
      const { bash, fiber } = await sandbox()
      expect(process.listenerCount('exit')).toBeGreaterThan(exitListeners)
      await bash.run({ command: 'true' })
      expect(readdirSync(tempDir).some((entry) => entry.startsWith('dsh-bash-sandbox-'))).toBe(true)
      await fiber.dispose()
      expect(readdirSync(tempDir).filter((entry) => entry.startsWith('dsh-bash-sandbox-'))).toEqual([])
      expect(process.listenerCount('exit')).toBe(exitListeners)
      expect(existsSync(join(workdir, '.git'))).toBe(false)
    })
  })
})

// An escape matrix of our own: each attempt runs on the local executor first (the control: it must get through
// there, or the attempt proves nothing) and then in the session container, where it must fail. On each engine.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LocalBashExecutor } from '@dsh/tool-bash'
import { Context, type Fiber } from 'cordis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ContainerBashExecutor } from './container-bash-executor.js'
import { describeOnEngines } from './test-support.js'

const base = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-ct-escape-')))
afterAll(() => rmSync(base, { recursive: true, force: true }))

describeOnEngines((engine) => {
  describe('escape matrix', () => {
    const workdir = join(base, engine.kind, 'work')
    const outsideFile = join(base, engine.kind, 'outside-secret')
    let local: Context
    let boxed: Context
    const fibers: Fiber[] = []
    let server: Server
    let port = 0
    let connections = 0
    let hostSleeper: ChildProcess
    const hostMark = `8${process.pid % 997}4321`

    beforeAll(async () => {
      const { mkdirSync } = await import('node:fs')
      mkdirSync(workdir, { recursive: true })
      writeFileSync(outsideFile, 'host-only-secret\n')
      server = createServer((socket) => {
        connections += 1
        socket.destroy()
      })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
      port = (server.address() as { port: number }).port
      hostSleeper = spawn('sleep', [hostMark], { stdio: 'ignore' })
      local = new Context()
      fibers.push(await local.plugin(LocalBashExecutor, { cwd: workdir }))
      boxed = new Context()
      fibers.push(await boxed.plugin(ContainerBashExecutor, { ...engine.options(), cwd: workdir }))
    })
    afterAll(async () => {
      // Awaited: the container executor removes its container and its private directory before this ends.
      for (const fiber of fibers.splice(0)) await fiber.dispose()
      hostSleeper?.kill('SIGKILL')
      server?.close()
    })

    // Each attempt prints ESCAPED when it got through (PORT: the host listener's port, known once it listens).
    const attempts: readonly (readonly [string, string])[] = [
      ['write /etc', 'touch /etc/dsh-escape-probe && rm -f /etc/dsh-escape-probe && echo ESCAPED'],
      ['mount a tmpfs', 'd=$(mktemp -d) && mount -t tmpfs none "$d" 2>/dev/null && umount "$d" && echo ESCAPED; rmdir "$d" 2>/dev/null; true'],
      ['create a user namespace', 'unshare -U true 2>/dev/null && echo ESCAPED; true'],
      ['see a host process', `ps -eo args= | grep -q "^sleep ${hostMark}$" && echo ESCAPED; true`],
      ['connect to the host loopback', '(exec 3<>/dev/tcp/127.0.0.1/PORT) 2>/dev/null && echo ESCAPED; true'],
      ['read a host file outside the workspace', `cat ${outsideFile} 2>/dev/null | grep -q host-only && echo ESCAPED; true`],
      ['write a host sysctl', 'echo 1 > /proc/sys/kernel/dsh_nonexistent 2>/dev/null; (echo 64 > /proc/sys/kernel/threads-max) 2>/dev/null && echo ESCAPED; true'],
      ['make a device node', 'd=$(mktemp -d) && mknod "$d/null2" c 1 3 2>/dev/null && echo ESCAPED; rm -rf "$d"; true'],
    ]

    it.each(attempts)('%s: gets through locally, not in the container', async (name, template) => {
      const command = template.replace('PORT', String(port))
      // The sysctl control would change the host: check that the write would be allowed instead.
      const control = name === 'write a host sysctl' ? 'test -w /proc/sys/kernel/threads-max && echo ESCAPED' : command
      const before = connections
      const here = await local.bash.run({ command: control })
      expect(here.stdout.head).toContain('ESCAPED')
      const afterControl = connections
      const inside = await boxed.bash.run({ command })
      expect(inside.stdout.head).not.toContain('ESCAPED')
      if (name === 'connect to the host loopback') {
        await new Promise((resolve) => setTimeout(resolve, 100))
        expect(afterControl).toBeGreaterThan(before)
        expect(connections).toBe(afterControl)
      }
    })
  })
})

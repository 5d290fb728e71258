// An escape matrix of our own: each attempt runs on the local executor first (the control: it must get through
// there, or the attempt proves nothing) and then in the session container, where it must fail. On each engine.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { LocalBashExecutor } from '@dsh/tool-bash'
import { Context, type Fiber } from 'cordis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ContainerBashExecutor } from './container-bash-executor.js'
import { describeOnEngines, engineSocket } from './test-support.js'

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
    /** A variable only the host sleeper's environment holds. */
    const secretName = `DSH_ESCAPE_SECRET_${process.pid}`
    /** The engines' API sockets on this host (Docker's private dockerd listens on a unix socket besides TCP). */
    const sockets = [engineSocket, process.env['DSH_CONTAINER_DOCKER_TLS_DIR'] ? join(dirname(process.env['DSH_CONTAINER_DOCKER_TLS_DIR']), 'docker.sock') : '', '/run/podman/podman.sock', '/var/run/docker.sock']
      .filter((path) => path !== '')
      .join(' ')

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
      hostSleeper = spawn('sleep', [hostMark], { stdio: 'ignore', env: { ...process.env, [secretName]: 'host-only' } })
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
      ['reach a container engine\'s API socket', `for s in ${sockets}; do [ -S "$s" ] && echo ESCAPED; done; true`],
      ['follow a symbolic link out of the workspace', `ln -sfn ${outsideFile} escape-link && grep -q host-only escape-link 2>/dev/null && echo ESCAPED; rm -f escape-link; true`],
      ['read a host process\'s environment', `grep -qa ${secretName} /proc/[0-9]*/environ 2>/dev/null && echo ESCAPED; true`],
      // The container's view of the workspace's parent may be its own /tmp (a tmpfs): what counts is the host's.
      ['write next to the workspace (on the host)', 'touch ../dsh-escape-probe 2>/dev/null; true'],
      ['change root', 'chroot / true 2>/dev/null && echo ESCAPED; true'],
      ['change a file\'s owner', 'f=$(mktemp -p .) && chown 65534 "$f" 2>/dev/null && echo ESCAPED; rm -f "$f"; true'],
      ['make a cgroup (to escape the limits)', 'for d in /sys/fs/cgroup /sys/fs/cgroup/pids /sys/fs/cgroup/memory; do mkdir "$d/dsh-escape-probe" 2>/dev/null && rmdir "$d/dsh-escape-probe" && echo ESCAPED; done; true'],
    ]

    it.each(attempts)('%s: gets through locally, not in the container', async (name, template) => {
      // Checked on the host (the file next to the workspace exists), not by the command.
      const next = join(workdir, '..', 'dsh-escape-probe')
      const onHost = name === 'write next to the workspace (on the host)'
      const command = template.replace('PORT', String(port))
      // The sysctl control would change the host: check that the write would be allowed instead.
      const control = name === 'write a host sysctl' ? 'test -w /proc/sys/kernel/threads-max && echo ESCAPED' : command
      if (name === 'read a host process\'s environment') expect(hostSleeper.exitCode).toBeNull()
      const before = connections
      const here = await local.bash.run({ command: control })
      if (onHost) expect(existsSync(next)).toBe(true)
      else expect(here.stdout.head).toContain('ESCAPED')
      const afterControl = connections
      rmSync(next, { force: true })
      const inside = await boxed.bash.run({ command })
      expect(inside.stdout.head).not.toContain('ESCAPED')
      expect(existsSync(next)).toBe(false)
      if (name === 'connect to the host loopback') {
        await new Promise((resolve) => setTimeout(resolve, 100))
        expect(afterControl).toBeGreaterThan(before)
        expect(connections).toBe(afterControl)
      }
    })
  })
})

// The network allow list end to end, as root and as nobody: a listed 127.0.0.1 server is reached through the proxy,
// others are refused and recorded, a direct connection has no route, and the bridge (a listening socket handed to the
// host over the launch channel) leaves no process and no socket behind.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BRIDGE_MESSAGE } from './network-bridge.js'
import { SandboxUnavailableError } from './sandbox-unavailable-error.js'
import { NOBODY, describeInSandbox, loadSandboxed, openMatrixHost, outputOf, type LoadedExecutor, type MatrixHost } from './test-support.js'

function serve(body: string): Promise<{ server: Server; port: number }> {
  const server = createServer((_request, response) => response.end(body))
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port })))
}

/** Socket fds this process holds (the bridge's listening sockets and accepted connections would show here). */
function ownSockets(): number {
  let count = 0
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`).startsWith('socket:')) count += 1
    } catch {
      // closed meanwhile
    }
  }
  return count
}

/** Live processes whose command line carries the bridge helper. */
function bridgeHelpers(): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes(BRIDGE_MESSAGE)) found.push(Number(entry))
    } catch {
      // gone
    }
  }
  return found
}

describeInSandbox(() => {
  for (const uid of [0, NOBODY]) {
    describe(`the network allow list, commands as ${uid === 0 ? 'root' : 'nobody (uid 65534)'}`, () => {
      let host: MatrixHost
      let listed: { server: Server; port: number }
      let other: { server: Server; port: number }
      let sandboxed: LoadedExecutor

      beforeAll(async () => {
        host = await openMatrixHost(uid)
        listed = await serve('listed-server')
        other = await serve('other-server')
        sandboxed = await loadSandboxed({
          cwd: host.workdir,
          tempDir: host.base,
          hideDefaultSecrets: uid === 0,
          bwrap: host.asUid('/usr/bin/bwrap'),
          network: { allow: [`127.0.0.1:${listed.port}`] },
        })
      })

      afterAll(async () => {
        await sandboxed?.fiber.dispose()
        for (const { server } of [listed, other]) await new Promise((resolve) => server?.close(resolve))
        await host?.close()
      })

      it('lets a listed 127.0.0.1 server through the proxy, refuses another port and records it, and has no direct route', async () => {
        const reached = await sandboxed.bash.run({ command: `curl -sS --max-time 20 http://127.0.0.1:${listed.port}/` })
        expect(outputOf(reached)).toBe('listed-server')
        expect(reached.exitCode).toBe(0)

        const refused = await sandboxed.bash.run({ command: `curl -sS --max-time 20 -o /dev/null -w '%{http_code}' http://127.0.0.1:${other.port}/` })
        expect(refused.stdout.head).toBe('403')
        expect(refused.executorMeta).toMatchObject({ network: { denials: [{ host: '127.0.0.1', port: other.port, reason: 'not-allowed' }] } })

        const direct = await sandboxed.bash.run({ command: `curl -sS --max-time 20 --noproxy '*' http://127.0.0.1:${listed.port}/` })
        expect(direct.exitCode).not.toBe(0)
        expect(outputOf(direct)).toMatch(/Failed to connect|Couldn't connect/)
      })

      it('the bridge leaves nothing behind: no helper process, no socket of the host (checked after several commands, some in parallel)', async () => {
        const settle = async (): Promise<void> => {
          // The test's own servers keep their side of finished connections open a moment (keep-alive): not the bridge's.
          for (const { server } of [listed, other]) server.closeAllConnections()
          await new Promise((resolve) => setTimeout(resolve, 200))
        }
        await settle()
        const before = ownSockets()
        await Promise.all([1, 2, 3].map(() => sandboxed.bash.run({ command: `curl -sS --max-time 20 http://127.0.0.1:${listed.port}/ >/dev/null` })))
        const task = await sandboxed.bash.start({ command: `curl -sS --max-time 20 http://127.0.0.1:${listed.port}/; exec sleep 600` })
        await task.kill()
        expect(bridgeHelpers()).toEqual([])
        await settle()
        expect(ownSockets()).toBe(before)
      })

      it('the command cannot reach the launch channel, and a unix socket of its own is still refused', async () => {
        const result = await sandboxed.bash.run({
          // The channel is the fd after the seccomp program (3) and the status file (4).
          command: `echo "[\${NODE_CHANNEL_FD:-unset}]"; [ -e /proc/$$/fd/5 ] && echo channel-open || echo channel-closed; /usr/bin/python3 -c 'import socket; socket.socket(socket.AF_UNIX)' 2>&1 | tail -1`,
        })
        const [channel, fds, socketError] = outputOf(result).split('\n')
        expect(channel).toBe('[unset]')
        expect(fds).toBe('channel-closed')
        expect(socketError).toContain('Operation not permitted')
      })

      it('fails the load with SandboxUnavailableError (network-bridge-failed) when the bridge helper cannot run in the sandbox', async () => {
        const error: unknown = await loadSandboxed({
          cwd: host.workdir,
          tempDir: host.base,
          hideDefaultSecrets: false,
          hiddenPaths: [process.execPath],
          bwrap: host.asUid('/usr/bin/bwrap'),
          network: { allow: [`127.0.0.1:${listed.port}`] },
        }).then(
          async (loaded) => {
            await loaded.fiber.dispose()
            return undefined
          },
          (thrown: unknown) => thrown,
        )
        expect(SandboxUnavailableError.isInstance(error)).toBe(true)
        expect((error as SandboxUnavailableError).reason).toBe('network-bridge-failed')
        expect((error as Error).message).toMatch(/Fix: .*Node binary/)
      })
    })
  }
})


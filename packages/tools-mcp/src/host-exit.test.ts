// Processes outlived the host: only `exit` was hooked, so a host that died by SIGINT, SIGTERM or SIGHUP left its stdio
// servers' process groups running (they are `detached`: the terminal's signal never reaches them). The groups now
// hang on `onHostExit` of @dsh/tools-registry, the mechanism tool-bash's commands use.
import { HOST_SIGNALS } from '@dsh/tools-registry'
import { afterEach, describe, expect, it } from 'vitest'
import { groupAlive } from './process-groups.js'
import { alive, until } from './test-support/fixtures.js'
import { killHostLeftovers, startMcpHost } from './test-support/host-process.js'

afterEach(() => killHostLeftovers())

describe('the host dies by a signal while a stdio MCP server runs', () => {
  for (const signal of HOST_SIGNALS) {
    it(`${signal}: the host still dies by ${signal}, and takes the server's whole process group (a grandchild that ignores SIGTERM included) with it`, async () => {
      const host = startMcpHost('plain')
      const pids = await host.ready()
      expect(alive(pids.server)).toBe(true)
      expect(alive(pids.grandchild)).toBe(true)
      host.process.kill(signal)
      expect(await host.exited).toEqual({ code: null, signal })
      // SIGKILL went to the group before the host died; the kernel may take a moment to reap it.
      await until(() => !alive(pids.server) && !alive(pids.grandchild) && !groupAlive(pids.server), 10_000, 'the server group to be gone')
    })
  }

  it('a host with its own SIGINT handler survives the signal with its server, and the group goes when it exits', async () => {
    const host = startMcpHost('own-sigint')
    const pids = await host.ready()
    host.process.kill('SIGINT')
    await until(() => host.output().includes('survived\n'), 10_000, 'the host to handle SIGINT')
    // The host decided to live on: its server was left alone.
    expect(alive(pids.server)).toBe(true)
    expect(alive(pids.grandchild)).toBe(true)
    host.process.stdin.end()
    expect(await host.exited).toEqual({ code: 7, signal: null })
    await until(() => !alive(pids.server) && !alive(pids.grandchild) && !groupAlive(pids.server), 10_000, 'the server group to be gone')
  })
})

// A refused CONNECT followed on the same connection by more bytes, written from the sandbox with bash's /dev/tcp to
// the proxy port: the call must settle right after the command ends. Before the fix, bytes that arrived after the
// refusal sat unread in the paused socket, hid the command's end from it, and the socket never closed; the cleanup
// waited for the bridge's connection count forever, so the call never settled, long past its timeout.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BashResult } from '@dsh/tool-bash'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROXY_PORT } from './network-proxy.js'
import { describeInSandbox, loadSandboxed, outputOf, type LoadedExecutor } from './test-support.js'

const OPEN = `exec 3<>/dev/tcp/127.0.0.1/${PROXY_PORT}`
const REFUSED = String.raw`CONNECT denied.test:443 HTTP/1.1\r\nHost: denied.test:443\r\n\r\n`
const GET = String.raw`GET http://other.test/ HTTP/1.1\r\nHost: other.test\r\n\r\n`
const DENIAL = { host: 'denied.test', port: 443, reason: 'not-allowed' }

/**
 * How long the call may take beyond the command's own run (launch and cleanup). Well under the executor's own bound
 * on its cleanup waits (2 s), so a pass means the proxy closed the connection itself, not that a bound cut the wait.
 */
const OVERHEAD_MS = 1_000

/** Runs `command` (timeout `timeoutMs`) and fails, instead of hanging the suite, when the call does not settle in 8 s. */
async function settled(loaded: LoadedExecutor, command: string, timeoutMs: number): Promise<{ result: BashResult; overheadMs: number }> {
  const started = performance.now()
  let timer: NodeJS.Timeout | undefined
  const outcome = await Promise.race([
    loaded.bash.run({ command, timeoutMs }),
    new Promise<'never settled'>((resolve) => {
      timer = setTimeout(() => resolve('never settled'), 8_000)
    }),
  ]).finally(() => clearTimeout(timer))
  if (outcome === 'never settled') throw new Error(`the call did not settle within 8 s (command timeout ${timeoutMs} ms): ${command}`)
  return { result: outcome, overheadMs: performance.now() - started - outcome.durationMs }
}

describeInSandbox(() => {
  describe('the network proxy, when a command keeps talking after a refused CONNECT', () => {
    const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-sbx-proxy-hang-')))
    let loaded: LoadedExecutor

    beforeAll(async () => {
      mkdirSync(join(scratch, 'work'))
      loaded = await loadSandboxed({ cwd: join(scratch, 'work'), tempDir: scratch, network: { allow: ['allowed.test'], resolve: async () => ['127.0.0.1'] } })
    })

    afterAll(async () => {
      await loaded?.fiber.dispose()
      rmSync(scratch, { recursive: true, force: true })
    })

    it.each([
      ['a plain request written after the 403 was read', `${OPEN}; printf '${REFUSED}' >&3; cat <&3; printf '${GET}' >&3`],
      ['a second CONNECT written after the 403 was read', `${OPEN}; printf '${REFUSED}' >&3; cat <&3; printf 'CONNECT other.test:443 HTTP/1.1\\r\\n\\r\\n' >&3`],
      ['garbage written after the 403 was read', `${OPEN}; printf '${REFUSED}' >&3; cat <&3; printf '\\001\\002garbage\\377' >&3`],
      ['a request written a moment later, before the 403 was read', `${OPEN}; printf '${REFUSED}' >&3; sleep 0.1; printf '${GET}' >&3; cat <&3`],
      ['a request pipelined in the same write', `${OPEN}; printf '${REFUSED}${GET}' >&3; cat <&3`],
    ])('settles right after the command ends, the denial recorded: %s', async (_name, command) => {
      const { result, overheadMs } = await settled(loaded, command, 3_000)
      expect(result.timedOut).toBe(false)
      expect(result.exitCode).toBe(0)
      expect(outputOf(result)).toMatch(/^HTTP\/1.1 403 Forbidden[\s\S]*blocked by the sandbox network policy/)
      expect(result.executorMeta).toMatchObject({ network: { denials: [DENIAL] } })
      expect(overheadMs).toBeLessThan(OVERHEAD_MS)
    }, 10_000)

    it.each([
      ['holds a refused connection open and never reads', `${OPEN}; printf '${REFUSED}${GET}' >&3; printf '${GET}' >&3; sleep 30`, [DENIAL]],
      ['stalls in the middle of a request line', `${OPEN}; printf 'GET http://other.te' >&3; sleep 30`, []],
    ])('a command that %s ends at its timeout and the call settles right after', async (_name, command, denials) => {
      const { result, overheadMs } = await settled(loaded, command, 2_000)
      expect(result.timedOut).toBe(true)
      expect(result.executorMeta).toMatchObject({ network: { denials } })
      expect(overheadMs).toBeLessThan(OVERHEAD_MS)
    }, 10_000)
  })
})

// The network allow list of the session container: the container has no network device; the only way out is the
// agent's listener on 127.0.0.1:3128, whose connections go over the attach connection to the allow-list proxy on
// the host. The commands here speak HTTP through bash's /dev/tcp (the test image has no curl).
import { mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context, type Fiber } from 'cordis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ContainerBashExecutor } from './container-bash-executor.js'
import { describeOnEngines } from './test-support.js'

const base = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-ct-net-')))
afterAll(() => rmSync(base, { recursive: true, force: true }))

const BIG_BYTES = 24 * 1024 * 1024
/** How many bytes of /big the host server got written, last time it was asked. */
let bigSent = 0

/** Opens the proxy from inside the container (from $HTTP_PROXY) as fd 3. */
const OPEN_PROXY = 'p=${HTTP_PROXY#http://}; exec 3<>"/dev/tcp/${p%:*}/${p##*:}"'
const get = (port: number, path: string): string =>
  `${OPEN_PROXY}; printf 'GET http://127.0.0.1:${port}${path} HTTP/1.1\\r\\nHost: 127.0.0.1:${port}\\r\\nConnection: close\\r\\n\\r\\n' >&3; cat <&3`

describeOnEngines((engine) => {
  let server: Server
  let port: number
  let ctx: Context
  let fiber: Fiber
  let executor: ContainerBashExecutor
  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/big') {
        response.writeHead(200, { 'content-length': String(BIG_BYTES) })
        const chunk = Buffer.alloc(65_536, 0x61)
        let sent = 0
        bigSent = 0
        const pump = (): void => {
          while (sent < BIG_BYTES) {
            sent += chunk.length
            bigSent = sent
            if (!response.write(chunk)) return void response.once('drain', pump)
          }
          response.end()
        }
        pump()
        return
      }
      response.end(`hello from the host, ${request.method} ${request.url}`)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
    ctx = new Context()
    fiber = await ctx.plugin(ContainerBashExecutor, {
      ...engine.options(),
      cwd: base,
      network: { allow: [`127.0.0.1:${port}`, 'registry.example.test'], resolve: async (host) => (host === 'registry.example.test' ? ['127.0.0.1'] : []) },
    })
    executor = ctx.bash as ContainerBashExecutor
  })
  afterAll(async () => {
    await fiber?.dispose()
    server?.closeAllConnections()
    await new Promise((resolve) => server?.close(resolve))
  })

  describe('with an allow list', () => {
    it('the proxy variables point at the agent inside, and the container still has no network device', async () => {
      const result = await executor.run({ command: 'echo "$HTTP_PROXY $HTTPS_PROXY $https_proxy"; ls /sys/class/net' })
      expect(result.stdout.head).toBe('http://127.0.0.1:3128 http://127.0.0.1:3128 http://127.0.0.1:3128\nlo\n')
      expect(executor.facts?.interfaces).toEqual([])
    })

    it('an allowed host answers through the proxy (a plain request and a CONNECT tunnel), and nothing is denied', async () => {
      const plain = await executor.run({ command: get(port, '/plain') })
      expect(plain.stdout.head).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*hello from the host, GET \/plain$/)
      expect(plain.executorMeta).toMatchObject({ network: { allow: [`127.0.0.1:${port}`, 'registry.example.test'], denials: [] } })
      const tunnel = await executor.run({
        command: `${OPEN_PROXY}; printf 'CONNECT 127.0.0.1:${port} HTTP/1.1\\r\\nHost: 127.0.0.1:${port}\\r\\n\\r\\n' >&3; read -r status <&3; echo "$status"; while read -r line <&3 && [ "\${line%$'\\r'}" != "" ]; do :; done; printf 'GET /tunnel HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n' >&3; tail -n 1 <&3`,
      })
      expect(tunnel.stdout.head).toMatch(/^HTTP\/1\.1 200[^\n]*\n[\s\S]*hello from the host, GET \/tunnel$/)
    })

    it('a host not on the list gets 403; the denial is in the result with a note, and only in that command', async () => {
      const denied = await executor.run({ command: `${OPEN_PROXY}; printf 'CONNECT example.com:443 HTTP/1.1\\r\\nHost: example.com:443\\r\\n\\r\\n' >&3; head -n 1 <&3; exit 7` })
      expect(denied.stdout.head).toMatch(/^HTTP\/1\.1 403/)
      expect(denied.executorMeta).toMatchObject({ network: { denials: [{ host: 'example.com', port: 443, reason: 'not-allowed' }] } })
      expect(denied.note).toMatch(/network policy refused example\.com:443 \(not-allowed\); only 127\.0\.0\.1:\d+, registry\.example\.test can be reached/)
      const next = await executor.run({ command: 'true' })
      expect(next.executorMeta).toMatchObject({ network: { denials: [] } })
      expect(next.note).toBeUndefined()
    })

    it('an allowed name that resolves to a loopback address is refused (private-address) unless the address is listed', async () => {
      const result = await executor.run({ command: `${OPEN_PROXY}; printf 'GET http://registry.example.test:${port + 1}/ HTTP/1.1\\r\\nHost: registry.example.test\\r\\nConnection: close\\r\\n\\r\\n' >&3; head -n 1 <&3` })
      expect(result.stdout.head).toMatch(/^HTTP\/1\.1 403/)
      expect(result.executorMeta).toMatchObject({ network: { denials: [{ host: 'registry.example.test', reason: 'private-address' }] } })
    })

    it('the controls: no direct way out (the host port from inside, a public address)', async () => {
      const direct = await executor.run({ command: `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`, timeoutMs: 5_000 })
      expect(direct.stdout.head).toBe('')
      expect(direct.stderr.head).toMatch(/Connection refused/)
      const outside = await executor.run({ command: 'exec 3<>/dev/tcp/1.1.1.1/80 && echo connected', timeoutMs: 5_000 })
      expect(outside.stdout.head).toBe('')
      expect(outside.stderr.head).toMatch(/Network is unreachable/)
      expect(outside.timedOut).toBe(false)
    })

    it('24 MiB through the tunnel arrive whole, and a reader that stops reading holds nothing up', async () => {
      const whole = await executor.run({ command: `${get(port, '/big')} | tail -c ${BIG_BYTES} | wc -c`, timeoutMs: 60_000 })
      expect(whole.stdout.head.trim()).toBe(String(BIG_BYTES))
      // Reads the headers, then sleeps while the server still has megabytes to send; the command ends on time and
      // the next one runs at once.
      const stalled = await executor.run({ command: `${get(port, '/big')} | head -c 100 >/dev/null; sleep 1; echo done`, timeoutMs: 10_000 })
      expect(stalled.stdout.head).toBe('done\n')
      const started = Date.now()
      expect((await executor.run({ command: 'echo next' })).stdout.head).toBe('next\n')
      expect(Date.now() - started).toBeLessThan(2_000)
    })

    it('a command that asks for 24 MiB and never reads: the tunnel stops taking bytes (nothing buffers the download)', async () => {
      const result = await executor.run({ command: `${OPEN_PROXY}; printf 'GET http://127.0.0.1:${port}/big HTTP/1.1\r\nHost: x\r\n\r\n' >&3; sleep 1.5; echo waited` })
      expect(result.stdout.head).toBe('waited\n')
      expect(bigSent).toBeGreaterThan(0)
      expect(bigSent).toBeLessThan(BIG_BYTES / 2)
    })

    it('10 connections at once, each with its own answer', async () => {
      // Each answer's last line, then a newline, in one write.
      const result = await executor.run({ command: `for n in $(seq 1 10); do ( line=$( ${get(port, '/n$n').replace(/'/g, '"')} | tail -n 1); echo "$line" ) & done; wait` })
      const lines = result.stdout.head.split('\n').filter((line) => line !== '').sort()
      expect(lines).toEqual(Array.from({ length: 10 }, (_, index) => `hello from the host, GET /n${index + 1}`).sort())
    })
  })

  it('without an allow list nothing listens inside and no proxy variable is set', async () => {
    const local = new Context()
    const localFiber = await local.plugin(ContainerBashExecutor, { ...engine.options(), cwd: base })
    const result = await (local.bash as ContainerBashExecutor).run({ command: 'echo "[${HTTP_PROXY-unset}]"; exec 3<>/dev/tcp/127.0.0.1/3128 && echo connected' })
    expect(result.stdout.head).toBe('[unset]\n')
    expect(result.stderr.head).toMatch(/Connection refused/)
    expect((result.executorMeta as { network?: unknown }).network).toBeUndefined()
    await localFiber.dispose()
  })

  it('after disposal the proxy socket and the private directory are gone, and no connection is left open', async () => {
    const mine = (): string[] => readdirSync(tmpdir()).filter((name) => name.startsWith(`dsh-container-${process.pid}-`))
    const before = mine()
    const local = new Context()
    const localFiber = await local.plugin(ContainerBashExecutor, { ...engine.options(), cwd: base, network: { allow: [`127.0.0.1:${port}`] } })
    const task = await (local.bash as ContainerBashExecutor).start({ command: `${get(port, '/big')} | (sleep 30; cat >/dev/null)` })
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const open = await new Promise<number>((resolve) => server.getConnections((_, count) => resolve(count)))
      if (open > 0) break
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const own = mine().filter((name) => !before.includes(name))
    expect(own).toHaveLength(1)
    expect(readdirSync(join(tmpdir(), own[0] as string))).toContain('proxy.sock')
    await localFiber.dispose()
    expect((await task.done).status).toBe('completed')
    expect(mine()).toEqual(before)
    let open = -1
    for (let attempt = 0; attempt < 50 && open !== 0; attempt += 1) {
      open = await new Promise<number>((resolve) => server.getConnections((_, count) => resolve(count)))
      if (open !== 0) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(open).toBe(0)
  })
})

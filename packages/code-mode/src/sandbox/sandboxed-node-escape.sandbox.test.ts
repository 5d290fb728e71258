// Escape attempts against SandboxedNodeRuntime. Each layer is attacked alone: with Node's permission model on (the
// default), and with it off, where the bubblewrap sandbox is the only boundary.
import { createServer, type Server } from 'node:net'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { runProgram, type Answer } from '../runtime/test-bridge.js'
import { SandboxedNodeRuntime } from './sandboxed-node-runtime.js'
import { describeInSandbox, eventually, processesWith } from './test-support.js'

const echo = (args: unknown): Answer => ({ value: { echoed: args } })

describeInSandbox(() => {
  const guarded = new SandboxedNodeRuntime()
  const bare = new SandboxedNodeRuntime({ nodePermissions: false })
  let server: Server
  let port = 0
  let accepted = 0
  beforeAll(async () => {
    server = createServer((socket) => {
      accepted++
      socket.end('host\n')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as { port: number }).port
  })
  afterAll(async () => {
    await Promise.all([guarded.close(), bare.close()])
    await new Promise((resolve) => server.close(resolve))
  })

  /** Runs `attempt` (an expression that may throw) in the program and answers 'ok: …' or the error's code. */
  const probe = (attempt: string): string =>
    `try { const r = await (async () => ${attempt})(); return 'ok: ' + String(r).slice(0, 200) } catch (error) { return error.code ?? error.name + ': ' + error.message }`

  it('permission model: files, child processes, workers and native bindings are refused', async () => {
    for (const attempt of [
      "require('fs').readFileSync('/etc/hostname', 'utf8')",
      "require('fs').writeFileSync('/tmp/x', '1')",
      "require('child_process').execFileSync('/usr/bin/true')",
      "new (require('worker_threads').Worker)('1', { eval: true })",
      "process.binding('spawn_sync')",
    ]) {
      expect((await runProgram(guarded, probe(attempt))).value, attempt).toBe('ERR_ACCESS_DENIED')
    }
    // Modules do not load at all from the program's code (it is compiled without a dynamic import hook).
    expect((await runProgram(guarded, probe("(await import('node:fs')).readdirSync('/')"))).value).toBe('ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING')
  })

  it('host files are not in the sandbox: /etc/shadow, the project, the home directory, the host temp directory', async () => {
    for (const path of ['/etc/shadow', '/etc/passwd', process.cwd(), '/root', '/home', '/var', `/proc/${process.pid}/environ`]) {
      const { value } = await runProgram(bare, probe(`require('fs').readdirSync(${JSON.stringify(path)}).join(',') || require('fs').readFileSync(${JSON.stringify(path)}, 'utf8')`))
      expect(value, path).toMatch(/^ENOENT$|^ENOTDIR$/)
    }
    const { value } = await runProgram(bare, 'return require("fs").readdirSync("/").sort()')
    expect(value).not.toContain('etc/shadow')
    expect(value).not.toContain('home')
    expect(value).not.toContain('root')
  })

  it('writes land nowhere but the private /tmp: the system directories are read-only', async () => {
    for (const path of ['/usr/dsh-escape', '/dsh-escape', '/etc/dsh-escape', '/proc/sys/kernel/hostname']) {
      const { value } = await runProgram(bare, probe(`require('fs').writeFileSync(${JSON.stringify(path)}, 'x')`))
      expect(value, path).toMatch(/^(EROFS|EACCES|EPERM|ENOENT)$/)
    }
    expect((await runProgram(bare, probe("(require('fs').writeFileSync('/tmp/x', 'x'), require('fs').readFileSync('/tmp/x', 'utf8'))"))).value).toBe('ok: x')
  })

  it('no network: the host loopback is another namespace, and outside is unreachable', async () => {
    const connect = (host: string, to: number) =>
      probe(`await new Promise((resolve, reject) => { const s = require('net').connect(${to}, '${host}'); s.on('data', (d) => resolve(String(d))); s.on('error', reject); setTimeout(() => reject(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })), 2000) })`)
    expect((await runProgram(bare, connect('127.0.0.1', port))).value).toBe('ECONNREFUSED')
    expect((await runProgram(bare, connect('1.1.1.1', 80))).value).toBe('ENETUNREACH')
    expect((await runProgram(guarded, 'return typeof fetch === "function" ? await fetch("http://1.1.1.1/").then(() => "reached", (error) => error.cause?.code ?? error.name) : "no fetch"')).value).toMatch(/ENETUNREACH|TypeError|no fetch/)
    expect(accepted).toBe(0)
  })

  it('the environment is PATH only, for the program and for the sandbox init (/proc/1/environ)', async () => {
    const marker = `DSH_SECRET_${Math.random().toString(36).slice(2)}`
    process.env[marker] = 'leaked'
    try {
      const { value, outcome } = await runProgram(bare, 'return { env: { ...process.env }, init: require("fs").readFileSync("/proc/1/environ", "latin1").split("\\0").filter(Boolean), pid: process.pid, ppid: process.ppid }')
      expect(outcome.ok, JSON.stringify(outcome)).toBe(true)
      const { env, init, pid, ppid } = value as { env: Record<string, string>; init: string[]; pid: number; ppid: number }
      expect(Object.keys(env).filter((name) => name !== 'PWD')).toEqual(['PATH'])
      // PATH, or nothing when bash closed inherited descriptors first (`exec -c`)
      expect(init.map((entry) => entry.split('=')[0]).filter((name) => name !== 'PATH')).toEqual([])
      expect(JSON.stringify(value)).not.toContain(marker)
      expect([pid, ppid]).toEqual([2, 1])
    } finally {
      delete process.env[marker]
    }
  })

  it('processes the program starts do not outlive the run (its pid namespace ends with it)', async () => {
    const token = `dsh-daemon-${Math.random().toString(36).slice(2)}`
    const program = `require('child_process').spawn('/usr/bin/sleep', ['3600', '${token}'], { detached: true, stdio: 'ignore' }).unref()
      await new Promise((r) => setTimeout(r, 100))
      return 'started'`
    const { value } = await runProgram(bare, program)
    expect(value).toBe('started')
    expect(await eventually(() => processesWith(token).length === 0)).toBe(true)
    // and a process killed mid-run (wall clock) leaves nothing either
    const killed = await runProgram(bare, program.replace("return 'started'", 'await new Promise(() => setTimeout(() => {}, 60_000))'), { limits: { wallMs: 400 } })
    expect(killed.outcome).toMatchObject({ ok: false, kind: 'timeout' })
    expect(await eventually(() => processesWith(token).length === 0)).toBe(true)
  })

  it('signals from inside reach only the sandbox: kill(1) ends the run, not the host', async () => {
    const { outcome } = await runProgram(bare, 'process.kill(1, "SIGKILL"); process.kill(-1, "SIGKILL"); await new Promise((r) => setTimeout(r, 1000))')
    expect(outcome.ok).toBe(false)
    expect(process.pid).toBeGreaterThan(0)
  })

  it('the protocol is hostile input: a forged call with non-JSON arguments is refused, garbage ends the run', async () => {
    const forged = await runProgram(
      guarded,
      `process.stdout.write(JSON.stringify({ t: 'call', id: 99, tool: 'echo', args: '{not json' }) + '\\n')
       await new Promise((r) => setTimeout(r, 100))
       return 'after'`,
      { tools: { echo } },
    )
    expect(forged.bridge.calls).toEqual([])
    expect(forged.outcome).toEqual({ ok: true, valueJson: '"after"' })
    for (const program of [
      "process.stdout.write('not json\\n'); await new Promise((r) => setTimeout(r, 1000))",
      "process.stdout.write('x'.repeat(4 * 1024 * 1024)); await new Promise((r) => setTimeout(r, 1000))",
      "process.stdout.write(JSON.stringify({ t: 'end', ok: true, value: '{bad' }) + '\\n')",
      "process.stdout.write(JSON.stringify({ t: 'call', id: 'x', tool: 1 }) + '\\n'); await new Promise((r) => setTimeout(r, 1000))",
    ]) {
      const { outcome, bridge } = await runProgram(guarded, program, { tools: { echo } })
      expect(outcome, program).toMatchObject({ ok: false, kind: 'error' })
      expect(JSON.stringify(outcome)).not.toMatch(/\/work\/|node_modules|\.ts\b/)
      expect(bridge.calls).toEqual([])
    }
  })

  it('the program may bypass its console, but the host still bounds the logs', async () => {
    const { bridge } = await runProgram(
      guarded,
      "for (let i = 0; i < 1000; i++) process.stdout.write(JSON.stringify({ t: 'log', level: 'log', text: 'y'.repeat(1000) }) + '\\n'); return 1",
      { limits: { maxLogBytes: 4096 } },
    )
    const kept = bridge.logs.slice(0, -1)
    expect(kept.reduce((sum, { text }) => sum + Buffer.byteLength(text) + 1, 0)).toBeLessThanOrEqual(4096 + 512)
    expect(bridge.logs.at(-1)!.text).toMatch(/more log lines dropped by the host/)
  })

  it('no failure message carries a host path', async () => {
    for (const program of ['null.x', 'while (true) {}', 'const a = []; while (true) a.push(new Array(1e5).fill(1))', 'const = 1', 'process.abort()', 'process.exit(3)']) {
      const { outcome } = await runProgram(guarded, program, { limits: { cpuMs: 100 } })
      expect(outcome.ok).toBe(false)
      expect(JSON.stringify(outcome), program).not.toMatch(/\/work\/|\/usr\/|node_modules|\.ts\b|file:/)
    }
  })
})

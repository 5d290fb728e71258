// Network tests stay on 127.0.0.1: a local HTTP server, and the proxy with an injectable resolver.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { createServer, request, type Server } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NetworkProxy, isNetworkAllowed, isPrivateAddress, parseNetworkAllowEntry, type NetworkResolver } from './network-proxy.js'
import { loadSandboxed, outputOf, describeInSandbox } from './test-support.js'

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-sbx-network-')))
let server: Server
let port = 0
const resolve: NetworkResolver = async (host) => {
  if (host === 'allowed.test' || host === 'loopback-only.test') return ['127.0.0.1']
  if (host === 'metadata.test') return ['169.254.169.254']
  throw new Error(`no such host ${host}`)
}

beforeAll(async () => {
  server = createServer((incoming, response) => response.end(`host-server saw ${incoming.headers.host ?? ''} ${incoming.url ?? ''}\n`))
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready))
  port = (server.address() as AddressInfo).port
})
afterAll(async () => {
  await new Promise((done) => server.close(done))
  rmSync(scratch, { recursive: true, force: true })
})

describe('the allow list', () => {
  it('parses names, *.patterns, ports and bracketed IPv6', () => {
    expect(parseNetworkAllowEntry('Registry.NPMjs.org')).toEqual({ host: 'registry.npmjs.org', port: null })
    expect(parseNetworkAllowEntry('*.example.com:443')).toEqual({ host: '*.example.com', port: 443 })
    expect(parseNetworkAllowEntry('[::1]:8080')).toEqual({ host: '::1', port: 8080 })
    expect(parseNetworkAllowEntry('10.0.0.5')).toEqual({ host: '10.0.0.5', port: null })
    expect(() => parseNetworkAllowEntry('example.com:0')).toThrow(/port/)
    expect(() => parseNetworkAllowEntry('exa mple.com')).toThrow(/not a host name/)
  })

  it('matches exact names, subdomains of a pattern (not the bare domain), and ports', () => {
    const rules = ['example.com:443', '*.npmjs.org', '[::1]:80'].map(parseNetworkAllowEntry)
    expect(isNetworkAllowed(rules, 'EXAMPLE.com', 443)).toBe(true)
    expect(isNetworkAllowed(rules, 'example.com', 80)).toBe(false)
    expect(isNetworkAllowed(rules, 'registry.npmjs.org', 443)).toBe(true)
    expect(isNetworkAllowed(rules, 'npmjs.org', 443)).toBe(false)
    expect(isNetworkAllowed(rules, 'evilnpmjs.org', 443)).toBe(false)
    expect(isNetworkAllowed(rules, '[::1]', 80)).toBe(true)
  })

  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['0.0.0.0', true],
    ['169.254.169.254', true],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fd00:ec2::254', true],
    ['::ffff:127.0.0.1', true],
    ['93.184.216.34', false],
    ['2606:4700::1111', false],
  ])('treats %s as private: %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected)
  })
})

/** One request through the proxy's unix socket (an absolute URL: plain HTTP forwarding). */
function viaProxy(socketPath: string, url: string): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const outgoing = request({ socketPath, path: url, headers: { host: new URL(url).host } }, (response) => {
      let body = ''
      response.on('data', (chunk: Buffer) => (body += chunk.toString()))
      response.on('end', () => done({ status: response.statusCode ?? 0, body }))
    })
    outgoing.on('error', fail)
    outgoing.end()
  })
}

/** A CONNECT through the proxy; resolves with the status line and what came back after sending a GET. */
function tunnel(socketPath: string, target: string): Promise<string> {
  return new Promise((done, fail) => {
    const socket = connect(socketPath, () => socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`))
    let text = ''
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString()
      if (text.startsWith('HTTP/1.1 200') && text.includes('\r\n\r\n') && !text.includes('host-server')) {
        socket.write(`GET /tunnelled HTTP/1.1\r\nHost: ${target}\r\nConnection: close\r\n\r\n`)
      }
    })
    socket.on('end', () => done(text))
    socket.on('error', fail)
  })
}

describe('NetworkProxy', () => {
  it('forwards allowed hosts, refuses the rest with 403, and records every refusal', async () => {
    const rules = ['allowed.test', '127.0.0.1', 'metadata.test'].map(parseNetworkAllowEntry)
    const proxy = new NetworkProxy({ rules, resolve })
    const socketPath = join(scratch, 'proxy-a.sock')
    await proxy.listen(socketPath)
    try {
      const allowed = await viaProxy(socketPath, `http://allowed.test:${port}/x?y=1`)
      expect(allowed).toEqual({ status: 200, body: `host-server saw allowed.test:${port} /x?y=1\n` })
      const denied = await viaProxy(socketPath, 'http://denied.test/')
      expect(denied.status).toBe(403)
      expect(denied.body).toContain('blocked by the sandbox network policy')
      const metadata = await viaProxy(socketPath, 'http://metadata.test/latest/meta-data/')
      expect(metadata.status).toBe(403)
      expect(proxy.denials).toEqual([
        { host: 'denied.test', port: 80, reason: 'not-allowed' },
        { host: 'metadata.test', port: 80, reason: 'private-address' },
      ])
    } finally {
      await proxy.close()
    }
  })

  it('refuses an allowed name that resolves to loopback unless the address itself is listed', async () => {
    const proxy = new NetworkProxy({ rules: [parseNetworkAllowEntry('allowed.test')], resolve })
    const socketPath = join(scratch, 'proxy-b.sock')
    await proxy.listen(socketPath)
    try {
      expect((await viaProxy(socketPath, `http://allowed.test:${port}/`)).status).toBe(403)
      expect(proxy.denials).toEqual([{ host: 'allowed.test', port, reason: 'private-address' }])
    } finally {
      await proxy.close()
    }
  })

  it('tunnels CONNECT to allowed hosts and answers 403 to the others', async () => {
    const proxy = new NetworkProxy({ rules: ['allowed.test', '127.0.0.1'].map(parseNetworkAllowEntry), resolve })
    const socketPath = join(scratch, 'proxy-c.sock')
    await proxy.listen(socketPath)
    try {
      const through = await tunnel(socketPath, `allowed.test:${port}`)
      expect(through).toMatch(/^HTTP\/1.1 200 Connection Established/)
      expect(through).toContain('host-server saw')
      expect(await tunnel(socketPath, 'github.com:443')).toMatch(/^HTTP\/1.1 403 Forbidden[\s\S]*X-Proxy-Error: blocked-by-allowlist/)
      expect(proxy.denials).toEqual([{ host: 'github.com', port: 443, reason: 'not-allowed' }])
    } finally {
      await proxy.close()
    }
  })
})

describeInSandbox(() => {
  describe('the allow list in the sandbox', () => {

    it('reaches allowed hosts through the proxy, records denials in executorMeta, notes them, and has no direct route', async () => {
      const workdir = join(scratch, 'work')
      mkdirSync(workdir, { recursive: true })
      const { bash, fiber } = await loadSandboxed({
        cwd: workdir,
        tempDir: scratch,
        network: { allow: ['allowed.test', '127.0.0.1'], resolve },
      })
      try {
        expect(bash.limits.policy).toContain('only for allowed.test, 127.0.0.1')
        const allowed = await bash.run({ command: `curl -sS http://allowed.test:${port}/inside` })
        expect(outputOf(allowed)).toContain(`host-server saw allowed.test:${port} /inside`)
        expect(allowed.executorMeta).toEqual({ network: { allow: ['allowed.test', '127.0.0.1'], denials: [] } })
        const denied = await bash.run({ command: 'curl -sS -f https://denied.test/ ; curl -sS -f http://other.test/' })
        expect(denied.executorMeta).toEqual({
          network: {
            allow: ['allowed.test', '127.0.0.1'],
            denials: [
              { host: 'denied.test', port: 443, reason: 'not-allowed' },
              { host: 'other.test', port: 80, reason: 'not-allowed' },
            ],
          },
        })
        expect(denied.note).toMatch(/network policy refused denied\.test:443 \(not-allowed\), other\.test:80/)
        const direct = await bash.run({ command: `curl -sS --noproxy '*' -m 5 http://127.0.0.1:${port}/direct` })
        expect(direct.exitCode).not.toBe(0)
        expect(outputOf(direct)).not.toContain('host-server saw')
      } finally {
        await fiber.dispose()
      }
    })
  })
})

// Network tests stay on 127.0.0.1: a local HTTP server, and the proxy with an injectable resolver.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { createServer, request, type Server } from 'node:http'
import { connect, createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  NetworkProxy,
  PROXY_CLOSE_BOUND_MS,
  PROXY_PORT,
  isNetworkAllowed,
  isPrivateAddress,
  parseNetworkAllowEntry,
  proxyEnvironment,
  type NetworkProxyOptions,
  type NetworkResolver,
} from './network-proxy.js'
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

/** True when `promise` settles within `ms` (the timer cleared either way). */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const bound = new Promise<false>((done) => {
    timer = setTimeout(() => done(false), ms)
  })
  try {
    return await Promise.race([promise.then(() => true as const), bound])
  } finally {
    clearTimeout(timer)
  }
}

/** Resolves when `condition` holds (checked every 10 ms); rejects naming `what` after `ms`. */
async function eventually(condition: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = performance.now() + ms
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`)
    await new Promise((done) => setTimeout(done, 10))
  }
}

/** What each test opened, torn down after it whatever happened, so that a failure does not spill into the next. */
const teardown: Array<() => void> = []
afterEach(() => {
  for (const undo of teardown.splice(0)) undo()
})

function proxyWith(options: Omit<NetworkProxyOptions, 'rules'>): NetworkProxy {
  const proxy = new NetworkProxy({ rules: ['allowed.test', '127.0.0.1'].map(parseNetworkAllowEntry), ...options })
  teardown.push(() => void proxy.close())
  return proxy
}

/**
 * What the executor does: a listening TCP server whose connections are handed to the proxy with `accept` (the
 * bridge's socket comes from inside the sandbox; here it listens on 127.0.0.1). Its `close` waits, like
 * `net.Server#close`, until every connection it accepted is closed: the wait that never ended.
 */
async function bridgeTo(proxy: NetworkProxy): Promise<{ port: number; connections: () => Promise<number>; close: () => Promise<void> }> {
  const bridge: NetServer = createNetServer((socket) => proxy.accept(socket))
  await new Promise<void>((ready) => bridge.listen(0, '127.0.0.1', ready))
  teardown.push(() => bridge.close())
  return {
    port: (bridge.address() as AddressInfo).port,
    connections: () => new Promise((done) => bridge.getConnections((_error, count) => done(count))),
    close: () => new Promise((done) => bridge.close(() => done())),
  }
}

/** A host the proxy may reach: it reads and drops what it gets and never answers. Its open connections, live. */
async function silentHost(): Promise<{ port: number; connections: Set<Socket>; accepted: () => number }> {
  const connections = new Set<Socket>()
  let accepted = 0
  const host = createNetServer((socket) => {
    accepted += 1
    // Read, or bytes left unread would hide the proxy's close from this side (the very bug under test).
    socket.resume()
    connections.add(socket)
    socket.once('close', () => connections.delete(socket))
  })
  await new Promise<void>((ready) => host.listen(0, '127.0.0.1', ready))
  teardown.push(() => {
    for (const socket of connections) socket.destroy()
    host.close()
  })
  return { port: (host.address() as AddressInfo).port, connections, accepted: () => accepted }
}

/** A client that never closes its side unless told to (as a command holding a /dev/tcp descriptor). */
function client(port: number): Promise<{ socket: Socket; text: () => string; ended: Promise<void> }> {
  return new Promise((ready, fail) => {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => ready({ socket, text: () => text, ended }))
    teardown.push(() => socket.destroy())
    let text = ''
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
    const ended = new Promise<void>((done) => {
      socket.once('end', done)
      socket.once('close', done)
    })
    socket.on('error', () => {})
    socket.once('error', fail)
  })
}

/** The TCP sockets open in this process (connected or connecting, either end). */
function tcpSockets(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'TCPSocketWrap').length
}

const REFUSED_CONNECT = 'CONNECT denied.test:443 HTTP/1.1\r\nHost: denied.test:443\r\n\r\n'
const PLAIN_GET = 'GET http://other.test/ HTTP/1.1\r\nHost: other.test\r\n\r\n'

describe('NetworkProxy, whatever the peer does', () => {
  it.each([
    ['a plain request', PLAIN_GET],
    ['a second CONNECT', 'CONNECT other.test:443 HTTP/1.1\r\n\r\n'],
    ['garbage', '\u0001\u0002garbage\u00ff'],
  ])('closes its side of a refused CONNECT once the client closes, after %s written on it (regression: the bridge never closed)', async (_name, after) => {
    const proxy = proxyWith({ resolve })
    const bridge = await bridgeTo(proxy)
    const peer = await client(bridge.port)
    peer.socket.write(REFUSED_CONNECT)
    await peer.ended
    expect(peer.text()).toMatch(/^HTTP\/1.1 403 Forbidden\r\nX-Proxy-Error: blocked-by-allowlist/)
    peer.socket.end(after)
    // Without proxy.close(): the executor closed the bridge first, and that waited on the proxy's side of this socket.
    expect(await settlesWithin(bridge.close(), 1_000)).toBe(true)
    expect(proxy.denials).toEqual([{ host: 'denied.test', port: 443, reason: 'not-allowed' }])
  })

  it('answers a refused CONNECT in full, then cuts the connection after lingerMs when the client neither reads nor closes', async () => {
    const proxy = proxyWith({ resolve, lingerMs: 200 })
    const bridge = await bridgeTo(proxy)
    const peer = await client(bridge.port)
    peer.socket.pause()
    peer.socket.write(REFUSED_CONNECT + PLAIN_GET)
    await new Promise((done) => setTimeout(done, 50))
    peer.socket.write(PLAIN_GET)
    await eventually(async () => (await bridge.connections()) === 0, 2_000, 'the proxy closes its side')
    // What the proxy sent before it went is all there: the connection ended, it was not reset.
    peer.socket.resume()
    await peer.ended
    expect(peer.text()).toMatch(/^HTTP\/1.1 403 Forbidden[\s\S]*denied\.test: blocked by the sandbox network policy/)
  })

  it('drops a connection stalled in the middle of a request line after idleTimeoutMs', async () => {
    const proxy = proxyWith({ resolve, idleTimeoutMs: 200 })
    const bridge = await bridgeTo(proxy)
    const peer = await client(bridge.port)
    peer.socket.write('GET http://allowed.te')
    expect(await settlesWithin(peer.ended, 2_000)).toBe(true)
    expect(await bridge.connections()).toBe(0)
    expect(proxy.denials).toEqual([])
  })

  it('keeps the idle timeout on a keep-alive connection: a second request left waiting on a silent host is cut after idleTimeoutMs', async () => {
    const host = await silentHost()
    const proxy = proxyWith({ resolve, idleTimeoutMs: 200 })
    const bridge = await bridgeTo(proxy)
    const peer = await client(bridge.port)
    peer.socket.write('GET http://denied.test/ HTTP/1.1\r\nHost: denied.test\r\n\r\n')
    await eventually(() => peer.text().includes('blocked by the sandbox network policy'), 1_000, 'the first answer')
    peer.socket.write(`GET http://allowed.test:${host.port}/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n`)
    expect(await settlesWithin(peer.ended, 2_000)).toBe(true)
    expect(host.accepted()).toBe(1)
    await eventually(() => host.connections.size === 0, 1_000, 'the forwarded request is dropped')
  })

  it('drops an idle tunnel after idleTimeoutMs, and its upstream connection with it', async () => {
    const host = await silentHost()
    const proxy = proxyWith({ resolve, idleTimeoutMs: 200 })
    const bridge = await bridgeTo(proxy)
    const peer = await client(bridge.port)
    peer.socket.write(`CONNECT allowed.test:${host.port} HTTP/1.1\r\n\r\n`)
    await eventually(() => peer.text().startsWith('HTTP/1.1 200') && host.connections.size === 1, 2_000, 'the tunnel opens')
    expect(await settlesWithin(peer.ended, 2_000)).toBe(true)
    await eventually(() => host.connections.size === 0, 1_000, 'the upstream connection closes')
  })

  it('close() settles at once and cuts every connection and upstream, whatever the clients do, leaving no socket open', async () => {
    await eventually(() => tcpSockets() === 0, 1_000, 'the sockets of earlier tests close')
    const host = await silentHost()
    const proxy = proxyWith({ resolve })
    const bridge = await bridgeTo(proxy)
    const [refused, stalled, tunnelled, forwarded] = await Promise.all([1, 2, 3, 4].map(() => client(bridge.port)))
    refused!.socket.pause()
    refused!.socket.write(REFUSED_CONNECT + PLAIN_GET)
    stalled!.socket.write('GET http://allowed.te')
    tunnelled!.socket.write(`CONNECT allowed.test:${host.port} HTTP/1.1\r\n\r\n`)
    forwarded!.socket.write(`GET http://allowed.test:${host.port}/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n`)
    await eventually(() => host.connections.size === 2 && proxy.denials.length === 1, 2_000, 'the requests reach the proxy and the host')
    refused!.socket.write(PLAIN_GET)
    expect(await settlesWithin(proxy.close(), PROXY_CLOSE_BOUND_MS)).toBe(true)
    refused!.socket.resume()
    expect(await settlesWithin(Promise.all([refused, stalled, tunnelled, forwarded].map((peer) => peer!.ended)), 1_000)).toBe(true)
    await eventually(() => host.connections.size === 0, 1_000, 'the upstream connections close')
    expect(await bridge.connections()).toBe(0)
    expect(await settlesWithin(bridge.close(), 1_000)).toBe(true)
    for (const peer of [refused, stalled, tunnelled, forwarded]) peer!.socket.destroy()
    await eventually(() => tcpSockets() === 0, 1_000, 'no TCP socket left open')
  })

  it.each([
    ['a CONNECT', (port: number) => `CONNECT allowed.test:${port} HTTP/1.1\r\n\r\n`],
    ['a plain request', (port: number) => `GET http://allowed.test:${port}/ HTTP/1.1\r\nHost: allowed.test:${port}\r\n\r\n`],
  ])('opens no upstream connection for %s whose name resolves after close()', async (_name, requestTo) => {
    const host = await silentHost()
    let answer: (addresses: readonly string[]) => void = () => {}
    let asked = false
    const proxy = proxyWith({
      resolve: () => {
        asked = true
        return new Promise((done) => (answer = done))
      },
    })
    const bridge = await bridgeTo(proxy)
    const peer = await client(bridge.port)
    peer.socket.write(requestTo(host.port))
    await eventually(() => asked, 1_000, 'the proxy resolves the name')
    await proxy.close()
    answer(['127.0.0.1'])
    await peer.ended
    await new Promise((done) => setTimeout(done, 100))
    expect(host.accepted()).toBe(0)
    expect(await settlesWithin(bridge.close(), 1_000)).toBe(true)
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

describe('proxyEnvironment', () => {
  it('points every proxy variable common clients read at 127.0.0.1 and the given port (3128 by default)', () => {
    const names = ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'ALL_PROXY', 'all_proxy', 'npm_config_proxy', 'npm_config_https_proxy']
    expect(Object.keys(proxyEnvironment()).sort()).toEqual([...names].sort())
    expect(new Set(Object.values(proxyEnvironment()))).toEqual(new Set([`http://127.0.0.1:${PROXY_PORT}`]))
    expect(PROXY_PORT).toBe(3128)
    expect(new Set(Object.values(proxyEnvironment(4000)))).toEqual(new Set(['http://127.0.0.1:4000']))
  })
})

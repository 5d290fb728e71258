import { lookup } from 'node:dns/promises'
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { connect, isIP, type Socket } from 'node:net'
import type { Duplex } from 'node:stream'

/** One entry of the allow list: a host (exact, or `*.` for any subdomain) and optionally one port. */
export interface NetworkAllowRule {
  /** Lower-case host name, `*.suffix`, or an IP literal (IPv6 without brackets). */
  readonly host: string
  /** The one port allowed, or `null` for any. */
  readonly port: number | null
}

/** A connection the proxy refused, as recorded against the command that asked. */
export interface NetworkDenial {
  /** The host as the command asked for it. */
  readonly host: string
  /** The port. */
  readonly port: number
  /** Why: not on the allow list, or the name resolved to a loopback, link-local, metadata or unspecified address. */
  readonly reason: 'not-allowed' | 'private-address' | 'unresolvable' | 'bad-request'
}

/** Resolves a host name to its addresses (injectable: tests map names to 127.0.0.1 without DNS). */
export type NetworkResolver = (host: string) => Promise<readonly string[]>

/** The resolver used by default: the system's (`dns.lookup`, all addresses). */
export const systemResolver: NetworkResolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address)

/**
 * Parses an allow-list entry: `example.com`, `*.example.com`, `example.com:443`, `10.0.0.5:8080`, `[::1]:80`.
 * Throws a `TypeError` naming the problem.
 */
export function parseNetworkAllowEntry(entry: string): NetworkAllowRule {
  const text = entry.trim().toLowerCase()
  let host = text
  let port: number | null = null
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d+))?$/.exec(text)
  if (bracketed !== null) {
    host = bracketed[1] as string
    port = bracketed[2] === undefined ? null : Number(bracketed[2])
  } else if (isIP(text) !== 6) {
    const colon = text.lastIndexOf(':')
    if (colon !== -1) {
      host = text.slice(0, colon)
      port = /^\d+$/.test(text.slice(colon + 1)) ? Number(text.slice(colon + 1)) : Number.NaN
    }
  }
  if (port !== null && !(Number.isInteger(port) && port >= 1 && port <= 65_535)) {
    throw new TypeError(`${JSON.stringify(entry)}: the port must be an integer from 1 to 65535`)
  }
  const name = host.startsWith('*.') ? host.slice(2) : host
  if (isIP(host) === 0 && !/^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/.test(name)) {
    throw new TypeError(`${JSON.stringify(entry)}: not a host name, *.domain pattern or IP address`)
  }
  return Object.freeze({ host, port })
}

/** True when `host:port` (as asked, lower-cased) matches a rule. */
export function isNetworkAllowed(rules: readonly NetworkAllowRule[], host: string, port: number): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1')
  return rules.some(
    (rule) =>
      (rule.port === null || rule.port === port) &&
      (rule.host === name || (rule.host.startsWith('*.') && name.endsWith(rule.host.slice(1)))),
  )
}

/**
 * Whether an address is one the proxy never connects to unless it is itself on the allow list: loopback, link-local
 * (which holds the cloud metadata services, 169.254.169.254 and fd00:ec2::254), unspecified, and IPv4-mapped forms.
 */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  const ip = mapped?.[1] ?? address.toLowerCase()
  if (isIP(ip) === 4) {
    const [a, b] = ip.split('.').map(Number) as [number, number]
    return a === 127 || a === 0 || (a === 169 && b === 254)
  }
  return ip === '::1' || ip === '::' || /^fe[89ab]/.test(ip) || ip === 'fd00:ec2::254'
}

/** Options of {@link NetworkProxy}. */
export interface NetworkProxyOptions {
  readonly rules: readonly NetworkAllowRule[]
  readonly resolve?: NetworkResolver | undefined
}

const POLICY_TEXT = 'blocked by the sandbox network policy (only the hosts the deployment allowed are reachable; this cannot be changed from a command)'

/**
 * The host side of the network allow list: an HTTP proxy (plain requests and `CONNECT` tunnels) on a unix socket
 * that is bind-mounted into one command's sandbox. Each command gets its own, so every denial is recorded against
 * the command that caused it. Names are checked against the rules first (a denied name is never resolved), then
 * their addresses against {@link isPrivateAddress}; the connection goes to the checked address, so a second lookup
 * cannot swap it (DNS rebinding).
 */
export class NetworkProxy {
  /** Every refused connection, in order. */
  readonly denials: NetworkDenial[] = []
  private readonly rules: readonly NetworkAllowRule[]
  private readonly resolve: NetworkResolver
  private readonly server: Server
  private readonly sockets = new Set<Duplex>()

  constructor(options: NetworkProxyOptions) {
    this.rules = options.rules
    this.resolve = options.resolve ?? systemResolver
    this.server = createServer((request, response) => void this.forward(request, response))
    this.server.on('connect', (request: IncomingMessage, socket: Duplex, head: Buffer) => void this.tunnel(request, socket, head))
    this.server.on('connection', (socket: Socket) => this.track(socket))
  }

  /** Starts listening on the unix socket `path`. */
  listen(path: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(path, () => {
        this.server.off('error', reject)
        resolve()
      })
    })
  }

  /** Serves one connection accepted elsewhere (the network bridge of a sandboxed command). */
  accept(socket: Socket): void {
    this.server.emit('connection', socket)
  }

  /** Stops listening and cuts every open connection. */
  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy()
    return new Promise((resolve) => this.server.close(() => resolve()))
  }

  private track(socket: Duplex): void {
    this.sockets.add(socket)
    socket.once('close', () => this.sockets.delete(socket))
    socket.on('error', () => socket.destroy())
  }

  /** The address to connect to for `host:port`, or the denial. */
  private async check(host: string, port: number): Promise<{ address: string } | { denial: NetworkDenial }> {
    const deny = (reason: NetworkDenial['reason']): { denial: NetworkDenial } => {
      const denial = Object.freeze({ host, port, reason })
      this.denials.push(denial)
      return { denial }
    }
    if (!Number.isInteger(port) || port < 1 || port > 65_535 || host === '') return deny('bad-request')
    if (!isNetworkAllowed(this.rules, host, port)) return deny('not-allowed')
    const bare = host.replace(/^\[(.*)\]$/, '$1')
    let addresses: readonly string[]
    try {
      addresses = isIP(bare) === 0 ? await this.resolve(bare) : [bare]
    } catch {
      return deny('unresolvable')
    }
    const usable = addresses.find((address) => !isPrivateAddress(address) || isNetworkAllowed(this.rules, address, port))
    if (usable === undefined) return deny(addresses.length === 0 ? 'unresolvable' : 'private-address')
    return { address: usable }
  }

  private async tunnel(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    this.track(socket)
    const target = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(request.url ?? '')
    const host = target?.[1] ?? ''
    const checked = await this.check(host, Number(target?.[2] ?? Number.NaN))
    if ('denial' in checked) {
      socket.end(`HTTP/1.1 403 Forbidden\r\nX-Proxy-Error: blocked-by-allowlist\r\nContent-Type: text/plain\r\n\r\n${host}: ${POLICY_TEXT}\n`)
      return
    }
    const upstream = connect(Number(target?.[2]), checked.address, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length > 0) upstream.write(head)
      upstream.pipe(socket)
      socket.pipe(upstream)
    })
    this.track(upstream)
    upstream.once('error', () => socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'))
    socket.once('close', () => upstream.destroy())
  }

  private async forward(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let url: URL
    try {
      url = new URL(request.url ?? '')
      if (url.protocol !== 'http:') throw new TypeError('only http:// is forwarded; https goes through CONNECT')
    } catch {
      response.writeHead(400, { 'Content-Type': 'text/plain' }).end('the proxy forwards absolute http:// URLs only\n')
      return
    }
    const port = url.port === '' ? 80 : Number(url.port)
    const checked = await this.check(url.hostname, port)
    if ('denial' in checked) {
      response.writeHead(403, { 'Content-Type': 'text/plain', 'X-Proxy-Error': 'blocked-by-allowlist' }).end(`${url.hostname}: ${POLICY_TEXT}\n`)
      return
    }
    const headers: Record<string, string | string[] | undefined> = { ...request.headers, host: url.host }
    delete headers['proxy-connection']
    const upstream = httpRequest(
      // agent: false — a connection of its own, closed after the answer: no idle upstream socket outlives the command
      // in the process-wide agent's keep-alive pool.
      { host: checked.address, port, method: request.method, path: `${url.pathname}${url.search}`, headers, agent: false },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(response)
      },
    )
    upstream.once('error', () => {
      if (!response.headersSent) response.writeHead(502, { 'Content-Type': 'text/plain' })
      response.end('the proxy could not reach the host\n')
    })
    request.pipe(upstream)
  }
}

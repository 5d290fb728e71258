import { lookup } from 'node:dns/promises'
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { Socket, connect, isIP } from 'node:net'
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

/** Inside the sandbox: the port on 127.0.0.1 where a command reaches the allow-list proxy (the network bridge listens there). */
export const PROXY_PORT = 3128

/**
 * The proxy variables every common client reads (curl, wget, npm, pip, git over https), all pointing at
 * `http://127.0.0.1:<port>`: what a command behind an allow-list proxy gets in its environment.
 *
 * @param port - where the proxy is reachable inside (default {@link PROXY_PORT})
 */
export function proxyEnvironment(port: number = PROXY_PORT): Record<string, string> {
  const url = `http://127.0.0.1:${port}`
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    ALL_PROXY: url,
    all_proxy: url,
    npm_config_proxy: url,
    npm_config_https_proxy: url,
  }
}

/** Options of {@link NetworkProxy}. */
export interface NetworkProxyOptions {
  readonly rules: readonly NetworkAllowRule[]
  readonly resolve?: NetworkResolver | undefined
  /**
   * How long a connection from the command may go without a byte moving either way before the proxy closes it (and
   * its upstream): a stalled request head, a forgotten tunnel, a client that stopped reading. Default
   * {@link PROXY_IDLE_TIMEOUT_MS}.
   */
  readonly idleTimeoutMs?: number | undefined
  /**
   * After the proxy has answered a `CONNECT` itself and ended the connection (a 403 refusal, a 502 for a host it could
   * not reach), how long it waits for the command to close its side before it destroys the socket. Default
   * {@link PROXY_LINGER_MS}.
   */
  readonly lingerMs?: number | undefined
}

/**
 * The default {@link NetworkProxyOptions.idleTimeoutMs}: one minute, Node's own default for a request head
 * (`headersTimeout`), which a server fed through `emit('connection')` never enforces (it starts its connection
 * checks on `listening`).
 */
export const PROXY_IDLE_TIMEOUT_MS = 60_000

/** The default {@link NetworkProxyOptions.lingerMs}: a peer that reads gets a local answer in well under a millisecond. */
export const PROXY_LINGER_MS = 1_000

/** The longest {@link NetworkProxy.close} waits for the server to report it closed after every socket was destroyed. */
export const PROXY_CLOSE_BOUND_MS = 1_000

/** The idle timeout's action (one shared listener, so re-arming never adds a second). */
function cutIdle(this: Socket): void {
  this.destroy()
}

const POLICY_TEXT = 'blocked by the sandbox network policy (only the hosts the deployment allowed are reachable; this cannot be changed from a command)'

/**
 * The host side of the network allow list: an HTTP proxy (plain requests and `CONNECT` tunnels) on a unix socket
 * that is bind-mounted into one command's sandbox. Each command gets its own, so every denial is recorded against
 * the command that caused it. Names are checked against the rules first (a denied name is never resolved), then
 * their addresses against {@link isPrivateAddress}; the connection goes to the checked address, so a second lookup
 * cannot swap it (DNS rebinding).
 *
 * No connection outlives its use on the proxy's side, whatever the peer does: every socket it touches (accepted,
 * tunnelled, upstream, forwarded) is tracked and destroyed by {@link NetworkProxy.close}, which settles within
 * {@link PROXY_CLOSE_BOUND_MS}; a connection the proxy ends reads and drops what the peer still sends, so the peer's
 * close is seen and closes it (a `CONNECT` it answered itself is destroyed after
 * {@link NetworkProxyOptions.lingerMs} at the latest); and one on which nothing moves for
 * {@link NetworkProxyOptions.idleTimeoutMs} is destroyed.
 */
export class NetworkProxy {
  /** Every refused connection, in order. */
  readonly denials: NetworkDenial[] = []
  private readonly rules: readonly NetworkAllowRule[]
  private readonly resolve: NetworkResolver
  private readonly idleTimeoutMs: number
  private readonly lingerMs: number
  private readonly server: Server
  private readonly sockets = new Set<Duplex>()
  private closing: Promise<void> | undefined

  constructor(options: NetworkProxyOptions) {
    this.rules = options.rules
    this.resolve = options.resolve ?? systemResolver
    this.idleTimeoutMs = options.idleTimeoutMs ?? PROXY_IDLE_TIMEOUT_MS
    this.lingerMs = options.lingerMs ?? PROXY_LINGER_MS
    this.server = createServer((request, response) => void this.forward(request, response))
    // When a request follows a keep-alive answer, Node re-arms the connection's timer with this (0 would turn off the
    // idle timeout of track() for the rest of the connection).
    this.server.timeout = this.idleTimeoutMs
    this.server.on('connect', (request: IncomingMessage, socket: Duplex, head: Buffer) => void this.tunnel(request, socket, head))
    this.server.on('connection', (socket: Socket) => this.track(socket, { idle: true }))
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

  /** Serves one connection accepted elsewhere (the network bridge of a sandboxed command); after close(), destroys it. */
  accept(socket: Socket): void {
    if (this.closing !== undefined) {
      socket.destroy()
      return
    }
    this.server.emit('connection', socket)
  }

  /**
   * Stops listening and destroys every connection, both sides of every tunnel and every forwarded request. Settles
   * within {@link PROXY_CLOSE_BOUND_MS} whatever the peers do, and leaves no timer behind; later calls return the
   * same promise.
   */
  close(): Promise<void> {
    this.closing ??= new Promise((resolve) => {
      for (const socket of this.sockets) socket.destroy()
      // Never awaited without a bound: the server's 'close' waits for its connection count, which a peer could hold.
      const timer = setTimeout(resolve, PROXY_CLOSE_BOUND_MS)
      timer.unref()
      this.server.close(() => {
        clearTimeout(timer)
        resolve()
      })
    })
    return this.closing
  }

  /**
   * Counts a socket as the proxy's until it closes (one that comes after close() is destroyed at once); with `idle`,
   * (re)arms its idle timeout, which destroys it.
   */
  private track(socket: Duplex, options: { idle: boolean } = { idle: false }): void {
    if (this.closing !== undefined) {
      socket.destroy()
      return
    }
    if (!this.sockets.has(socket)) {
      this.sockets.add(socket)
      socket.once('close', () => this.sockets.delete(socket))
      socket.on('error', () => socket.destroy())
    }
    if (options.idle && socket instanceof Socket) {
      socket.setTimeout(this.idleTimeoutMs)
      if (!socket.listeners('timeout').includes(cutIdle)) socket.on('timeout', cutIdle)
    }
  }

  /**
   * Ends the proxy's side of a connection and lets it go. What the peer still sends is read and dropped: bytes left
   * unread in the paused stream would hide the peer's end from it, and a socket that never sees its end never closes.
   * So the socket closes when the peer closes its side; after an `answer` of the proxy's own, at the latest
   * {@link NetworkProxyOptions.lingerMs} after the answer was handed to the kernel; otherwise the idle timeout applies.
   */
  private release(socket: Duplex, answer?: string): void {
    if (socket.destroyed) return
    socket.unpipe()
    socket.resume()
    if (answer !== undefined) {
      socket.once('finish', () => {
        const timer = setTimeout(() => socket.destroy(), this.lingerMs)
        timer.unref()
        socket.once('close', () => clearTimeout(timer))
      })
    }
    if (!socket.writableEnded) socket.end(answer)
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
    // The HTTP server has let go of the socket (paused, its listeners removed); ours (track, idle timeout) stay.
    this.track(socket, { idle: true })
    const target = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(request.url ?? '')
    const host = target?.[1] ?? ''
    const checked = await this.check(host, Number(target?.[2] ?? Number.NaN))
    if ('denial' in checked) {
      this.release(socket, `HTTP/1.1 403 Forbidden\r\nX-Proxy-Error: blocked-by-allowlist\r\nContent-Type: text/plain\r\n\r\n${host}: ${POLICY_TEXT}\n`)
      return
    }
    // Closed, or the command went away, while the name resolved: no upstream is opened for nobody.
    if (socket.destroyed || this.closing !== undefined) {
      socket.destroy()
      return
    }
    let established = false
    const upstream = connect(Number(target?.[2]), checked.address, () => {
      established = true
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length > 0) upstream.write(head)
      upstream.pipe(socket)
      socket.pipe(upstream)
    })
    this.track(upstream)
    upstream.once('close', (hadError: boolean) => {
      if (!established) this.release(socket, 'HTTP/1.1 502 Bad Gateway\r\n\r\n')
      else if (hadError) socket.destroy()
      else this.release(socket)
    })
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
    if (response.destroyed || this.closing !== undefined) {
      response.destroy()
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
    upstream.once('socket', (socket: Socket) => this.track(socket))
    upstream.once('error', () => {
      if (!response.headersSent) response.writeHead(502, { 'Content-Type': 'text/plain' })
      response.end('the proxy could not reach the host\n')
    })
    // The command's side gone (closed, idle, the proxy closed): the upstream request goes with it.
    response.once('close', () => upstream.destroy())
    request.pipe(upstream)
  }
}

// The network allow list's byte streams between the session container and the host. The container has no network
// (only lo); the agent listens on 127.0.0.1:PROXY_PORT inside it, and each connection a command opens there is carried
// over the attach connection (the agent's stdin and stdout, as JSON lines) to the host, which hands it to an
// allow-list HTTP proxy. Nothing is mounted and no port is published, so it works the same with a remote engine.
// Both sides use this module (the agent bundles it): one Tunnels per side, one entry per connection.
import type { Socket } from 'node:net'

/** Inside the container: the port the agent listens on (127.0.0.1), where the proxy variables point. */
export const PROXY_PORT = 3128

/**
 * How many bytes one side sends on a connection before the other has written them to its socket: past it, the
 * sender stops reading its socket until acknowledgements come back, so a command that reads slowly (or not at all)
 * never makes either side buffer a download.
 */
export const TUNNEL_WINDOW_BYTES = 262_144

/** The messages of one proxied connection (both directions; `net-open` only from the agent). */
export type TunnelMessage =
  | { readonly op: 'net-open'; readonly conn: number }
  | { readonly op: 'net-data'; readonly conn: number; readonly data: string }
  | { readonly op: 'net-ack'; readonly conn: number; readonly bytes: number }
  | { readonly op: 'net-end'; readonly conn: number }
  | { readonly op: 'net-close'; readonly conn: number }

interface Entry {
  readonly socket: Socket
  /** Bytes this side sent that the other has not acknowledged. */
  unacked: number
  /** Bytes the other side sent that this side has not acknowledged yet. */
  inflight: number
}

/** The most connections one side carries at once (a command opening more waits in the agent's backlog). */
export const TUNNEL_MAX_CONNECTIONS = 256

/** The other side broke the tunnel protocol (a reused connection number, more bytes in flight than the window). */
export class TunnelProtocolError extends Error {
  override readonly name = 'TunnelProtocolError'
}

/** True for the messages of {@link TunnelMessage}. */
export const isTunnelMessage = (message: { readonly op: string }): message is TunnelMessage => message.op.startsWith('net-')

/** One side's connections: its sockets' bytes go out as messages, the other side's messages go into its sockets. */
export class Tunnels {
  private readonly entries = new Map<number, Entry>()

  constructor(private readonly send: (message: TunnelMessage) => void) {}

  /** How many connections are open. */
  get size(): number {
    return this.entries.size
  }

  /** Carries `socket` as connection `conn`: its bytes, its end and its close go to the other side. */
  add(conn: number, socket: Socket): void {
    if (this.entries.has(conn)) {
      socket.destroy()
      throw new TunnelProtocolError(`connection ${conn} opened twice`)
    }
    const entry: Entry = { socket, unacked: 0, inflight: 0 }
    this.entries.set(conn, entry)
    socket.on('data', (chunk: Buffer) => {
      entry.unacked += chunk.length
      this.send({ op: 'net-data', conn, data: chunk.toString('base64') })
      if (entry.unacked >= TUNNEL_WINDOW_BYTES) socket.pause()
    })
    socket.on('end', () => {
      if (this.entries.get(conn) === entry) this.send({ op: 'net-end', conn })
    })
    socket.on('error', () => socket.destroy())
    socket.on('close', () => {
      if (this.entries.get(conn) !== entry) return
      this.entries.delete(conn)
      this.send({ op: 'net-close', conn })
    })
  }

  /**
   * A message of the other side; one for a connection this side no longer has is dropped. Throws
   * {@link TunnelProtocolError} when the other side sends more than its window (a sender that ignores the
   * acknowledgements would otherwise make this side buffer without bound).
   */
  receive(message: TunnelMessage): void {
    const entry = this.entries.get(message.conn)
    if (entry === undefined) return
    switch (message.op) {
      case 'net-data': {
        const bytes = Buffer.from(message.data, 'base64')
        entry.inflight += bytes.length
        // One socket read past the window is normal: the sender pauses only after the read that crossed it.
        if (entry.inflight > 2 * TUNNEL_WINDOW_BYTES) throw new TunnelProtocolError(`connection ${message.conn} sent past its window`)
        entry.socket.write(bytes, (error) => {
          if (error !== undefined && error !== null) return
          entry.inflight -= bytes.length
          if (this.entries.get(message.conn) === entry) this.send({ op: 'net-ack', conn: message.conn, bytes: bytes.length })
        })
        break
      }
      case 'net-ack':
        entry.unacked -= message.bytes
        if (entry.unacked < TUNNEL_WINDOW_BYTES && entry.socket.isPaused()) entry.socket.resume()
        break
      case 'net-end':
        entry.socket.end()
        break
      case 'net-close':
        this.entries.delete(message.conn)
        entry.socket.destroy()
        break
      case 'net-open':
        break
    }
  }

  /** Destroys every connection without telling the other side (it is going away too). */
  destroyAll(): void {
    const sockets = [...this.entries.values()].map((entry) => entry.socket)
    this.entries.clear()
    for (const socket of sockets) socket.destroy()
  }
}

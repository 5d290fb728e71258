// The Docker Engine API over node:http: a unix socket (podman's `system service`, dockerd) or TCP with TLS. Only
// what the executor needs: version, create, attach (hijacked, demultiplexed), start, inspect, list, remove.
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { Duplex } from 'node:stream'

/** Where the engine's API is served. */
export type ContainerEngineEndpoint =
  | { readonly socketPath: string }
  | {
      /** `https://host:port` (TLS, as `dockerd --tlsverify` serves it) or `http://host:port` (loopback tests only). */
      readonly url: string
      /** PEM: the CA that signed the engine's certificate, the client's certificate and key. */
      readonly ca?: string | Buffer | undefined
      readonly cert?: string | Buffer | undefined
      readonly key?: string | Buffer | undefined
    }

/** The API version spoken: 1.41, which podman 4 and Docker 20.10+ both serve. */
export const ENGINE_API_VERSION = '1.41'

/** A request to the engine failed: `status` is the HTTP status (0 when none came back). */
export class EngineRequestError extends Error {
  override readonly name = 'EngineRequestError'
  constructor(
    message: string,
    readonly status: number,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

/** One frame of an attached, non-TTY stream: 1 = stdout, 2 = stderr. */
export type EngineStreamListener = (stream: 1 | 2, chunk: Buffer) => void

/** A hijacked attach connection: write to the container's stdin, frames arrive through the listener. */
export interface EngineAttachment {
  write(data: string | Buffer): boolean
  /** Ends stdin (the keeper sees EOF). */
  end(): void
  /** Drops the connection at once. */
  destroy(): void
  readonly socket: Duplex
}

export class EngineClient {
  private readonly base: RequestOptions
  private readonly secure: boolean

  constructor(readonly endpoint: ContainerEngineEndpoint) {
    if ('socketPath' in endpoint) {
      this.base = { socketPath: endpoint.socketPath }
      this.secure = false
    } else {
      const url = new URL(endpoint.url)
      this.secure = url.protocol === 'https:'
      this.base = {
        host: url.hostname,
        port: url.port === '' ? (this.secure ? 2376 : 2375) : Number(url.port),
        ...(this.secure ? { ca: endpoint.ca, cert: endpoint.cert, key: endpoint.key } : {}),
      }
    }
  }

  /** Where the engine is, for messages. */
  describe(): string {
    return 'socketPath' in this.endpoint ? `unix://${this.endpoint.socketPath}` : this.endpoint.url
  }

  private open(method: string, path: string, headers: Record<string, string>, timeoutMs: number) {
    const options: RequestOptions = { ...this.base, method, path: `/v${ENGINE_API_VERSION}${path}`, headers, timeout: timeoutMs }
    return this.secure ? httpsRequest(options) : httpRequest(options)
  }

  /** One JSON request; rejects with {@link EngineRequestError} on a transport error, a timeout or a status ≥ 400. */
  call<T = unknown>(method: string, path: string, body?: unknown, timeoutMs = 30_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body)
      const request = this.open(method, path, payload === undefined ? {} : { 'content-type': 'application/json' }, timeoutMs)
      request.on('timeout', () => request.destroy(new EngineRequestError(`${method} ${path}: no answer within ${timeoutMs} ms`, 0)))
      request.on('error', (error) =>
        reject(error instanceof EngineRequestError ? error : new EngineRequestError(`${method} ${path}: ${error.message}`, 0, { cause: error })),
      )
      request.on('response', (response: IncomingMessage) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('error', reject)
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          const status = response.statusCode ?? 0
          if (status >= 400) {
            let message = text.trim()
            try {
              message = (JSON.parse(text) as { message?: string }).message ?? message
            } catch {
              // not JSON
            }
            reject(new EngineRequestError(`${method} ${path}: ${status} ${message}`, status))
            return
          }
          if (text === '') resolve(undefined as T)
          else {
            try {
              resolve(JSON.parse(text) as T)
            } catch {
              resolve(text as T)
            }
          }
        })
      })
      request.end(payload)
    })
  }

  /**
   * Attaches to a created container's stdin, stdout and stderr (before it starts, so that nothing it writes is
   * missed). The connection is hijacked; frames are demultiplexed into `listener`; `onClose` runs once when the
   * connection ends for any reason.
   */
  attach(id: string, listener: EngineStreamListener, onClose: (error?: Error) => void, timeoutMs = 30_000): Promise<EngineAttachment> {
    return new Promise((resolve, reject) => {
      const request = this.open(
        'POST',
        `/containers/${encodeURIComponent(id)}/attach?stream=1&stdin=1&stdout=1&stderr=1`,
        { Connection: 'Upgrade', Upgrade: 'tcp' },
        timeoutMs,
      )
      let settled = false
      const wire = (socket: Duplex, head: Buffer): void => {
        settled = true
        ;(socket as Duplex & { setTimeout?: (ms: number) => void }).setTimeout?.(0)
        const demux = frameReader(listener)
        let closed = false
        const close = (error?: Error): void => {
          if (closed) return
          closed = true
          onClose(error)
        }
        socket.on('data', demux)
        socket.on('end', () => close())
        socket.on('close', () => close())
        socket.on('error', (error: Error) => close(error))
        if (head.length > 0) demux(head)
        resolve({
          socket,
          write: (data) => socket.write(data),
          end: () => socket.end(),
          destroy: () => socket.destroy(),
        })
      }
      request.on('upgrade', (_response, socket, head) => wire(socket, head))
      request.on('response', (response: IncomingMessage) => {
        // Some engines answer 200 and stream on the same connection instead of 101.
        if ((response.statusCode ?? 0) >= 400) {
          const chunks: Buffer[] = []
          response.on('data', (chunk: Buffer) => chunks.push(chunk))
          response.on('end', () => reject(new EngineRequestError(`attach: ${response.statusCode} ${Buffer.concat(chunks).toString().trim()}`, response.statusCode ?? 0)))
          return
        }
        wire(response.socket, Buffer.alloc(0))
      })
      request.on('timeout', () => request.destroy(new EngineRequestError(`attach: no answer within ${timeoutMs} ms`, 0)))
      request.on('error', (error) => {
        if (!settled) reject(error instanceof EngineRequestError ? error : new EngineRequestError(`attach: ${error.message}`, 0, { cause: error }))
      })
      request.end()
    })
  }
}

/** Parses the 8-byte-header frames of a non-TTY stream (`[stream, 0, 0, 0, size (BE32)]` + payload). */
export function frameReader(listener: EngineStreamListener): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0)
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
    while (pending.length >= 8) {
      const size = pending.readUInt32BE(4)
      if (pending.length < 8 + size) break
      const stream = pending[0] === 2 ? 2 : 1
      listener(stream, pending.subarray(8, 8 + size))
      pending = pending.subarray(8 + size)
    }
  }
}

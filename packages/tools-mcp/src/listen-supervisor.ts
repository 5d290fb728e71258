import { backoffDelay, FailureWindow } from './backoff.js'
import type { McpListenEvent } from './mcp-events.js'
import type { McpRestartPolicy } from './server-config.js'
import type { McpListenStream } from './session-types.js'

/** JSON-RPC "Method not found": the server does not offer `subscriptions/listen` at all. */
const METHOD_NOT_FOUND = -32601
/** The shortest wait between tries, whatever `restart.initialDelayMs` says: a server that ends every stream at once must not spin us. */
const MIN_DELAY_MS = 100

/** A step of the stream, without the server id (the connection adds it). */
export type ListenTransition = Omit<McpListenEvent, 'server'>

/** What a {@link ListenSupervisor} needs. */
export interface ListenSupervisorOptions {
  /** Opens one stream; rejects when the server refused or the open failed. */
  readonly open: (signal: AbortSignal) => Promise<McpListenStream>
  /** The delays (`initialDelayMs`, `maxDelayMs`) and the window in which closes and failures add up (`windowMs`). */
  readonly policy: McpRestartPolicy
  /** Told of every step, in order; never after {@link ListenSupervisor.stop}. */
  readonly onTransition: (transition: ListenTransition) => void
  /** The jitter source. Default `Math.random`. */
  readonly random?: (() => number) | undefined
}

function isMethodNotFound(error: unknown): boolean {
  return (error as { rpcCode?: unknown } | null)?.rpcCode === METHOD_NOT_FOUND
}

/**
 * Keeps one 2026-07-28 `subscriptions/listen` stream open for a session: the SDK never reopens one, so after a
 * close by the server or the network, or a failed open, it tries again after an exponential backoff with jitter
 * (failures counted within `restart.windowMs`; no circuit breaker: the server's calls still work without the
 * stream, and only the stream tells of changes). At most one stream is open or opening at any time. A server that
 * answers "method not found", or acknowledges without tool changes, is `unsupported` and never retried. Nothing
 * runs after {@link stop}: the retry timer is cleared and an open in flight is aborted.
 */
export class ListenSupervisor {
  readonly #options: ListenSupervisorOptions
  readonly #stop = new AbortController()
  readonly #failures: FailureWindow
  #stream: McpListenStream | undefined
  #opening = false
  #timer: ReturnType<typeof setTimeout> | undefined
  /** A stream closed or an open failed since the last open: the next open is a reopen. */
  #interrupted = false

  constructor(options: ListenSupervisorOptions) {
    this.#options = options
    this.#failures = new FailureWindow(options.policy.windowMs)
  }

  /** Opens the first stream; resolves when that try is over (open, failed with a retry scheduled, or unsupported). Never rejects. */
  start(): Promise<void> {
    return this.#open()
  }

  /** True while a retry is scheduled (for tests and the status). */
  get waiting(): boolean {
    return this.#timer !== undefined
  }

  #tell(transition: ListenTransition): void {
    if (this.#stop.signal.aborted) return
    try {
      this.#options.onTransition(transition)
    } catch {
      // A throwing observer changes nothing here.
    }
  }

  async #open(): Promise<void> {
    if (this.#stop.signal.aborted || this.#opening || this.#stream !== undefined) return
    this.#opening = true
    let stream: McpListenStream
    try {
      stream = await this.#options.open(this.#stop.signal)
    } catch (error) {
      if (this.#stop.signal.aborted) return
      const message = error instanceof Error ? error.message : String(error)
      if (isMethodNotFound(error)) this.#tell({ kind: 'unsupported', message: `the server does not offer subscriptions/listen (${message})` })
      else this.#retry({ kind: 'failed', message })
      return
    } finally {
      this.#opening = false
    }
    if (this.#stop.signal.aborted) {
      void stream.close()
      return
    }
    if (!stream.toolsListChanged) {
      void stream.close()
      this.#tell({ kind: 'unsupported', message: 'the server acknowledged subscriptions/listen but will not send tool list changes on it' })
      return
    }
    this.#stream = stream
    void stream.closed.then((cause) => {
      if (this.#stream !== stream) return
      this.#stream = undefined
      // `local` is this side closing it, which only stop() does.
      if (cause !== 'local') this.#retry({ kind: 'closed', cause })
    })
    const reopened = this.#interrupted
    this.#interrupted = false
    this.#tell({ kind: reopened ? 'reopened' : 'opened' })
  }

  #retry(transition: ListenTransition): void {
    if (this.#stop.signal.aborted) return
    this.#interrupted = true
    const failures = this.#failures.record()
    const { initialDelayMs, maxDelayMs } = this.#options.policy
    const delays = { initialDelayMs: Math.max(MIN_DELAY_MS, initialDelayMs), maxDelayMs: Math.max(MIN_DELAY_MS, maxDelayMs) }
    const retryInMs = backoffDelay(delays, failures, this.#options.random ?? Math.random)
    clearTimeout(this.#timer)
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      void this.#open()
    }, retryInMs)
    this.#tell({ ...transition, retryInMs, failures })
  }

  /**
   * Stops for good, synchronously: clears the retry timer, aborts an open in flight and closes the open stream. The
   * stream's wire teardown (a cancel notification) is not awaited: on a dead network it could hang, and closing
   * the session right after ends it anyway.
   */
  stop(): void {
    this.#stop.abort()
    clearTimeout(this.#timer)
    this.#timer = undefined
    const stream = this.#stream
    this.#stream = undefined
    void stream?.close()
  }
}

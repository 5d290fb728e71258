import { ListenSupervisor, type ListenTransition } from './listen-supervisor.js'
import type { McpListenEvent, McpListenStatus } from './mcp-events.js'
import type { ResolvedMcpServerConfig } from './server-config.js'
import type { McpSession } from './session-types.js'

/** What a {@link ListenChannel} needs from its connection. */
export interface ListenChannelOptions {
  readonly config: ResolvedMcpServerConfig
  /** Lists the tools again through the `list_changed` path (debounced, single-flight, drift-checked, swapped). */
  readonly relist: () => void
  /** A step of the stream, for `mcp/listen`. */
  readonly onEvent: (event: McpListenEvent) => void
  /** The status changed, for `mcp/status`. */
  readonly onStatus: () => void
}

/**
 * How a connection learns of tool changes on 2026-07-28 sessions, whose only channel is a `subscriptions/listen`
 * stream: one {@link ListenSupervisor} per session (reopening the stream, re-listing on every reopen), and when
 * the server offers no stream, a re-list each time the listing's `ttlMs` expires. Holds the status block
 * ({@link McpListenStatus}) across sessions.
 */
export class ListenChannel {
  readonly #options: ListenChannelOptions
  #supervisor: ListenSupervisor | undefined
  #status: McpListenStatus | undefined
  #reopens = 0
  /** The shortest `ttlMs` of the session's last listing. */
  #ttlMs: number | undefined
  #ttlTimer: ReturnType<typeof setTimeout> | undefined
  #disposed = false

  constructor(options: ListenChannelOptions) {
    this.#options = options
  }

  /** The status block; `undefined` on a 2025-era session (its notifications arrive unsolicited). */
  get status(): McpListenStatus | undefined {
    return this.#status
  }

  /** Opens the session's stream (2026-07-28 sessions only); resolves after the first try, whatever its outcome. */
  async open(session: McpSession): Promise<void> {
    const open = session.listenToolsChanged
    if (open === undefined || this.#disposed) {
      this.#status = undefined
      return
    }
    const { config } = this.#options
    const supervisor = new ListenSupervisor({
      open: (signal) => open({ timeoutMs: config.timeouts.connect, signal }),
      policy: config.restart,
      onTransition: (transition) => this.#onTransition(supervisor, transition),
    })
    this.#supervisor = supervisor
    this.#status = { state: 'opening', reopens: this.#reopens }
    await supervisor.start()
  }

  /** A listing succeeded with this `ttlMs`: the status's note reflects it (call before the status goes out). */
  listed(ttlMs: number | undefined): void {
    this.#ttlMs = ttlMs
    this.#describe()
  }

  /** A listing ended (succeeded or failed): without a stream, the next one is due when the ttl expires. */
  armRelist(): void {
    clearTimeout(this.#ttlTimer)
    this.#ttlTimer = undefined
    const every = this.#relistEveryMs()
    if (this.#status?.state !== 'unsupported' || this.#disposed || every === undefined) return
    this.#ttlTimer = setTimeout(() => {
      this.#ttlTimer = undefined
      this.#options.relist()
    }, every)
  }

  /** The session is going away: stop its stream and timers, synchronously (the status shows `closed` until the next session). */
  close(): void {
    const supervisor = this.#supervisor
    this.#supervisor = undefined
    clearTimeout(this.#ttlTimer)
    this.#ttlTimer = undefined
    this.#ttlMs = undefined
    if (this.#status !== undefined) this.#status = { state: 'closed', reopens: this.#reopens, lastEvent: this.#status.lastEvent }
    supervisor?.stop()
  }

  /** For good: nothing opens, re-lists or reports afterwards. */
  dispose(): void {
    this.#disposed = true
    this.close()
  }

  #onTransition(supervisor: ListenSupervisor, transition: ListenTransition): void {
    if (supervisor !== this.#supervisor || this.#disposed) return
    const event: McpListenEvent = { server: this.#options.config.id, ...transition }
    if (transition.kind === 'reopened') this.#reopens += 1
    const state = transition.kind === 'unsupported' ? 'unsupported' : transition.kind === 'opened' || transition.kind === 'reopened' ? 'open' : 'reopening'
    this.#status = { state, reopens: this.#reopens, lastEvent: event }
    this.#describe()
    try {
      this.#options.onEvent(event)
    } catch {}
    // Changes announced while no stream was open are lost: list again.
    if (transition.kind === 'reopened') this.#options.relist()
    if (transition.kind === 'unsupported') this.armRelist()
    this.#options.onStatus()
  }

  /** Fills in the note (and the re-list interval) from the state and the last listing's `ttlMs`. */
  #describe(): void {
    const status = this.#status
    if (status === undefined) return
    const { state, reopens, lastEvent: event } = status
    const base = { state, reopens, lastEvent: event }
    if (state === 'reopening') {
      const why = event?.kind === 'failed' ? `opening it failed (${event.message ?? 'unknown'})` : event?.cause === 'graceful' ? 'the server ended it' : 'it dropped (server or network)'
      this.#status = { ...base, note: `the listen stream is down: ${why}; reopening in ${event?.retryInMs ?? 0} ms, then the tools are listed again` }
    } else if (state === 'unsupported') {
      const every = this.#relistEveryMs()
      const instead = every === undefined ? 'its tools/list gives no ttlMs, so tool changes are seen only after a reconnect' : `the tools are listed again every ${every} ms (its tools/list ttlMs)`
      this.#status = { ...base, relistEveryMs: every, note: `${event?.message ?? 'the server offers no listen stream'}: ${instead}` }
    } else {
      this.#status = base
    }
  }

  #relistEveryMs(): number | undefined {
    return this.#ttlMs === undefined || this.#ttlMs <= 0 ? undefined : Math.max(this.#options.config.minListTtlMs, this.#ttlMs)
  }
}

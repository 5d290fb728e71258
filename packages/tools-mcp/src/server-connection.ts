import type { JsonObject, ToolDefinition, ToolOutputSchema } from '@dsh/tools-core'
import type {} from '@dsh/tools-registry'
import type { Context } from 'cordis'
import { argumentValidationNote, argumentValidator } from './argument-validation.js'
import { httpTokenSource, type HttpTokenSource } from './http-auth.js'
import { callServerTool } from './call-tool.js'
import { RestartBreaker, backoffDelay } from './backoff.js'
import { knownHints, listToolCatalog, planToolsInSlices, type OmittedTools, type PlannedTool } from './discovery.js'
import { ListenChannel } from './listen-channel.js'
import type { McpConnectionState, McpProgressEvent, McpServerStatus } from './mcp-events.js'
import { McpCallError } from './mcp-call-error.js'
import { McpConnectError } from './mcp-connect-error.js'
import { MCP_ERROR_CODES } from './mcp-error-codes.js'
import { openSession } from './sdk-session.js'
import { callBudget, type ResolvedMcpServerConfig } from './server-config.js'
import type { McpSession } from './session-types.js'
import { StdioTransport } from './stdio-transport.js'
import { ToolNameBindings } from './tool-name-bindings.js'
import { quarantinedTool } from './quarantined-tool.js'
import { notify } from './notify.js'
import { acceptingRunInBackground, taskRegistration, withRunInBackground } from './task-policy.js'

const packageVersion = '0.1.0'
const maxDescription = 4_000

interface Registration {
  readonly plan: PlannedTool
  readonly dispose: () => void
}

/** Waits `ms`, or less when `signal` aborts; leaves no listener on `signal` either way. */
const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
  })

/**
 * One MCP server as an effect of a cordis fiber: the process or HTTP session, the tools it registers, the
 * `list_changed` refreshes, crash supervision (restart with backoff, a circuit breaker), and teardown.
 */
type HttpTarget = Extract<ResolvedMcpServerConfig['transport'], { kind: 'http' }>
const tokenSources = new WeakMap<HttpTarget, HttpTokenSource>()

/** An HTTP server's endpoint for the session, with its token source (one per config: a fetched token outlives a reconnect). */
function httpTarget(target: HttpTarget): { url: string; headers: Readonly<Record<string, string>>; tokens?: HttpTokenSource } {
  if (target.auth === undefined) return { url: target.url, headers: target.headers }
  let tokens = tokenSources.get(target)
  if (tokens === undefined) tokenSources.set(target, (tokens = httpTokenSource(target.auth, target.url)))
  return { url: target.url, headers: target.headers, tokens }
}

export class ServerConnection {
  readonly config: ResolvedMcpServerConfig
  readonly #ctx: Context
  #state: McpConnectionState = 'connecting'
  #session: McpSession | undefined
  #transport: StdioTransport | undefined
  #plans: PlannedTool[] = []
  readonly #registered = new Map<string, Registration>()
  /** Registered plans by registry name: the approval listener runs on every call of every tool. */
  #byName = new Map<string, PlannedTool>()
  /** Approved fingerprints by exact wire name (drift is decided on them, never on a registry name). */
  readonly #baseline: Map<string, string>
  /** Which wire name owns each registry name: a second wire name never inherits a first one's name. */
  readonly #names: ToolNameBindings
  /** Stand-ins (`listed: false`) of quarantined tools by wire name: a call by the name says it awaits approval. */
  readonly #held = new Map<string, Registration>()
  #error: { code: string; message: string } | undefined
  /** Tools the last listing held past `maxTools`. */
  #omitted: OmittedTools | undefined
  #restarts = 0
  readonly #breaker: RestartBreaker
  /** The era this server answered with (its first answer, kept across reconnects): `legacy` skips the probe. */
  #knownEra: 'legacy' | 'modern' | undefined
  #waiters: (() => void)[] = []
  readonly #stop = new AbortController()
  #debounce: ReturnType<typeof setTimeout> | undefined
  #refreshing: Promise<void> | undefined
  #refreshAgain = false
  #generation = 0
  /** Tool changes on 2026-07-28 sessions: the listen stream (reopened), or the ttl re-list without one. */
  readonly #listen: ListenChannel

  constructor(ctx: Context, config: ResolvedMcpServerConfig) {
    this.#ctx = ctx
    this.config = config
    this.#baseline = new Map(Object.entries(config.pinned))
    this.#names = new ToolNameBindings(config)
    this.#breaker = new RestartBreaker(config.restart.windowMs)
    this.#listen = new ListenChannel({
      config,
      relist: () => this.#scheduleRefresh(),
      onEvent: (event) => notify(this.#ctx, 'mcp/listen', event),
      onStatus: () => this.#emit(),
    })
  }

  #settled(): boolean {
    return this.#state === 'ready' || this.#state === 'suspended' || this.#state === 'closed'
  }

  /** Moves to `state`; waiters wake when it is a settled one (ready, suspended, closed). */
  #setState(state: McpConnectionState): void {
    this.#state = state
    if (this.#settled()) for (const wake of this.#waiters.splice(0)) wake()
  }

  /** The current snapshot. */
  status(): McpServerStatus {
    return {
      server: this.config.id,
      state: this.#state,
      era: this.#session?.era,
      serverInfo: this.#session?.serverInfo,
      tools: this.#plans.map((plan) => ({
        wireName: plan.wireName,
        name: plan.name,
        state: plan.state,
        fingerprint: plan.fingerprint,
        note: plan.note ?? argumentValidationNote(plan),
        findings: plan.findings,
        asks: plan.policy.ask,
        concurrencySafe: plan.policy.concurrencySafe,
      })),
      error: this.#error,
      restarts: this.#restarts,
      pid: this.#transport?.pid,
      listen: this.#listen.status,
      ...(this.#omitted === undefined ? {} : { omittedTools: this.#omitted }),
    }
  }

  /** Resolves once the server is ready (or the connection is given up). */
  whenSettled(signal?: AbortSignal): Promise<void> {
    if (this.#settled() || signal?.aborted === true) return Promise.resolve()
    return new Promise((resolve) => {
      this.#waiters.push(resolve)
      signal?.addEventListener('abort', () => resolve(), { once: true })
    })
  }

  #emit(): void {
    if (this.#stop.signal.aborted) return // the fiber is going away: nobody to tell
    notify(this.#ctx, 'mcp/status', this.status())
  }

  /** Starts connecting in the background; failures go through the restart policy. */
  start(): void {
    this.#emit() // at once: a server that never answers is otherwise silent until the connect budget runs out
    void this.#connectLoop()
  }

  async #connectLoop(): Promise<void> {
    while (!this.#stop.signal.aborted) {
      try {
        await this.#connect()
        // Listening first: a change between the listing and the stream's opening would be lost otherwise.
        if (this.#session !== undefined) await this.#listen.open(this.#session)
        await this.#refresh()
        if (this.#stop.signal.aborted) return
        this.#error = undefined
        this.#breaker.ready()
        this.#setState('ready')
        this.#emit()
        return
      } catch (error) {
        if (this.#stop.signal.aborted) return
        await this.#dropSession()
        this.#error = describe(error)
        if (!(await this.#backoff())) return
      }
    }
  }

  /** Records a failure; waits the backoff and returns true, or suspends the server (circuit open) and returns false. */
  async #backoff(): Promise<boolean> {
    const { maxRestarts, windowMs } = this.config.restart
    const { failures, inARow } = this.#breaker.failure()
    if (failures > maxRestarts) {
      const counted = inARow === failures ? `${failures} failures in a row without becoming ready` : `${failures} failures within ${windowMs} ms`
      this.#error = { code: MCP_ERROR_CODES.UNAVAILABLE, message: `suspended after ${counted}; last: ${this.#error?.message ?? 'unknown'}` }
      this.#setState('suspended')
      this.#emit()
      return false
    }
    this.#setState('restarting')
    this.#emit()
    await sleep(backoffDelay(this.config.restart, failures), this.#stop.signal)
    this.#restarts += 1
    return !this.#stop.signal.aborted
  }

  async #connect(): Promise<void> {
    const generation = ++this.#generation
    const { transport: target, timeouts, id } = this.config
    let transport: StdioTransport | undefined
    if (target.kind === 'stdio') {
      transport = new StdioTransport({
        command: target.command,
        args: target.args,
        cwd: target.cwd,
        env: target.env,
        maxMessageBytes: this.config.maxMessageBytes,
        stderrTailBytes: this.config.stderrTailBytes,
        killGraceMs: this.config.killGraceMs,
      })
      this.#transport = transport
    }
    const connectSignal = AbortSignal.any([this.#stop.signal, AbortSignal.timeout(timeouts.connect)])
    try {
      if (transport !== undefined) await transport.start()
      this.#session = await openSession({
        transport: transport ?? httpTarget(target as Extract<ResolvedMcpServerConfig['transport'], { kind: 'http' }>),
        clientInfo: { name: 'dsh-tools-mcp', version: packageVersion },
        protocol: this.config.protocol,
        knownEra: this.#knownEra,
        onEra: (era) => {
          if (generation === this.#generation) this.#knownEra = era
        },
        connectTimeoutMs: timeouts.connect,
        closeGraceMs: this.config.killGraceMs,
        signal: connectSignal,
        onToolsChanged: () => this.#scheduleRefresh(),
        // Only a ready connection restarts from here: a close while connecting fails the connect loop instead.
        onClose: () => {
          if (generation === this.#generation && this.#state === 'ready') void this.#onDisconnect()
        },
      })
    } catch (error) {
      const tail = transport?.stderr.text() ?? ''
      const where = target.kind === 'stdio' ? `${target.command} ${target.args.join(' ')}`.trim() : target.url
      throw new McpConnectError(id, `MCP server ${JSON.stringify(id)} (${where}) did not connect: ${error instanceof Error ? error.message : String(error)}`, tail, { cause: error })
    }
  }

  async #dropSession(): Promise<void> {
    this.#generation += 1
    const session = this.#session
    const transport = this.#transport
    this.#session = undefined
    this.#listen.close()
    await session?.close().catch(() => {})
    await transport?.close().catch(() => {})
  }

  /** The connection closed without `stop()`: in-flight calls already failed (the SDK rejects them); restart. */
  async #onDisconnect(): Promise<void> {
    if (this.#stop.signal.aborted) return
    this.#setState('restarting') // at once: a call retried right now must wait for the new session
    const reason = this.#transport?.closeReason
    const tail = this.#transport?.stderr.text() ?? ''
    this.#error = {
      code: reason === 'too-large' ? MCP_ERROR_CODES.RESULT_TOO_LARGE : MCP_ERROR_CODES.SERVER_CRASHED,
      message: `the server ${reason === 'too-large' ? 'sent a message over the size limit and was restarted' : 'closed the connection'}${tail === '' ? '' : `; stderr: ${tail.slice(-2000)}`}`,
    }
    await this.#dropSession()
    if (await this.#backoff()) await this.#connectLoop()
  }

  #scheduleRefresh(): void {
    if (this.#stop.signal.aborted) return
    clearTimeout(this.#debounce)
    this.#debounce = setTimeout(() => {
      this.#debounce = undefined
      // A change announced while the first listing is still running (a slow or paginated list) must not be lost:
      // joining the running refresh makes it list once more.
      if (this.#state === 'ready' || this.#refreshing !== undefined) void this.#refresh().catch((error: unknown) => {
        this.#error = describe(error)
        this.#emit()
      })
    }, this.config.listChangedDebounceMs)
  }

  /** Single-flight: a refresh asked for while one runs runs once more after it. */
  #refresh(): Promise<void> {
    if (this.#refreshing !== undefined) {
      this.#refreshAgain = true
      return this.#refreshing
    }
    const run = async (): Promise<void> => {
      do {
        this.#refreshAgain = false
        const session = this.#session
        if (session === undefined) return
        const { tools, ttlMs, omitted } = await listToolCatalog(session, this.config.maxListPages, this.config.timeouts.list, this.config.maxTools)
        if (this.#stop.signal.aborted || session !== this.#session) return
        this.#listen.listed(ttlMs)
        // Owners first, so a newcomer can never take an owner's name on a first-come basis; arbitrated after.
        // Planned in slices (timers, aborts and other servers run in between); swapped in one step.
        const plans = await planToolsInSlices(this.#names.ownersFirst(tools), this.config, this.#baseline, { taskCalls: session.tasks.toolCalls })
        if (this.#stop.signal.aborted || session !== this.#session) return
        this.#omitted = omitted
        this.#swap(this.#names.arbitrate(plans, tools))
      } while (this.#refreshAgain)
    }
    this.#refreshing = run().finally(() => {
      this.#refreshing = undefined
      this.#listen.armRelist() // after a failed listing too: the next expiry tries again
    })
    return this.#refreshing
  }

  /** Replaces the server's registrations in one synchronous step: no call ever sees half of a listing. */
  #swap(plans: PlannedTool[]): void {
    for (const plan of plans) if (plan.state === 'registered' && !this.#baseline.has(plan.wireName)) this.#baseline.set(plan.wireName, plan.fingerprint)
    const next = new Map(plans.filter((plan) => plan.state === 'registered').map((plan) => [plan.wireName, plan]))
    for (const [wireName, registration] of this.#registered) {
      const plan = next.get(wireName)
      if (
        plan === undefined ||
        plan.fingerprint !== registration.plan.fingerprint ||
        plan.name !== registration.plan.name ||
        plan.taskSupport !== registration.plan.taskSupport ||
        JSON.stringify(plan.policy) !== JSON.stringify(registration.plan.policy)
      ) {
        registration.dispose()
        this.#registered.delete(wireName)
      }
    }
    // A quarantined tool's stand-in goes when the tool is no longer quarantined (or for another reason), or when a
    // tool registers under its name.
    const wanted = new Set([...next.values()].map((plan) => plan.name))
    const quarantined = new Map(plans.filter((plan) => plan.state === 'quarantined').map((plan) => [plan.wireName, plan]))
    for (const [wireName, held] of this.#held) {
      const plan = quarantined.get(wireName)
      if (plan === undefined || plan.name !== held.plan.name || plan.note !== held.plan.note || wanted.has(plan.name)) {
        held.dispose()
        this.#held.delete(wireName)
      }
    }
    const final: PlannedTool[] = []
    for (const plan of plans) {
      if (plan.state !== 'registered' || this.#registered.has(plan.wireName)) {
        // A second entry of a registered wire name (rejected) is reported as itself, not as the registered one.
        final.push(plan.state === 'registered' ? (this.#registered.get(plan.wireName)?.plan ?? plan) : plan)
        continue
      }
      try {
        const dispose = this.#ctx.tools.register(this.#definition(plan))
        this.#registered.set(plan.wireName, { plan, dispose })
        this.#names.bind(plan.name, plan.wireName)
        final.push(plan)
      } catch (error) {
        final.push({ ...plan, state: 'rejected', note: `the registry refused it: ${error instanceof Error ? error.message : String(error)}` })
      }
    }
    const taken = new Set([...this.#registered.values()].map((registration) => registration.plan.name))
    for (const plan of quarantined.values()) {
      if (this.#held.has(plan.wireName) || taken.has(plan.name)) continue
      const owner = this.#names.ownerOf(plan.name)
      try {
        const dispose = this.#ctx.tools.register(quarantinedTool(plan, this.config.id, owner !== undefined && owner !== plan.wireName ? { kind: 'name', owner } : { kind: 'drift' }))
        this.#held.set(plan.wireName, { plan, dispose })
        taken.add(plan.name)
      } catch {
        // Another plugin's tool has the name: a call reaches that tool, as it would without the stand-in.
      }
    }
    this.#plans = final
    this.#byName = new Map([...this.#registered.values()].map((registration) => [registration.plan.name, registration.plan]))
    this.#emit()
  }

  #definition(plan: PlannedTool): ToolDefinition & { annotations?: object } {
    const { definition } = plan
    // A task-capable tool: the task layer (when loaded) reads `execution`; `'optional'` adds `run_in_background`.
    const tasks = taskRegistration(plan, this.config)
    const runInBackground = tasks?.runInBackground === true && plan.parameters !== undefined
    const validator = plan.parameters !== undefined ? argumentValidator(plan.parameters, plan.name) : undefined
    const description = definition.description ?? definition.title ?? `The ${definition.name} tool of the MCP server ${this.config.id}.`
    return {
      name: plan.name,
      description: description.length > maxDescription ? `${description.slice(0, maxDescription)} […]` : description,
      parameters: (runInBackground ? withRunInBackground(plan.parameters as JsonObject) : plan.parameters) as ToolDefinition['parameters'],
      ...(tasks === undefined ? {} : { execution: tasks.execution }),
      // The gated schema, carried so a registry that serves this tool again lists it; results are checked against it
      // (its expanded form) in call-results.ts.
      ...(plan.outputSchema?.type === 'object' ? { outputSchema: plan.outputSchema as unknown as ToolOutputSchema } : {}),
      concurrencySafe: plan.policy.concurrencySafe,
      // The hard cap: @dsh/timeout-policy, when loaded, enforces it as the outer deadline (its timer starts before
      // this client's, so it fires first: TOOL_TIMEOUT); the idle budget that progress resets stays in the client.
      timeoutMs: callBudget(this.config, plan.wireName).totalMs,
      // An untrusted server's hints never reach the registry (which would parallelise on readOnlyHint).
      // Only the four hints (and a short title), whatever else the server put there.
      ...(this.config.trust && typeof definition.annotations === 'object' && definition.annotations !== null ? { annotations: knownHints(definition.annotations) } : {}),
      // Likewise its display title, which a registry serving this tool again lists (an untrusted one's never is).
      ...(this.config.trust && typeof definition.title === 'string' && definition.title !== '' ? { title: definition.title.slice(0, maxDescription) } : {}),
      // Checked against the gated inputSchema before any listener or person sees the call (INVALID_ARGS).
      ...(runInBackground ? { validateArguments: acceptingRunInBackground(validator, plan.name) } : validator !== undefined ? { validateArguments: validator } : {}),
      execute: (args, exec) => callServerTool(this, plan, args, exec, runInBackground),
    }
  }

  /** The registration plan behind a registry name, for the approval listener. */
  planFor(name: string): PlannedTool | undefined {
    return this.#byName.get(name)
  }

  /** Marks the current definitions of `tools` (wire names; default: every quarantined tool) approved and re-plans. */
  async approve(tools?: readonly string[]): Promise<void> {
    for (const plan of this.#plans) {
      if (plan.state !== 'quarantined') continue
      const named = tools !== undefined && tools.includes(plan.wireName)
      if (this.#names.heldByAnother(plan)) {
        // A name changes hands only when a person names the tool: approving everything never picks between two.
        if (!named) continue
        this.#names.transfer(plan.name, plan.wireName)
      } else if (!named && tools !== undefined) continue
      this.#baseline.set(plan.wireName, plan.fingerprint)
    }
    if (this.#state === 'ready') await this.#refresh()
  }

  /** A connected session for a call, waiting for a restart in progress within `signal` and the connect budget. */
  async session(signal: AbortSignal): Promise<McpSession> {
    if (this.#state !== 'ready' || this.#session === undefined) {
      await this.whenSettled(AbortSignal.any([signal, AbortSignal.timeout(this.config.timeouts.connect)]))
    }
    const session = this.#session
    if (this.#state === 'ready' && session !== undefined) return session
    signal.throwIfAborted()
    throw new McpCallError(MCP_ERROR_CODES.UNAVAILABLE, `The MCP server ${JSON.stringify(this.config.id)} is ${this.#state}${this.#error === undefined ? '' : ` (${this.#error.message})`}.`, this.config.id)
  }

  /** Fires when the plugin is being unloaded (`stop()`): a call following an MCP task stops polling at once. */
  get stopSignal(): AbortSignal {
    return this.#stop.signal
  }

  /** True once the plugin is being unloaded (`stop()`): a call it interrupts says so, not "restarting". */
  get unloaded(): boolean {
    return this.#stop.signal.aborted
  }

  /** Why the last connection ended, for a call it interrupted. */
  get closeReason(): string | undefined {
    return this.#transport?.closeReason
  }

  /** Emits a progress event of a call. */
  emitProgress(event: McpProgressEvent): void {
    notify(this.#ctx, 'mcp/progress', event)
  }

  /** Ends everything: timers, the session, the whole process group; unregisters the tools. */
  async stop(): Promise<void> {
    // A host may await this from a plain script: whatever the shutdown waits on (a timer of ours or of the SDK that
    // does not hold the loop), the process stays alive until it settles, or Node exits with code 13 mid-dispose.
    const keepAlive = setInterval(() => {}, 60_000)
    try {
      await this.#shutdown()
    } finally {
      clearInterval(keepAlive)
    }
  }

  async #shutdown(): Promise<void> {
    this.#stop.abort()
    clearTimeout(this.#debounce)
    this.#listen.dispose()
    this.#setState('closed')
    for (const registration of this.#registered.values()) registration.dispose()
    this.#registered.clear()
    for (const held of this.#held.values()) held.dispose()
    this.#held.clear()
    this.#byName = new Map()
    await this.#dropSession()
  }
}

function describe(error: unknown): { code: string; message: string } {
  const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : MCP_ERROR_CODES.CONNECT_FAILED
  return { code, message: error instanceof Error ? error.message : String(error) }
}

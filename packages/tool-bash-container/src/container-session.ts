import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { chmod, copyFile } from 'node:fs/promises'
import { connect } from 'node:net'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { BashConfigError, BashRequestError, BashSpawnError, createCommandEnvironment, type BashResult, type ResolvedBashRequest } from '@dsh/tool-bash'
import type { AgentError, AgentMessage, AgentRequest, ContainerFacts, HostMessage } from './agent-protocol.js'
import { AGENT_LOG_CHARACTERS, AgentProtocolError, LineSplitter, agentStreamLimits, readAgentMessage, type AgentStreamLimits } from './agent-stream.js'
import { AGENT_BOOTSTRAP, readAgentSource } from './agent-source.js'
import { mountsHostNode, type ResolvedContainerBashConfig } from './container-config.js'
import { ContainerUnavailableError } from './container-unavailable-error.js'
import { EngineClient, EngineRequestError, type EngineAttachment } from './engine-client.js'
import { TUNNEL_MAX_CONNECTIONS, TunnelProtocolError, Tunnels, isTunnelMessage } from './net-tunnel.js'
import { RemoteTask } from './remote-task.js'
import { containerSeccompProfile } from './seccomp-profile.js'

/** The label every session container carries; its value is the owner (`host/pid`). */
export const OWNER_LABEL = 'dev.dsh.tool-bash-container.owner'
/** The label naming the executor instance. */
export const SESSION_LABEL = 'dev.dsh.tool-bash-container.session'

/** How long the start-up sweep lets a dead owner's running container go by itself before it removes it. */
const SWEEP_GRACE_MS = 2_000

/** Extra time the host waits past a command's timeout and grace before it gives up on the agent. */
const HOST_DEADLINE_SLACK_MS = 5_000

/** `@dsh/tool-bash-sandbox`, loaded only for a network allow list (an optional peer dependency). */
type SandboxModule = typeof import('@dsh/tool-bash-sandbox')

/** The allow-list proxy of a session and what it refused. */
interface SessionProxy {
  readonly proxy: InstanceType<SandboxModule['NetworkProxy']>
  readonly path: string
  readonly port: number
  readonly environment: Record<string, string>
}

/** Which engine answered. */
export type ContainerEngineKind = 'podman' | 'docker'

/** What the start-up sweep removed: containers whose owner process is gone. */
export interface SweptContainer {
  readonly id: string
  readonly owner: string
}

const ownerValue = (): string => `${hostname()}/${process.pid}`

function ownerAlive(owner: string): boolean {
  const [host, pidText] = owner.split('/')
  if (host !== hostname()) return true
  const pid = Number(pidText)
  if (!Number.isSafeInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The name of an executor's private directory (the seccomp profile a local podman reads): then the owner's pid. */
const PRIVATE_DIR_PREFIX = 'dsh-container-'

/**
 * Removes the private directories of executors whose process is gone (a host killed by SIGKILL leaves its own):
 * `report` says which, `log` what could not be removed.
 */
function sweepPrivateDirs(log: (message: string, error?: unknown) => void, report: (message: string) => void): void {
  let names: string[]
  try {
    names = readdirSync(tmpdir())
  } catch {
    return
  }
  const removed: string[] = []
  const privateDir = new RegExp(`^${PRIVATE_DIR_PREFIX}(\\d+)-[A-Za-z0-9]{6}$`)
  for (const name of names) {
    const match = privateDir.exec(name)
    if (match === null || Number(match[1]) === process.pid || ownerAlive(`${hostname()}/${match[1]}`)) continue
    try {
      rmSync(join(tmpdir(), name), { recursive: true, force: true })
      removed.push(name)
    } catch (error) {
      log(`removing the stale directory ${name} failed`, error)
    }
  }
  if (removed.length > 0) report(`removed ${removed.length} private director${removed.length === 1 ? 'y' : 'ies'} left by dead owners: ${removed.join(', ')}`)
}

/** This process's execute-only copy of its node binary while sessions use it (one copy, shared). */
let nodeCopy: { readonly directory: string; readonly path: Promise<string>; users: number } | null = null

/**
 * The node binary a protected agent runs from: a copy of this process's, mode 0111, in a private directory. A process
 * started from a file it cannot read is not dumpable, so nothing of the commands' (no capability) can open its
 * `/proc` entries. Made when the first session needs it and removed when the last one closes
 * ({@link releaseNodeCopy}); a host killed meanwhile leaves it to the next start-up sweep.
 */
function acquireNodeCopy(): Promise<string> {
  if (nodeCopy === null) {
    const directory = mkdtempSync(join(tmpdir(), `${PRIVATE_DIR_PREFIX}${process.pid}-`))
    const path = join(directory, 'node')
    nodeCopy = { directory, path: copyFile(process.execPath, path).then(() => chmod(path, 0o111)).then(() => path), users: 0 }
  }
  nodeCopy.users += 1
  return nodeCopy.path
}

/** One user fewer; the last one removes the copy (synchronously: also called from a dying host). */
function releaseNodeCopy(): void {
  if (nodeCopy === null) return
  nodeCopy.users -= 1
  if (nodeCopy.users > 0) return
  rmSync(nodeCopy.directory, { recursive: true, force: true })
  nodeCopy = null
}

const toError = (error: AgentError, cwd: string): Error =>
  error.name === 'BashRequestError' ? new BashRequestError(error.field ?? 'request', error.message) : new BashSpawnError(error.message, error.cwd ?? cwd)

/** The session container of one executor: created at load, its agent driven over one attach connection. */
export class ContainerSession {
  readonly engine: EngineClient
  engineKind: ContainerEngineKind = 'docker'
  engineVersion = ''
  containerId = ''
  facts: ContainerFacts | null = null
  swept: SweptContainer[] = []
  private attachment: EngineAttachment | null = null
  private readonly streamLimits: AgentStreamLimits
  private readonly lines: LineSplitter
  private agentLogged = 0
  private serial = 0
  private readonly resolving = new Map<number, { resolve: (value: ResolvedBashRequest) => void; reject: (error: Error) => void; cwd: string }>()
  private readonly running = new Map<number, RemoteTask>()
  private readonly starting = new Map<number, () => void>()
  private ready: { resolve: (facts: ContainerFacts) => void; reject: (error: Error) => void } | null = null
  private closedBecause: string | null = null
  private privateDir: string | null = null
  private network: SessionProxy | null = null
  /** True once close() removed the container (a second close() does not ask the engine again). */
  private removed = false
  /** True while this session uses the shared execute-only copy of node. */
  private holdsNodeCopy = false
  private readonly tunnels = new Tunnels((message) => this.send(message))
  /** Per running command: how many denials the proxy had recorded when it started. */
  private readonly deniedFrom = new Map<number, number>()
  private readonly sessionId = `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`

  constructor(
    readonly config: ResolvedContainerBashConfig,
    private readonly log: (message: string, error?: unknown) => void,
    /** Routine housekeeping (a dead owner's temporary directory removed): not a warning. */
    private readonly info: (message: string) => void = (message) => log(message),
  ) {
    this.engine = new EngineClient(config.engine)
    this.streamLimits = agentStreamLimits(config.local.outputWindowBytes)
    this.lines = new LineSplitter(this.streamLimits.maxLineBytes)
  }

  get closed(): boolean {
    return this.closedBecause !== null
  }

  private unavailable(reason: ConstructorParameters<typeof ContainerUnavailableError>[0], problem: string, fix: string, cause?: unknown): ContainerUnavailableError {
    return new ContainerUnavailableError(reason, problem, fix, cause === undefined ? undefined : { cause })
  }

  /**
   * Connects, sweeps containers of dead owners, creates and starts the container, and runs the agent's preflight.
   * Whatever fails, what was made so far (proxy, container, private files) is removed before the error is thrown.
   */
  async open(): Promise<void> {
    try {
      await this.openSteps()
    } catch (error) {
      await this.close()
      throw error
    }
  }

  /** Why the engine did not answer `GET /version`, and what to do: a TLS refusal and plain HTTP to TLS get their own fix. */
  private unreachable(error: unknown): ContainerUnavailableError {
    const where = this.engine.describe()
    const message = (error as Error).message.trim()
    const code = String(((error as { cause?: { code?: unknown } }).cause ?? {}).code ?? '')
    if (/^(ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|SELF_SIGNED_CERT|DEPTH_ZERO_SELF_SIGNED)/.test(code)) {
      return this.unavailable(
        'engine-unreachable',
        `the engine at ${where} refused the TLS handshake, or its certificate did not verify (${message})`,
        "pass `engine.ca` (the CA that signed the engine's certificate) and `engine.cert` / `engine.key` (a client certificate the engine trusts)",
        error,
      )
    }
    if (error instanceof EngineRequestError && error.status === 400 && /HTTP request to an HTTPS server/i.test(message)) {
      return this.unavailable(
        'engine-unreachable',
        `the engine at ${where} speaks TLS (${message})`,
        'use an `https://` URL with `engine.ca`, `engine.cert` and `engine.key`',
        error,
      )
    }
    return this.unavailable(
      'engine-unreachable',
      `no container engine answers at ${where} (${message})`,
      'start one: `podman system service --time=0 unix:///run/podman/podman.sock` (or dockerd), or set `engine` to where it listens',
      error,
    )
  }

  /** This session's private directory on the host (mode 0700; the owner's pid in its name, for the sweep). */
  private ensurePrivateDir(): string {
    // The owner's pid in the name: a host killed by SIGKILL cannot remove it, and the next start-up sweep does.
    this.privateDir ??= mkdtempSync(join(tmpdir(), `${PRIVATE_DIR_PREFIX}${process.pid}-`))
    return this.privateDir
  }

  /** Starts the allow-list proxy on a unix socket in the private directory (the tunnelled connections go there). */
  private async startProxy(allow: readonly string[], resolve: ((host: string) => Promise<readonly string[]>) | undefined): Promise<void> {
    let sandbox: SandboxModule
    try {
      sandbox = await import('@dsh/tool-bash-sandbox')
    } catch (error) {
      throw this.unavailable(
        'network-unavailable',
        'a network allow list needs the allow-list proxy of @dsh/tool-bash-sandbox, which cannot be loaded',
        "install it (`npm install @dsh/tool-bash-sandbox`), or leave `network` 'off'",
        error,
      )
    }
    const issues: string[] = []
    const rules = allow.flatMap((entry, index) => {
      try {
        return [sandbox.parseNetworkAllowEntry(entry)]
      } catch (error) {
        issues.push(`network.allow[${index}]: ${(error as Error).message}`)
        return []
      }
    })
    if (issues.length > 0) throw new BashConfigError(issues)
    const proxy = new sandbox.NetworkProxy({ rules, ...(resolve === undefined ? {} : { resolve }) })
    const path = join(this.ensurePrivateDir(), 'proxy.sock')
    await proxy.listen(path)
    this.network = { proxy, path, port: sandbox.PROXY_PORT, environment: sandbox.proxyEnvironment(sandbox.PROXY_PORT) }
  }

  private async openSteps(): Promise<void> {
    const timeoutMs = this.config.startTimeoutMs
    if (this.config.network !== null) await this.startProxy(this.config.network.allow, this.config.network.resolve)
    let version: { Version?: string; Components?: { Name?: string }[] }
    try {
      version = await this.engine.call('GET', '/version', undefined, timeoutMs)
    } catch (error) {
      throw this.unreachable(error)
    }
    this.engineKind = (version.Components ?? []).some((component) => /podman/i.test(component.Name ?? '')) ? 'podman' : 'docker'
    this.engineVersion = version.Version ?? ''
    this.swept = await this.sweepDeadOwners()
    const agentSource = await readAgentSource()
    let hostNode = process.execPath
    if (mountsHostNode(this.config) && this.config.protectAgent) {
      this.holdsNodeCopy = true
      try {
        hostNode = await acquireNodeCopy()
      } catch (error) {
        throw this.unavailable(
          'create-failed',
          `the execute-only copy of node for the agent could not be made in ${tmpdir()} (${(error as Error).message})`,
          'free space in the temporary directory (the copy is about the size of the node binary), or set protectAgent: false',
          error,
        )
      }
    }
    const body = this.createBody(hostNode)
    let created: { Id: string }
    try {
      created = await this.engine.call('POST', '/containers/create', body, timeoutMs)
    } catch (error) {
      const missing = error instanceof EngineRequestError && error.status === 404
      throw this.unavailable(
        missing ? 'image-missing' : 'create-failed',
        missing ? `the image ${this.config.image} is not in the engine's store` : `the engine refused to create the container (${(error as Error).message})`,
        missing ? `import or pull it first (\`podman import rootfs.tar ${this.config.image}\`)` : 'check the engine log and the limits asked for',
        error,
      )
    }
    this.containerId = created.Id
    try {
      this.attachment = await this.engine.attach(created.Id, (stream, chunk) => this.frame(stream, chunk), (error) => this.lost(error), timeoutMs)
      const facts = new Promise<ContainerFacts>((resolve, reject) => (this.ready = { resolve, reject }))
      // Rejected by lost() also when a step below fails first, and then never awaited: never an unhandled rejection.
      facts.catch(() => undefined)
      await this.engine.call('POST', `/containers/${created.Id}/start`, undefined, timeoutMs)
      this.attachment.write(`${Buffer.byteLength(agentSource)}\n${agentSource}`)
      const env = this.network === null ? this.config.local.env : { ...this.config.local.env, ...this.network.environment }
      this.send({ op: 'init', config: { ...this.config.local, env, tempDir: '/tmp' }, probeUserNamespace: true, proxyPort: this.network?.port ?? null })
      let timer: NodeJS.Timeout | undefined
      const limit = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the agent did not report ready within ${timeoutMs} ms`)), timeoutMs)
      })
      try {
        this.facts = await Promise.race([facts, limit])
      } finally {
        clearTimeout(timer)
      }
    } catch (error) {
      if (ContainerUnavailableError.isInstance(error)) throw error
      if (error instanceof EngineRequestError && error.status >= 400) {
        // The engine answered: it could not attach or start (a runtime error, a limit it cannot set), not the agent.
        throw this.unavailable('create-failed', `the engine could not start the container (${error.message})`, 'check the engine log and the limits asked for', error)
      }
      throw this.unavailable(
        'agent-failed',
        `the agent in the container did not start (${(error as Error).message})`,
        this.config.agentNode === 'node'
          ? 'use an image with node ≥ 20 on its PATH, or agentNode: "host" with a local engine and a glibc image'
          : 'use a glibc image with bash (Debian, Ubuntu), or an image with node and agentNode: "image"',
        error,
      )
    }
    const problems = this.preflightProblems(this.facts)
    if (problems.length > 0) {
      throw this.unavailable(
        problems.some((problem) => problem.startsWith('limit')) ? 'limit-not-enforced' : 'confinement-not-enforced',
        `read back from inside the container, ${problems.join('; ')}`,
        'run a rootful engine on cgroups that enforce memory and pids limits (rootless podman on cgroup v1 ignores them), or lower the configured limits to what the engine enforces',
      )
    }
  }

  private createBody(hostNode: string): Record<string, unknown> {
    const { config } = this
    const local = config.local
    const binds = [`${local.cwd}:${local.cwd}:rw`]
    for (const mount of config.mounts) binds.push(`${mount.source}:${mount.target}:${mount.readOnly ? 'ro' : 'rw'}`)
    if (mountsHostNode(config)) binds.push(`${hostNode}:${config.agentNode}:ro`)
    let seccomp: string
    if (config.seccompProfilePath !== null) seccomp = config.seccompProfilePath
    else if (this.engineKind === 'podman') {
      // podman reads the profile from a path on its own machine (local engines only; remote: seccompProfilePath).
      seccomp = join(this.ensurePrivateDir(), 'seccomp.json')
      writeFileSync(seccomp, JSON.stringify(containerSeccompProfile()), { mode: 0o644 })
    } else seccomp = JSON.stringify(containerSeccompProfile())
    // What the deployment named (`env`, `allowEnv`), filtered as tool-bash filters a command's environment (denyEnv,
    // secret-looking names reached by a glob, shell hooks): the agent's executor filters again, but the container's
    // own environment is readable in /proc/1/environ. The host's defaults (PATH, HOME, …) are the image's business.
    const admitted = createCommandEnvironment(process.env, { allowEnv: local.allowEnv, denyEnv: local.denyEnv, env: local.env })
    const named = (name: string): boolean => Object.hasOwn(local.env ?? {}, name) || (local.allowEnv ?? []).some((pattern) => globMatch(pattern, name))
    const env = Object.entries(admitted)
      .filter(([name]) => named(name))
      .map(([name, value]) => `${name}=${value}`)
    return {
      Image: config.image,
      Cmd: [config.agentNode, '-e', AGENT_BOOTSTRAP],
      Env: env,
      WorkingDir: local.cwd,
      User: config.user,
      Labels: { [OWNER_LABEL]: ownerValue(), [SESSION_LABEL]: this.sessionId },
      OpenStdin: true,
      StdinOnce: true,
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      NetworkDisabled: true,
      HostConfig: {
        NetworkMode: 'none',
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges', `seccomp=${seccomp}`],
        ReadonlyRootfs: true,
        // A working directory that is /tmp itself is the writable /tmp.
        Tmpfs: {
          ...(local.cwd === '/tmp' ? {} : { '/tmp': `rw,nosuid,nodev,size=${config.tmpfsBytes}` }),
          '/run': 'rw,nosuid,nodev,noexec,size=16m',
        },
        Binds: binds,
        Memory: config.memoryBytes,
        MemorySwap: config.memoryBytes,
        PidsLimit: config.pidsLimit,
        ...(config.cpus === null ? {} : { NanoCpus: Math.round(config.cpus * 1e9) }),
        Ulimits: [
          { Name: 'nofile', Soft: config.nofile, Hard: config.nofile },
          { Name: 'nproc', Soft: config.nproc, Hard: config.nproc },
        ],
        Init: true,
        AutoRemove: true,
      },
    }
  }

  private preflightProblems(facts: ContainerFacts): string[] {
    const { config } = this
    const problems: string[] = []
    if (facts.memoryBytes === null || facts.memoryBytes > config.memoryBytes) problems.push(`limit: memory is ${facts.memoryBytes ?? 'unlimited'}, not ${config.memoryBytes}`)
    if (facts.memorySwapBytes !== null && facts.memorySwapBytes > config.memoryBytes) problems.push(`limit: memory+swap is ${facts.memorySwapBytes}, not ${config.memoryBytes}`)
    if (facts.pidsLimit === null || facts.pidsLimit > config.pidsLimit) problems.push(`limit: pids is ${facts.pidsLimit ?? 'unlimited'}, not ${config.pidsLimit}`)
    if (config.cpus !== null && (facts.cpus === null || facts.cpus > config.cpus * 1.001)) problems.push(`limit: CPU is ${facts.cpus ?? 'unlimited'}, not ${config.cpus}`)
    if (facts.nofile === null || facts.nofile > config.nofile) problems.push(`limit: open files is ${facts.nofile ?? 'unlimited'}, not ${config.nofile}`)
    if (!/^0+$/.test(facts.capEff)) problems.push(`capabilities are not dropped (CapEff ${facts.capEff})`)
    if (!facts.noNewPrivs) problems.push('no-new-privileges is off')
    if (facts.seccomp !== 2) problems.push('no seccomp filter is in force')
    if (facts.userNamespace === true) problems.push('a new user namespace can be created')
    if (facts.interfaces.length > 0) problems.push(`network interfaces besides lo: ${facts.interfaces.join(', ')}`)
    if (!facts.readOnlyRoot) problems.push('the root file system is writable')
    if (config.protectAgent && facts.agentInspectable !== false) {
      problems.push(facts.agentInspectable === null ? "whether a command can open the agent's /proc entries could not be checked" : "a command can open the agent's /proc entries (it runs from a readable binary)")
    }
    return problems
  }

  /** Removes labelled containers whose owner process (on this host) is gone; returns them. */
  private async sweepDeadOwners(): Promise<SweptContainer[]> {
    const filters = encodeURIComponent(JSON.stringify({ label: [OWNER_LABEL] }))
    type Listed = { Id: string; State?: string; Labels?: Record<string, string> }
    const deadOwners = async (): Promise<Listed[]> =>
      (await this.engine.call<Listed[]>('GET', `/containers/json?all=1&filters=${filters}`, undefined, this.config.startTimeoutMs)).filter(
        (container) => !ownerAlive(container.Labels?.[OWNER_LABEL] ?? ''),
      )
    let list: Listed[]
    try {
      list = await deadOwners()
      // A running one whose owner just died is being taken down by its keeper (its attach connection ended): give it
      // SWEEP_GRACE_MS to go by itself, so that only what is really stuck is removed and reported.
      const until = Date.now() + SWEEP_GRACE_MS
      while (list.some((container) => container.State === 'running') && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        list = await deadOwners()
      }
    } catch (error) {
      this.log('listing containers for the start-up sweep failed', error)
      return []
    }
    const swept: SweptContainer[] = []
    for (const container of list) {
      const owner = container.Labels?.[OWNER_LABEL] ?? ''
      try {
        await this.engine.call('DELETE', `/containers/${container.Id}?force=1`, undefined, this.config.startTimeoutMs)
        swept.push({ id: container.Id, owner })
      } catch (error) {
        if (!(error instanceof EngineRequestError && error.status === 404)) this.log(`removing the stale container ${container.Id} failed`, error)
      }
    }
    if (swept.length > 0) this.log(`removed ${swept.length} container(s) left by dead owners: ${swept.map((item) => `${item.id.slice(0, 12)} (${item.owner})`).join(', ')}`)
    sweepPrivateDirs((message, error) => this.log(message, error), this.info)
    return swept
  }

  private send(message: HostMessage): void {
    if (this.attachment === null || this.closed) return
    this.attachment.write(`${JSON.stringify(message)}\n`)
  }

  /**
   * One frame of the attach stream. Its standard error is logged up to {@link AGENT_LOG_CHARACTERS} characters per session (a
   * command can write there too). Its standard output carries the protocol: a line that is not a message, or one
   * past the bound, ends the session with the reason, as a container that died would.
   */
  private frame(stream: 1 | 2, chunk: Buffer): void {
    if (this.closed) return
    if (stream === 2) {
      this.agentLog(chunk.toString('utf8').trimEnd())
      return
    }
    try {
      for (const line of this.lines.push(chunk)) {
        if (this.closed) return
        if (line.trim() !== '') this.message(readAgentMessage(line, this.streamLimits))
      }
    } catch (error) {
      if (!(error instanceof AgentProtocolError)) throw error
      this.violated(error.message)
    }
  }

  /** Logs text that came from the container (its standard error, a fatal message), {@link AGENT_LOG_CHARACTERS} per session at most. */
  private agentLog(text: string): void {
    const room = AGENT_LOG_CHARACTERS - this.agentLogged
    if (room <= 0) return
    this.agentLogged += text.length
    this.log(`container agent: ${text.slice(0, room)}`)
    if (this.agentLogged >= AGENT_LOG_CHARACTERS) this.log(`container agent: ${AGENT_LOG_CHARACTERS} characters logged from the container; the rest of this session's is not`)
  }

  /**
   * The agent's output stopped being the protocol (a command can write into the agent's pipes): the session ends as
   * if the container had died, every running call with a note, and the container goes (the agent sees its input end).
   */
  private violated(what: string): void {
    this.log(`the container agent's output could not be read (${what}); ending the session`)
    this.lost(undefined, `the container agent's output could not be read (${what}; a command may have written into the agent's pipes)`)
    this.attachment?.destroy()
  }

  private message(message: AgentMessage): void {
    if (isTunnelMessage(message)) {
      try {
        if (message.op !== 'net-open') this.tunnels.receive(message)
        else if (this.network === null || this.tunnels.size >= TUNNEL_MAX_CONNECTIONS) this.send({ op: 'net-close', conn: message.conn })
        else this.tunnels.add(message.conn, connect(this.network.path))
      } catch (error) {
        if (!(error instanceof TunnelProtocolError)) throw error
        this.violated(error.message)
      }
      return
    }
    switch (message.op) {
      case 'ready':
        this.ready?.resolve(message.facts)
        break
      case 'fatal':
        this.ready?.reject(new Error(message.message))
        this.agentLog(`failed: ${message.message}`)
        break
      case 'resolved': {
        const waiter = this.resolving.get(message.id)
        this.resolving.delete(message.id)
        if (waiter === undefined) break
        if (message.value !== undefined) waiter.resolve(Object.freeze({ ...message.value }))
        else waiter.reject(toError(message.error ?? { name: 'Error', message: 'unknown' }, waiter.cwd))
        break
      }
      case 'started': {
        const task = this.running.get(message.id)
        if (task !== undefined) {
          task.pid = message.pid
          task.startedAt = message.startedAt
        }
        this.starting.get(message.id)?.()
        this.starting.delete(message.id)
        break
      }
      case 'out':
        this.running.get(message.id)?.output(message.stream, Buffer.from(message.data, 'base64'))
        break
      case 'done': {
        const task = this.running.get(message.id)
        const result = task === undefined || message.result === undefined ? undefined : this.withNetwork(message.id, message.result)
        this.forget(message.id)
        if (task === undefined) break
        if (result !== undefined) task.completed(result)
        else task.failed(toError(message.error ?? { name: 'Error', message: 'unknown' }, task.cwd) as BashSpawnError)
        break
      }
      case 'swept':
        this.agentLog(`killed ${message.pids.length} process(es) a stopped command left in the container`)
        break
    }
  }

  /**
   * A finished command's result with the executor's facts: the container, the engine and, with an allow list, what
   * the proxy refused while the command ran (a note names it). The proxy serves the whole session, so a refusal
   * during two overlapping commands is counted for both.
   */
  private withNetwork(id: number, result: BashResult): BashResult {
    const base = { container: this.containerId.slice(0, 12), engine: this.engineKind }
    if (this.network === null) return Object.freeze({ ...result, executorMeta: Object.freeze(base) })
    const allowed = this.config.network?.allow ?? []
    const denials = this.network.proxy.denials.slice(this.deniedFrom.get(id) ?? this.network.proxy.denials.length).map((denial) => ({ ...denial }))
    let note = result.note
    if (denials.length > 0) {
      const refused = denials.map((denial) => `${denial.host}:${denial.port} (${denial.reason})`).join(', ')
      const denialNote = `Note: the container's network policy refused ${refused}; only ${allowed.join(', ')} can be reached, and the policy cannot be changed from here.`
      note = note === undefined ? denialNote : `${note}\n${denialNote}`
    }
    return Object.freeze({
      ...result,
      ...(note === undefined ? {} : { note }),
      executorMeta: Object.freeze({ ...base, network: { allow: [...allowed], denials } }),
    })
  }

  /** The attach connection ended: the container (or the engine) is gone; every waiting call ends now. */
  private lost(error?: Error, because?: string): void {
    if (this.closedBecause !== null) return
    this.closedBecause = because ?? (error === undefined ? 'the container stopped or its engine went away' : `the connection to the container failed (${error.message})`)
    this.ready?.reject(new Error(this.closedBecause))
    for (const waiter of this.resolving.values()) waiter.reject(new BashSpawnError(`cannot run the command: ${this.closedBecause}`, waiter.cwd))
    this.resolving.clear()
    this.tunnels.destroyAll()
    for (const [id, task] of this.running) this.abandon(id, task, `${this.closedBecause} before the command finished`)
  }

  /** A command is over for the host: out of the tables, and whoever waits for its start is released. */
  private forget(id: number): void {
    this.running.delete(id)
    this.deniedFrom.delete(id)
    this.starting.get(id)?.()
    this.starting.delete(id)
  }

  private abandon(id: number, task: RemoteTask, why: string): void {
    this.forget(id)
    const empty = Object.freeze({ head: '', tail: '', omittedBytes: 0, totalBytes: 0, spill: null })
    const result: BashResult = Object.freeze({
      command: task.command,
      cwd: task.cwd,
      pid: task.pid,
      exitCode: null,
      signal: null,
      timedOut: false,
      aborted: false,
      stopReason: null,
      timeoutMs: task.timeoutMs,
      durationMs: Date.now() - task.startedAt,
      outputCutOff: 'stop',
      stdout: empty,
      stderr: empty,
      note: `Note: ${why}; its output and exit status are unknown, and whatever it changed in the workspace may be partial.`,
      executorMeta: Object.freeze({ container: this.containerId.slice(0, 12), engine: this.engineKind, lost: true }),
    })
    task.completed(result)
  }

  resolve(request: AgentRequest, background: boolean): Promise<ResolvedBashRequest> {
    if (this.closed) return Promise.reject(new BashSpawnError(`cannot run the command: ${this.closedBecause}`, this.config.local.cwd))
    const id = (this.serial += 1)
    return new Promise((resolve, reject) => {
      this.resolving.set(id, { resolve, reject, cwd: this.config.local.cwd })
      this.send({ op: 'resolve', id, request, background })
    })
  }

  /** Starts a resolved command; resolves once the agent reports it spawned (or it settled). */
  async launch(request: ResolvedBashRequest, signal: AbortSignal | undefined, background: boolean): Promise<RemoteTask> {
    if (this.closed) throw new BashSpawnError(`cannot run the command: ${this.closedBecause}`, request.cwd)
    const id = (this.serial += 1)
    const task = new RemoteTask(request.command, request.cwd, request.timeoutMs, this.config.local.outputWindowBytes, () => this.send({ op: 'kill', id }), this.log)
    this.running.set(id, task)
    if (this.network !== null) this.deniedFrom.set(id, this.network.proxy.denials.length)
    const local = this.config.local
    const deadlineMs = request.timeoutMs + local.killGraceMs + local.drainTimeoutMs + HOST_DEADLINE_SLACK_MS
    const deadline = setTimeout(
      () => this.abandon(id, task, `the container did not report the end of the command within its timeout and grace (${deadlineMs} ms)`),
      deadlineMs,
    )
    deadline.unref()
    const onAbort = (): void => this.send({ op: 'abort', id })
    signal?.addEventListener('abort', onAbort, { once: true })
    void task.done.then(() => {
      clearTimeout(deadline)
      signal?.removeEventListener('abort', onAbort)
    })
    const started = new Promise<void>((resolve) => this.starting.set(id, resolve))
    this.send({ op: 'run', id, request: { command: request.command, cwd: request.cwd, timeoutMs: request.timeoutMs }, background })
    if (signal?.aborted === true) this.send({ op: 'abort', id })
    await started
    return task
  }

  /** Stops the agent (every command ends with `dispose`), then removes the container. */
  async close(): Promise<void> {
    const attachment = this.attachment
    if (attachment !== null && !this.closed) {
      const pending = [...this.running.values()].map((task) => task.done)
      this.send({ op: 'exit' })
      attachment.end()
      const bound = new Promise((resolve) => setTimeout(resolve, this.config.local.killGraceMs + this.config.local.drainTimeoutMs + 3_000).unref())
      await Promise.race([Promise.all(pending), bound])
    }
    this.lost()
    attachment?.destroy()
    if (this.containerId !== '' && !this.removed) {
      this.removed = true
      try {
        await this.engine.call('DELETE', `/containers/${this.containerId}?force=1`, undefined, this.config.startTimeoutMs)
      } catch (error) {
        if (!(error instanceof EngineRequestError && (error.status === 404 || error.status === 409))) this.log('removing the session container failed', error)
      }
      // 409: the engine's auto-removal was already under way. Either way, the container is gone before close() returns.
      await this.waitGone(this.containerId)
    }
    // Bounded (the proxy settles within a second whatever its peers do).
    await this.network?.proxy.close()
    this.releaseFiles()
  }

  /** The shared node copy (this session's use of it) and the private directory, synchronously. */
  private releaseFiles(): void {
    this.releaseNode()
    if (this.privateDir !== null) rmSync(this.privateDir, { recursive: true, force: true })
    this.privateDir = null
  }

  private releaseNode(): void {
    if (!this.holdsNodeCopy) return
    this.holdsNodeCopy = false
    releaseNodeCopy()
  }

  /** Waits until the engine no longer knows container `id` (bounded by `startTimeoutMs`; past it, logs and returns). */
  private async waitGone(id: string): Promise<void> {
    const until = Date.now() + this.config.startTimeoutMs
    while (Date.now() < until) {
      try {
        await this.engine.call('GET', `/containers/${id}/json`, undefined, this.config.startTimeoutMs)
      } catch (error) {
        if (error instanceof EngineRequestError && error.status === 404) return
        this.log('checking that the session container is gone failed', error)
        return
      }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    this.log(`the session container ${id.slice(0, 12)} was still there ${this.config.startTimeoutMs} ms after its removal`)
  }

  /** At host exit: drop the connection (the agent sees its stdin end and the container goes) and remove private files. */
  killNow(): void {
    this.attachment?.destroy()
    this.tunnels.destroyAll()
    void this.network?.proxy.close()
    this.releaseFiles()
  }
}

/** `*` globs, case-sensitive, as the local executor's `allowEnv`. */
function globMatch(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) return pattern === name
  const expression = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`)
  return expression.test(name)
}

import { Service, type Context } from 'cordis'
import { checkCordisHost, onHostExit } from '@dsh/tools-registry'
import type { BashExecutor, BashExecutorLimits, BashRequest, BashResult, BashTask, ResolveBashRequestOptions, ResolvedBashRequest } from '@dsh/tool-bash'
import type { ContainerFacts } from './agent-protocol.js'
import { resolveContainerBashConfig, type ContainerBashConfig, type ResolvedContainerBashConfig } from './container-config.js'
import { ContainerSession, type ContainerEngineKind, type SweptContainer } from './container-session.js'

/** What the executor says about itself in the `bash` tool's description. */
const policyText = (config: ResolvedContainerBashConfig): string => {
  const network =
    config.network === null
      ? 'no network'
      : `no network except through an HTTP proxy (HTTP_PROXY/HTTPS_PROXY are set) to ${config.network.allow.join(', ')} only; other hosts get 403`
  const cpu = config.cpus === null ? '' : `, ${config.cpus} CPU${config.cpus === 1 ? '' : 's'} of time`
  return (
    `Commands run in a container: ${network}, no capabilities, a read-only root file system except the working ` +
    `directory and /tmp, and memory and process limits${cpu}. Files outside the working directory are not the host's. ` +
    'This policy is fixed by the deployment and cannot be changed from a command.'
  )
}

const requestSignal = (request: BashRequest): AbortSignal | undefined =>
  Object.hasOwn(request, 'signal') && request.signal instanceof AbortSignal ? request.signal : undefined

const requestFields = (request: BashRequest): { command: string; cwd?: string; timeoutMs?: number } => {
  if (typeof request !== 'object' || request === null) return { command: undefined as unknown as string }
  const pick = (key: string): unknown => (Object.hasOwn(request, key) ? (request as unknown as Record<string, unknown>)[key] : undefined)
  return { command: pick('command') as string, cwd: pick('cwd') as string, timeoutMs: pick('timeoutMs') as number }
}

/**
 * The container executor: a cordis plugin providing the service `bash` (the `BashExecutor` seam of `@dsh/tool-bash`)
 * that runs every command in one session container on the Docker Engine API (podman or Docker), so the `bash`,
 * `bash_output` and `bash_kill` tools run unchanged on top of it. A long-lived agent in the container runs each
 * command with tool-bash's local executor (its own session and group, descendants tracked, output windowed and
 * spilled inside the container) and kills what a stopped command left behind. The container has no network, no
 * capabilities, no new privileges, a seccomp profile refusing new user namespaces, a read-only root with the working
 * directory and a tmpfs `/tmp` writable, memory (no swap), pids and open-file limits, an init, ownership labels and
 * auto-removal; it dies with the host process (the agent reads the attach connection).
 *
 * Fail-closed: loading creates the container and reads back from inside what is in force; an unreachable engine, a
 * missing image or a limit the engine does not enforce rejects the load with `ContainerUnavailableError`, and nothing
 * is provided as `ctx.bash`. The seam knows no agents: one loaded executor is one session container, so a harness
 * gives each agent its own by loading one executor per agent's context.
 *
 * @example
 * ```ts
 * import { Context } from 'cordis'
 * import { ContainerBashExecutor } from '@dsh/tool-bash-container'
 *
 * const ctx = new Context()
 * await ctx.plugin(ContainerBashExecutor, { engine: { socketPath: '/run/podman/podman.sock' }, image: 'localhost/debian:bookworm' })
 * const result = await ctx.bash.run({ command: 'echo hello' })
 * console.log(result.exitCode, result.stdout.head) // 0 'hello\n'
 * ```
 */
export class ContainerBashExecutor extends Service implements BashExecutor {
  /** {@inheritDoc @dsh/tool-bash#BashExecutor.limits} */
  readonly limits: BashExecutorLimits
  private readonly session: ContainerSession

  /**
   * @param ctx - the plugin's context (cordis passes it)
   * @param config - validated here; a bad one throws `BashConfigError` and the load fails
   */
  constructor(ctx: Context, config: ContainerBashConfig = {}) {
    checkCordisHost(ctx, '@dsh/tool-bash-container', { service: 'bash' })
    const resolved = resolveContainerBashConfig(config)
    super(ctx, 'bash')
    const logger = ctx.logger('bash-container')
    this.session = new ContainerSession(
      resolved,
      (message, error) => (error === undefined ? logger.warn(message) : logger.warn(message, error)),
      (message) => logger.info(message),
    )
    const local = resolved.local
    this.limits = Object.freeze({
      cwd: local.cwd,
      defaultTimeoutMs: local.defaultTimeoutMs,
      maxTimeoutMs: local.maxTimeoutMs,
      backgroundTimeoutMs: local.backgroundTimeoutMs,
      outputWindowBytes: local.outputWindowBytes,
      policy: policyText(resolved),
    })
    const session = this.session
    ctx.effect(() => {
      const release = onHostExit(() => session.killNow())
      return async () => {
        release()
        await session.close()
      }
    }, 'bash container')
  }

  /** Creates the session container and runs its preflight; a rejection fails the load (nothing is provided). */
  async [Service.init](): Promise<void> {
    await this.session.open()
  }

  /** The validated configuration. */
  get config(): ResolvedContainerBashConfig {
    return this.session.config
  }

  /** The session container's id ('' before the load finished). */
  get containerId(): string {
    return this.session.containerId
  }

  /** Which engine serves the container. */
  get engine(): { readonly kind: ContainerEngineKind; readonly version: string } {
    return { kind: this.session.engineKind, version: this.session.engineVersion }
  }

  /** What the preflight read back from inside the container. */
  get facts(): ContainerFacts | null {
    return this.session.facts
  }

  /** Containers of dead owners the start-up sweep removed. */
  get swept(): readonly SweptContainer[] {
    return this.session.swept
  }

  /** {@inheritDoc @dsh/tool-bash#BashExecutor.resolve} */
  resolve(request: BashRequest, options: ResolveBashRequestOptions = {}): Promise<ResolvedBashRequest> {
    return this.session.resolve(requestFields(request), options.background === true)
  }

  /** {@inheritDoc @dsh/tool-bash#BashExecutor.run} */
  async run(request: BashRequest): Promise<BashResult> {
    const resolved = await this.resolve(request)
    const task = await this.session.launch(resolved, requestSignal(request), false)
    const outcome = await task.done
    if (outcome.status === 'failed') throw outcome.error
    return outcome.result
  }

  /** {@inheritDoc @dsh/tool-bash#BashExecutor.start} */
  async start(request: BashRequest): Promise<BashTask> {
    const resolved = await this.resolve(request, { background: true })
    return this.session.launch(resolved, requestSignal(request), true)
  }
}

import { stat } from 'node:fs/promises'
import { resolve as resolvePath } from 'node:path'
import { Service, type Context } from 'cordis'
import { checkCordisHost, onHostExit } from '@dsh/tools-registry'
import type {
  BashExecutor,
  BashExecutorLimits,
  BashRequest,
  BashResult,
  BashTask,
  ResolveBashRequestOptions,
  ResolvedBashRequest,
} from './bash-executor.js'
import { BashJob } from './bash-job.js'
import type { BashLauncher } from './bash-launcher.js'
import { BashRequestError } from './bash-request-error.js'
import { BashSpawnError } from './bash-spawn-error.js'
import { createCommandEnvironment } from './command-environment.js'
import { ownValue } from './config-values.js'
import { resolveLocalBashConfig, type LocalBashConfig, type ResolvedLocalBashConfig } from './local-bash-config.js'
import { SpillStore } from './spill-store.js'

/** Linux refuses a single exec argument longer than 32 pages (MAX_ARG_STRLEN, with its NUL) with E2BIG. */
const MAX_COMMAND_BYTES = 131_071


/** Everything the executor owns, kept apart from the service object (which cordis hands out behind proxies). */
class LocalBashRuntime {
  readonly config: ResolvedLocalBashConfig
  readonly env: Record<string, string>
  readonly spills: SpillStore
  readonly jobs = new Set<BashJob>()
  disposed = false
  private releaseHostHooks: (() => void) | null = null
  private readonly log: (message: string, error?: unknown) => void
  private readonly launcher: BashLauncher | undefined

  constructor(
    config: ResolvedLocalBashConfig,
    log: (message: string, error?: unknown) => void,
    launcher: BashLauncher | undefined,
  ) {
    this.config = config
    this.log = log
    this.launcher = launcher
    this.env = createCommandEnvironment(process.env, config)
    this.spills = new SpillStore({ root: config.tempDir, capBytes: config.spillCapBytes, onError: log })
  }

  /**
   * Registers the last-resort hooks: when this process exits or dies by SIGINT, SIGTERM or SIGHUP, SIGKILL goes to
   * every process of every running command and background task, and the spill directory is removed.
   */
  open(): void {
    this.releaseHostHooks ??= onHostExit(() => this.killAllNow())
  }

  /** SIGKILL to every process of every running command, and removal of the spill directory: synchronously. */
  killAllNow(): void {
    for (const job of this.jobs) job.killNow()
    this.spills.removeNow()
  }

  async dispose(): Promise<void> {
    if (this.disposed) return
    this.disposed = true
    const jobs = [...this.jobs]
    for (const job of jobs) job.stop('dispose')
    await Promise.all(jobs.map((job) => job.done))
    await this.spills.dispose()
    this.releaseHostHooks?.()
    this.releaseHostHooks = null
  }

  async resolve(request: BashRequest, background: boolean): Promise<ResolvedBashRequest> {
    if (typeof request !== 'object' || request === null) {
      throw new BashRequestError('request', 'the request must be an object with a command')
    }
    // Own properties only: a polluted Object.prototype must not supply a command, a timeout or a directory.
    const command = ownValue(request, 'command')
    const timeoutMs = ownValue(request, 'timeoutMs')
    const cwd = ownValue(request, 'cwd')
    const signal = ownValue(request, 'signal')
    if (signal !== undefined && !(signal instanceof AbortSignal)) {
      throw new BashRequestError('signal', 'the signal must be an AbortSignal (or left out)')
    }
    if (typeof command !== 'string' || command.trim() === '') {
      throw new BashRequestError('command', 'the command must be a non-empty string')
    }
    if (command.includes('\0')) throw new BashRequestError('command', 'the command must not contain NUL bytes')
    if (Buffer.byteLength(command) > MAX_COMMAND_BYTES) {
      throw new BashRequestError(
        'command',
        `the command is ${Buffer.byteLength(command)} bytes; one argument to bash may hold at most ${MAX_COMMAND_BYTES} (write a script to a file and run that instead)`,
      )
    }
    const { maxTimeoutMs } = this.config
    let timeout = background ? this.config.backgroundTimeoutMs : this.config.defaultTimeoutMs
    if (timeoutMs !== undefined) {
      if (typeof timeoutMs !== 'number' || !Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > maxTimeoutMs) {
        throw new BashRequestError(
          'timeoutMs',
          `the timeout must be an integer number of milliseconds from 1 to ${maxTimeoutMs}, got ${String(timeoutMs)}`,
        )
      }
      timeout = timeoutMs
    }
    let directory = this.config.cwd
    if (cwd !== undefined) {
      if (typeof cwd !== 'string' || cwd === '' || cwd.includes('\0')) {
        throw new BashRequestError('cwd', 'the working directory must be a non-empty path without NUL bytes')
      }
      directory = resolvePath(this.config.cwd, cwd)
    }
    let isDirectory: boolean
    try {
      isDirectory = (await stat(directory)).isDirectory()
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      const why = code === 'ENOENT' || code === 'ENOTDIR' ? 'does not exist' : `cannot be used (${code ?? String(error)})`
      throw new BashSpawnError(`cannot run the command: working directory ${directory} ${why}`, directory, {
        cause: error,
      })
    }
    if (!isDirectory) {
      throw new BashSpawnError(`cannot run the command: working directory ${directory} is not a directory`, directory)
    }
    return Object.freeze({ command, cwd: directory, timeoutMs: timeout })
  }

  launch(request: ResolvedBashRequest, signal: AbortSignal | undefined, background: boolean): BashJob {
    if (this.disposed) {
      throw new BashSpawnError('cannot run the command: the bash executor has been disposed', request.cwd)
    }
    const job = new BashJob({
      request,
      shell: this.config.shell,
      env: this.env,
      killGraceMs: this.config.killGraceMs,
      drainTimeoutMs: this.config.drainTimeoutMs,
      windowBytes: this.config.outputWindowBytes,
      spills: this.spills,
      incremental: background,
      signal,
      log: this.log,
      onSettled: (settled) => this.jobs.delete(settled),
      launcher: this.launcher,
    })
    this.jobs.add(job)
    job.launch()
    return job
  }
}

/**
 * The local executor: a cordis plugin providing the service `bash` ({@link BashExecutor}) that runs commands on
 * this machine with `bash -c` (non-login, non-interactive, stdin `/dev/null`), each in its own session and process
 * group, with a scrubbed environment, bounded output capture and private spill files. What a command started is
 * tracked by its group, its session and its descendants (Linux `/proc`), and all of it is stopped when the command
 * ends, times out or is aborted. Disposing its fiber stops every command it started (SIGTERM, SIGKILL after the
 * grace), waits until their processes are gone (output pipes held by escaped processes are cut at the drain bound),
 * and removes its temp directory. While it is loaded, the host exiting, or dying by SIGINT, SIGTERM or SIGHUP, kills
 * every running command and removes the spill files synchronously; a signal the host does not handle itself is
 * re-raised afterwards, so the host still dies by it. The configuration ({@link LocalBashConfig}) is validated on load ({@link BashConfigError}).
 *
 * @example
 * ```ts
 * import { Context } from 'cordis'
 * import { LocalBashExecutor } from '@dsh/tool-bash'
 *
 * const ctx = new Context()
 * await ctx.plugin(LocalBashExecutor, { defaultTimeoutMs: 30_000 })
 * const result = await ctx.bash.run({ command: 'echo hello' })
 * console.log(result.exitCode, result.stdout.head) // 0 'hello\n'
 * ```
 */
export class LocalBashExecutor extends Service implements BashExecutor {
  /** {@inheritDoc BashExecutor.limits} */
  readonly limits: BashExecutorLimits
  private readonly runtime: LocalBashRuntime

  /**
   * @param ctx - the plugin's context (cordis passes it)
   * @param config - validated here; a bad one throws a {@link BashConfigError} and the load fails
   * @param launcher - the launch seam, for subclasses that run commands some other way (a sandbox): maps each
   *   request to the process that runs it ({@link BashLauncher}). Cordis never passes it; default: `bash -c`.
   */
  constructor(ctx: Context, config: LocalBashConfig = {}, launcher?: BashLauncher) {
    if (launcher !== undefined && typeof launcher !== 'function') {
      throw new TypeError('the bash launcher must be a function (or left out)')
    }
    checkCordisHost(ctx, '@dsh/tool-bash', { service: 'bash' })
    const resolved = resolveLocalBashConfig(config)
    super(ctx, 'bash')
    const logger = ctx.logger('bash')
    this.runtime = new LocalBashRuntime(
      resolved,
      (message, error) => (error === undefined ? logger.warn(message) : logger.warn(message, error)),
      launcher,
    )
    this.limits = Object.freeze({
      cwd: resolved.cwd,
      defaultTimeoutMs: resolved.defaultTimeoutMs,
      maxTimeoutMs: resolved.maxTimeoutMs,
      backgroundTimeoutMs: resolved.backgroundTimeoutMs,
      outputWindowBytes: resolved.outputWindowBytes,
    })
    const runtime = this.runtime
    ctx.effect(() => {
      runtime.open()
      return () => runtime.dispose()
    }, 'bash executor')
  }

  /** The validated configuration in effect. */
  get config(): ResolvedLocalBashConfig {
    return this.runtime.config
  }

  /** The private directory holding spill files, once one was needed (removed on disposal). */
  get spillDirectory(): string | null {
    return this.runtime.spills.path
  }

  /** Commands started and not yet settled. */
  get activeCount(): number {
    return this.runtime.jobs.size
  }

  /** {@inheritDoc BashExecutor.resolve} */
  resolve(request: BashRequest, options: ResolveBashRequestOptions = {}): Promise<ResolvedBashRequest> {
    return this.runtime.resolve(request, options.background === true)
  }

  /** {@inheritDoc BashExecutor.run} */
  async run(request: BashRequest): Promise<BashResult> {
    const runtime = this.runtime
    const resolved = await runtime.resolve(request, false)
    const outcome = await runtime.launch(resolved, requestSignal(request), false).done
    if (outcome.status === 'failed') throw outcome.error
    return outcome.result
  }

  /** {@inheritDoc BashExecutor.start} */
  async start(request: BashRequest): Promise<BashTask> {
    const runtime = this.runtime
    const resolved = await runtime.resolve(request, true)
    return runtime.launch(resolved, requestSignal(request), true)
  }
}

/** The request's own `signal`, when it is one (an inherited or foreign value is ignored, never called). */
function requestSignal(request: BashRequest): AbortSignal | undefined {
  const signal = ownValue(request, 'signal')
  return signal instanceof AbortSignal ? signal : undefined
}

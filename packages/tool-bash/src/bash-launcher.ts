import type { ChildProcess } from 'node:child_process'
import type { BashResult, ResolvedBashRequest } from './bash-executor.js'
import { BashSpawnError } from './bash-spawn-error.js'
import { ownValue } from './config-values.js'

/** What a {@link BashLauncher} is asked to launch: the request as resolved and what the local executor would run. */
export interface BashLaunchContext {
  /** The validated request. */
  readonly request: ResolvedBashRequest
  /** The bash binary the executor was configured with (absolute). */
  readonly shell: string
  /** The scrubbed environment the executor gives every command (a fresh copy: the launcher may change it). */
  readonly env: Record<string, string>
}

/**
 * How one command is started, instead of `shell --noprofile --norc -c <command>`. The process is spawned
 * detached (its own session and process group), stdin `/dev/null`, stdout and stderr piped into the executor's
 * output windows; `file` must therefore keep the command in its process group (a wrapper such as bubblewrap without
 * `--new-session`) for stops to reach it.
 */
export interface BashLaunchPlan {
  /** The program to execute (an absolute path, or a name looked up on the plan's `PATH`). */
  readonly file: string
  /** Its arguments (without `argv[0]`). */
  readonly args: readonly string[]
  /** Its whole environment. Default: the context's `env`. */
  readonly env?: Readonly<Record<string, string>> | undefined
  /** The directory it is started in. Default: the request's `cwd`. */
  readonly cwd?: string | undefined
  /** Open file descriptors handed to it as fds 3, 4, …, in order (for example a seccomp program). */
  readonly extraFds?: readonly number[] | undefined
  /**
   * Opens a Node IPC channel to the process, as the fd after the `extraFds` (Node puts its number in the process's
   * `NODE_CHANNEL_FD`), and is called with the spawned process right after the spawn, before any output is read: the
   * launcher can receive messages and handles (a listening socket, for example) from a helper the process runs.
   * The launcher owns the channel: it should `disconnect()` it once done (the job disconnects it at cleanup at the
   * latest). A hook that throws is logged and the command runs on. Default: no channel.
   */
  readonly channel?: ((child: ChildProcess) => void) | undefined
  /**
   * Called once the command has ended and every process of it is gone, with the result the job built. Return it,
   * or a new frozen result to replace it (extra facts, a note), or a {@link BashSpawnError} when the wrapper itself
   * failed to start the command (the outcome is then `failed` with that error, never an exit code). A hook that
   * throws or rejects is logged and the job's own result stands.
   */
  readonly settle?: ((result: BashResult) => BashResult | BashSpawnError | Promise<BashResult | BashSpawnError>) | undefined
  /**
   * Called exactly once when the job has settled or failed to spawn, after `settle`: close the plan's fds, remove
   * what it created. Errors are logged.
   */
  readonly cleanup?: (() => void | Promise<void>) | undefined
}

/**
 * The launch seam of the local executor: maps one resolved request to the process that runs it. Everything else
 * (timeouts, aborts, the process-group stop protocol, output windows, spills, background tasks, host-exit kills) is
 * the executor's. Called synchronously when a command starts; a launcher that throws fails that command with a
 * `BashSpawnError` carrying the thrown error as its `cause`. Pass it as the third argument of the
 * {@link LocalBashExecutor} constructor from a subclass (that is how `@dsh/tool-bash-sandbox` runs commands in
 * bubblewrap).
 */
export type BashLauncher = (context: BashLaunchContext) => BashLaunchPlan

/**
 * The plan for one command: the launcher's, read by own properties into an object without a prototype (a polluted
 * `Object.prototype` cannot add a cwd, an env, fds or hooks), or `shell --noprofile --norc -c <command>` without a
 * launcher. Throws a `BashSpawnError` when the launcher throws or returns no `{ file, args }`.
 */
export function resolveLaunchPlan(options: {
  request: ResolvedBashRequest
  shell: string
  env: Record<string, string>
  launcher: BashLauncher | undefined
}): BashLaunchPlan {
  const { request, shell, env, launcher } = options
  const shellPlan = { file: shell, args: ['--noprofile', '--norc', '-c', request.command] }
  if (launcher === undefined) return Object.assign(Object.create(null) as BashLaunchPlan, shellPlan)
  let plan: unknown
  try {
    plan = launcher({ request, shell, env: { ...env } })
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new BashSpawnError(`cannot start the command in ${request.cwd}: ${reason}`, request.cwd, { cause: error })
  }
  const source = typeof plan === 'object' && plan !== null ? plan : {}
  const file = ownValue(source, 'file')
  const args = ownValue(source, 'args')
  if (typeof file !== 'string' || !Array.isArray(args)) {
    throw new BashSpawnError(`cannot start the command in ${request.cwd}: the launcher returned no { file, args } plan`, request.cwd)
  }
  return Object.assign(Object.create(null) as BashLaunchPlan, {
    file,
    args,
    env: ownValue(source, 'env') as BashLaunchPlan['env'],
    cwd: ownValue(source, 'cwd') as BashLaunchPlan['cwd'],
    extraFds: ownValue(source, 'extraFds') as BashLaunchPlan['extraFds'],
    channel: ownValue(source, 'channel') as BashLaunchPlan['channel'],
    settle: ownValue(source, 'settle') as BashLaunchPlan['settle'],
    cleanup: ownValue(source, 'cleanup') as BashLaunchPlan['cleanup'],
  })
}

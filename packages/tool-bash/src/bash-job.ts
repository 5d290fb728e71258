import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'
import type {
  BashResult,
  BashStopReason,
  BashTask,
  BashTaskOutcome,
  BashTaskOutput,
  BashTaskStatus,
  ResolvedBashRequest,
} from './bash-executor.js'
import { resolveLaunchPlan, type BashLauncher, type BashLaunchPlan } from './bash-launcher.js'
import { BashSpawnError } from './bash-spawn-error.js'
import { CommandProcesses, readForkCount } from './command-processes.js'
import type { SpillStore } from './spill-store.js'
import { StreamSink } from './stream-sink.js'

/** Delays between checks for live processes of a command that is being stopped (the last one repeats). */
const POLL_DELAYS_MS = [1, 1, 2, 2, 4, 8, 16, 25, 50] as const
/** After SIGKILL, how long to wait for processes stuck in the kernel before settling anyway. */
const GIVE_UP_AFTER_KILL_MS = 5_000
/** The drain bound of a command that was stopped (timeout, abort, kill, disposal), when `drainTimeoutMs` is longer. */
const STOPPED_DRAIN_MS = 100

/** What a {@link BashJob} needs from its executor. */
export interface BashJobOptions {
  request: ResolvedBashRequest
  shell: string
  env: Record<string, string>
  killGraceMs: number
  /** How long output pipes may stay open once the shell exited and every process of the command is gone. */
  drainTimeoutMs: number
  windowBytes: number
  spills: SpillStore
  /** Keep per-read windows (background tasks). */
  incremental: boolean
  signal: AbortSignal | undefined
  log: (message: string, error?: unknown) => void
  /** Called once when the job has settled. */
  onSettled: (job: BashJob) => void
  /** Maps the request to the process to spawn (see {@link BashLauncher}); default: `shell --noprofile --norc -c`. */
  launcher?: BashLauncher | undefined
}

type Timer = ReturnType<typeof setTimeout>

/**
 * One command: its processes (group, session, descendants: {@link CommandProcesses}), its two output streams, its
 * timers, and the protocol that stops it (SIGTERM to all of them, SIGKILL after the grace) and settles once none of
 * them is alive and both pipes have closed — or, when a process that left the command still holds a pipe, once the
 * drain bound has passed and the pipe was closed. The deadline and the abort stay live until it settles. Used
 * directly as the handle of a background task.
 */
export class BashJob implements BashTask {
  readonly command: string
  readonly cwd: string
  readonly timeoutMs: number
  readonly startedAt: number = Date.now()
  pid: number | null = null
  readonly done: Promise<BashTaskOutcome>

  private readonly options: BashJobOptions
  private readonly stdout: StreamSink
  private readonly stderr: StreamSink
  private settledOutcome: BashTaskOutcome | undefined
  private resolveDone: (outcome: BashTaskOutcome) => void = () => {}
  private readonly listeners = new Set<(outcome: BashTaskOutcome) => void>()
  private readonly outputListeners = new Set<(stream: 'stdout' | 'stderr', chunk: Uint8Array) => void>()
  private processes: CommandProcesses | null = null
  private stopReason: BashStopReason | null = null
  private exit: { code: number | null; signal: string | null } | null = null
  private terminating = false
  private killed = false
  private groupGone = false
  private finishing = false
  private outputCutOff: 'drain' | 'stop' | null = null
  private pollCount = 0
  private giveUpAt = Number.POSITIVE_INFINITY
  private readonly started = performance.now()
  private timeoutTimer: Timer | null = null
  private killTimer: Timer | null = null
  private pollTimer: Timer | null = null
  private drainTimer: Timer | null = null
  private giveUpTimer: Timer | null = null
  private readonly onAbort = (): void => this.stop('abort')
  private plan: BashLaunchPlan | null = null
  private child: ChildProcess | null = null
  private cleanedUp = false

  constructor(options: BashJobOptions) {
    this.options = options
    this.command = options.request.command
    this.cwd = options.request.cwd
    this.timeoutMs = options.request.timeoutMs
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve
    })
    const sink = { windowBytes: options.windowBytes, incremental: options.incremental, spills: options.spills }
    this.stdout = new StreamSink({ label: 'stdout', ...sink })
    this.stderr = new StreamSink({ label: 'stderr', ...sink })
    const arrived = (label: 'stdout' | 'stderr', chunk: Buffer): void => this.outputArrived(label, chunk)
    this.stdout.onData = arrived
    this.stderr.onData = arrived
  }

  get status(): BashTaskStatus {
    return this.settledOutcome?.status ?? 'running'
  }

  get outcome(): BashTaskOutcome | undefined {
    return this.settledOutcome
  }

  /** Spawns the shell. Called once, right after construction. */
  launch(): void {
    const { request, signal } = this.options
    if (signal?.aborted === true) {
      this.stopReason = 'abort'
      this.exit = { code: null, signal: null }
      void this.finish()
      return
    }
    let child: ChildProcess
    const forksAtStart = readForkCount()
    try {
      const plan = this.planLaunch()
      this.plan = plan
      child = spawn(plan.file, [...plan.args], spawnOptions(plan.cwd ?? request.cwd, plan.env ?? this.options.env, plan.extraFds, plan.channel !== undefined))
    } catch (error) {
      this.fail(error)
      return
    }
    const pid = child.pid
    if (pid === undefined) {
      child.once('error', (error) => this.fail(error))
      child.stdout?.destroy()
      child.stderr?.destroy()
      return
    }
    this.pid = pid
    this.child = child
    this.processes = new CommandProcesses(pid, forksAtStart)
    const channel = this.plan?.channel
    if (channel !== undefined) {
      try {
        channel(child)
      } catch (error) {
        this.options.log(`the launch channel hook of bash (pid ${pid}) failed`, error)
      }
    }
    child.on('error', (error) => this.options.log(`bash (pid ${pid}) reported an error`, error))
    child.once('exit', (code, exitSignal) => this.onExit(code, exitSignal))
    const onStreamError = (error: unknown): void => this.options.log(`reading output of bash (pid ${pid}) failed`, error)
    this.stdout.attach(child.stdout as NonNullable<ChildProcess['stdout']>, () => this.advance(), onStreamError)
    this.stderr.attach(child.stderr as NonNullable<ChildProcess['stderr']>, () => this.advance(), onStreamError)
    this.timeoutTimer = setTimeout(() => this.stop('timeout'), this.timeoutMs)
    signal?.addEventListener('abort', this.onAbort, { once: true })
  }

  /** The launcher's plan, or the plain shell when there is no launcher. */
  private planLaunch(): BashLaunchPlan {
    const { request, shell, env, launcher } = this.options
    return resolveLaunchPlan({ request, shell, env, launcher })
  }

  /** Runs the plan's `cleanup` once; its failure is logged, never thrown. */
  private async cleanupPlan(): Promise<void> {
    const cleanup = this.plan?.cleanup
    if (this.child?.connected === true) this.child.disconnect()
    if (this.cleanedUp || cleanup === undefined) return
    this.cleanedUp = true
    try {
      await cleanup()
    } catch (error) {
      this.options.log(`cleaning up after bash (pid ${this.pid}) failed`, error)
    }
  }

  read(): BashTaskOutput {
    const final = this.settledOutcome !== undefined
    return Object.freeze({ status: this.status, stdout: this.stdout.read(final), stderr: this.stderr.read(final) })
  }

  kill(): Promise<BashTaskOutcome> {
    this.stop('kill')
    return this.done
  }

  onOutput(listener: (stream: 'stdout' | 'stderr', chunk: Uint8Array) => void): () => void {
    this.outputListeners.add(listener)
    return () => {
      this.outputListeners.delete(listener)
    }
  }

  private outputArrived(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    for (const listener of this.outputListeners) {
      try {
        listener(stream, chunk)
      } catch (error) {
        this.options.log(`an output listener of bash (pid ${this.pid}) failed`, error)
      }
    }
  }

  onDone(listener: (outcome: BashTaskOutcome) => void): () => void {
    const outcome = this.settledOutcome
    if (outcome !== undefined) {
      queueMicrotask(() => this.notify(listener, outcome))
      return () => {}
    }
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  /**
   * Stops the command for `reason`: SIGTERM to every process of it now, SIGKILL after the grace. Holds until the job
   * has settled, not only until the shell exits: once the shell is gone, the pipes that a process which left the
   * command still holds are closed at once. No effect once the job has settled or was stopped before.
   */
  stop(reason: BashStopReason): void {
    if (this.settledOutcome !== undefined || this.finishing || this.stopReason !== null || this.pid === null) return
    this.stopReason = reason
    this.terminate()
    if (this.exit !== null) this.cutPipes('stop')
  }

  /** SIGKILL to every process of the command, synchronously: the last resort when the hosting process dies. */
  killNow(): void {
    if (this.settledOutcome === undefined) this.processes?.signal('SIGKILL')
  }

  private terminate(): void {
    if (this.terminating || this.processes === null) return
    this.terminating = true
    this.clearTimer('timeoutTimer')
    const grace = this.options.killGraceMs
    if (grace === 0) {
      this.sigkill()
      return
    }
    this.processes.signal('SIGTERM')
    this.killTimer = setTimeout(() => {
      this.killTimer = null
      this.sigkill()
    }, grace)
  }

  private sigkill(): void {
    if (this.killed || this.processes === null) return
    this.killed = true
    this.clearTimer('killTimer')
    this.processes.signal('SIGKILL')
    this.giveUpAt = performance.now() + GIVE_UP_AFTER_KILL_MS
    this.giveUpTimer = setTimeout(() => {
      this.giveUpTimer = null
      this.giveUp()
    }, GIVE_UP_AFTER_KILL_MS)
    this.advance()
  }

  private giveUp(): void {
    if (this.settledOutcome !== undefined || this.finishing) return
    this.options.log(
      `processes of bash (pid ${this.pid}) survived SIGKILL for ${GIVE_UP_AFTER_KILL_MS} ms (stuck in the kernel?); settling anyway`,
    )
    this.exit ??= { code: null, signal: null }
    this.groupGone = true
    this.cutPipes(this.stopReason === null ? 'drain' : 'stop')
    void this.finish()
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    // The deadline stays: processes the shell left behind, and pipes they hold, are part of the job until it settles.
    this.exit = { code, signal }
    this.advance()
  }

  /** Moves the job towards settling: stop leftovers, wait for them and for the pipes, then finish. */
  private advance(): void {
    if (this.settledOutcome !== undefined || this.finishing || this.exit === null) return
    if (!this.groupGone) {
      const processes = this.processes
      if (processes !== null && processes.live().length > 0) {
        // The shell is gone but processes it started may not be: nothing outlives its command.
        this.terminate()
        if (performance.now() < this.giveUpAt) {
          this.schedulePoll()
          return
        }
      }
      this.groupGone = true
      this.clearTimer('pollTimer')
      this.clearTimer('killTimer')
      this.clearTimer('giveUpTimer')
    }
    if (!this.stdout.closed || !this.stderr.closed) {
      this.scheduleDrainBound()
      return
    }
    void this.finish()
  }

  private schedulePoll(): void {
    if (this.pollTimer !== null) return
    const delay = POLL_DELAYS_MS[Math.min(this.pollCount, POLL_DELAYS_MS.length - 1)] as number
    this.pollCount += 1
    this.pollTimer = setTimeout(() => {
      this.pollTimer = null
      this.advance()
    }, delay)
  }

  /**
   * The shell exited and every process of the command is gone, but a pipe is still open: data may still be
   * draining (or paused behind the spill file), or a process that left the command holds it. However much or
   * often it writes, the pipes are closed once `drainTimeoutMs` has passed: an absolute bound, not an idle rule.
   */
  private scheduleDrainBound(): void {
    if (this.drainTimer !== null) return
    // A command that was stopped is not waited for: what the dying shell wrote is read within a few ms.
    const stopped = this.stopReason !== null
    const bound = stopped ? Math.min(this.options.drainTimeoutMs, STOPPED_DRAIN_MS) : this.options.drainTimeoutMs
    this.drainTimer = setTimeout(() => {
      this.drainTimer = null
      this.cutPipes(stopped ? 'stop' : 'drain')
      this.advance()
    }, bound)
  }

  /** Closes the pipes still open, and remembers that output may have been cut off (the result says so). */
  private cutPipes(why: 'drain' | 'stop'): void {
    for (const sink of [this.stdout, this.stderr]) {
      if (sink.closed) continue
      this.outputCutOff ??= why
      if (why === 'drain') {
        this.options.log(
          `${sink.label} of bash (pid ${this.pid}) stayed open ${this.options.drainTimeoutMs} ms after its processes ended (held by a process that left the command); closing it`,
        )
      }
      sink.destroy()
    }
  }

  private clearTimer(name: 'timeoutTimer' | 'killTimer' | 'pollTimer' | 'drainTimer' | 'giveUpTimer'): void {
    const timer = this[name]
    if (timer !== null) {
      clearTimeout(timer)
      this[name] = null
    }
  }

  private clearAll(): void {
    this.clearTimer('timeoutTimer')
    this.clearTimer('killTimer')
    this.clearTimer('pollTimer')
    this.clearTimer('drainTimer')
    this.clearTimer('giveUpTimer')
    this.options.signal?.removeEventListener('abort', this.onAbort)
  }

  private async finish(): Promise<void> {
    if (this.finishing) return
    this.finishing = true
    this.clearAll()
    await Promise.all([this.stdout.closeSpill(), this.stderr.closeSpill()])
    const exit = this.exit ?? { code: null, signal: null }
    const stopReason = this.stopReason
    const result: BashResult = Object.freeze({
      command: this.command,
      cwd: this.cwd,
      pid: this.pid,
      exitCode: exit.code,
      signal: exit.signal,
      timedOut: stopReason === 'timeout',
      aborted: stopReason !== null && stopReason !== 'timeout',
      stopReason,
      timeoutMs: this.timeoutMs,
      durationMs: this.pid === null ? 0 : Math.round((performance.now() - this.started) * 1000) / 1000,
      outputCutOff: this.outputCutOff,
      stdout: this.stdout.capture(),
      stderr: this.stderr.capture(),
    })
    const settled = await this.settlePlan(result)
    await this.cleanupPlan()
    this.settle(
      BashSpawnError.isInstance(settled)
        ? Object.freeze({ status: 'failed', error: settled })
        : Object.freeze({ status: 'completed', result: settled }),
    )
  }

  /** The plan's `settle` hook applied to the job's own result (which stands when the hook fails). */
  private async settlePlan(result: BashResult): Promise<BashResult | BashSpawnError> {
    const hook = this.plan?.settle
    if (hook === undefined) return result
    try {
      const settled = await hook(result)
      if (BashSpawnError.isInstance(settled) || (typeof settled === 'object' && settled !== null)) return settled
      this.options.log(`the launcher's settle hook for bash (pid ${this.pid}) returned no result; keeping the job's`)
    } catch (error) {
      this.options.log(`the launcher's settle hook for bash (pid ${this.pid}) failed; keeping the job's result`, error)
    }
    return result
  }

  private fail(cause: unknown): void {
    if (this.settledOutcome !== undefined || this.finishing) return
    this.finishing = true
    this.clearAll()
    const reason = cause instanceof Error ? cause.message : String(cause)
    const error = BashSpawnError.isInstance(cause)
      ? cause
      : new BashSpawnError(`cannot start ${this.plan?.file ?? this.options.shell} in ${this.cwd}: ${reason}`, this.cwd, { cause })
    const outcome: BashTaskOutcome = Object.freeze({ status: 'failed', error })
    if (this.plan?.cleanup === undefined) this.settle(outcome)
    else void this.cleanupPlan().then(() => this.settle(outcome))
  }

  private settle(outcome: BashTaskOutcome): void {
    this.settledOutcome = outcome
    this.resolveDone(outcome)
    const listeners = [...this.listeners]
    this.listeners.clear()
    for (const listener of listeners) this.notify(listener, outcome)
    this.options.onSettled(this)
  }

  private notify(listener: (outcome: BashTaskOutcome) => void, outcome: BashTaskOutcome): void {
    try {
      listener(outcome)
    } catch (error) {
      this.options.log('a bash task completion listener threw', error)
    }
  }
}

/**
 * The options of the shell's spawn, every key Node reads given explicitly (an own property) and the object without a
 * prototype: a polluted `Object.prototype` (`shell`, `uid`, `argv0`, `env`, …) cannot change how the command starts.
 */
function spawnOptions(cwd: string, env: Readonly<Record<string, string>>, extraFds: readonly number[] = [], channel = false): SpawnOptions {
  return Object.assign(Object.create(null) as SpawnOptions, {
    cwd,
    env: env as Record<string, string>,
    stdio: ['ignore', 'pipe', 'pipe', ...extraFds, ...(channel ? (['ipc'] as const) : [])],
    detached: true,
    windowsHide: true,
    shell: false,
    argv0: undefined,
    uid: undefined,
    gid: undefined,
    timeout: undefined,
    killSignal: undefined,
    signal: undefined,
    serialization: undefined,
    windowsVerbatimArguments: false,
  } satisfies SpawnOptions)
}

import { spawn, type ChildProcess } from 'node:child_process'
import type {
  BashResult,
  BashStopReason,
  BashTask,
  BashTaskOutcome,
  BashTaskOutput,
  BashTaskStatus,
  ResolvedBashRequest,
} from './bash-executor.js'
import { BashSpawnError } from './bash-spawn-error.js'
import { ProcessGroupWatch, signalProcessGroup } from './process-group.js'
import type { SpillStore } from './spill-store.js'
import { StreamSink } from './stream-sink.js'

/** Delays between checks for live processes of a group that is being stopped (the last one repeats). */
const POLL_DELAYS_MS = [1, 1, 2, 2, 4, 8, 16, 25, 50] as const
/**
 * How long the cheap group check (`kill(-pgid, 0)`) may keep saying "not empty" before `/proc` is read to tell
 * live processes from zombies that nobody reaps.
 */
const ZOMBIE_CHECK_AFTER_MS = 2
/** After SIGKILL, how long to wait for processes stuck in the kernel before settling anyway. */
const GIVE_UP_AFTER_KILL_MS = 5_000
/** A pipe still open after every process of the group is gone is closed once it has been idle this long. */
const PIPE_IDLE_MS = 250
/** How often such pipes are checked. */
const PIPE_CHECK_MS = 50

/** What a {@link BashJob} needs from its executor. */
export interface BashJobOptions {
  request: ResolvedBashRequest
  shell: string
  env: Record<string, string>
  killGraceMs: number
  windowBytes: number
  spills: SpillStore
  /** Keep per-read windows (background tasks). */
  incremental: boolean
  signal: AbortSignal | undefined
  log: (message: string, error?: unknown) => void
  /** Called once when the job has settled. */
  onSettled: (job: BashJob) => void
}

type Timer = ReturnType<typeof setTimeout>

/**
 * One command: its process group, its two output streams, its timers, and the protocol that stops it (SIGTERM to
 * the group, SIGKILL after the grace) and settles only once no process of the group is alive and both pipes have
 * closed. Used directly as the handle of a background task.
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
  private group: ProcessGroupWatch | null = null
  private stopReason: BashStopReason | null = null
  private exit: { code: number | null; signal: string | null } | null = null
  private terminating = false
  private killed = false
  private groupGone = false
  private finishing = false
  private pollCount = 0
  private reapStartedAt: number | null = null
  private giveUpAt = Number.POSITIVE_INFINITY
  private readonly started = performance.now()
  private timeoutTimer: Timer | null = null
  private killTimer: Timer | null = null
  private pollTimer: Timer | null = null
  private pipeTimer: Timer | null = null
  private giveUpTimer: Timer | null = null
  private readonly onAbort = (): void => this.stop('abort')

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
    try {
      child = spawn(this.options.shell, ['--noprofile', '--norc', '-c', request.command], {
        cwd: request.cwd,
        env: this.options.env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
        windowsHide: true,
      })
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
    this.group = new ProcessGroupWatch(pid)
    child.on('error', (error) => this.options.log(`bash (pid ${pid}) reported an error`, error))
    child.once('exit', (code, exitSignal) => this.onExit(code, exitSignal))
    const onStreamError = (error: unknown): void => this.options.log(`reading output of bash (pid ${pid}) failed`, error)
    this.stdout.attach(child.stdout as NonNullable<ChildProcess['stdout']>, () => this.advance(), onStreamError)
    this.stderr.attach(child.stderr as NonNullable<ChildProcess['stderr']>, () => this.advance(), onStreamError)
    this.timeoutTimer = setTimeout(() => this.stop('timeout'), this.timeoutMs)
    signal?.addEventListener('abort', this.onAbort, { once: true })
  }

  read(): BashTaskOutput {
    const final = this.settledOutcome !== undefined
    return Object.freeze({ status: this.status, stdout: this.stdout.read(final), stderr: this.stderr.read(final) })
  }

  kill(): Promise<BashTaskOutcome> {
    this.stop('kill')
    return this.done
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
   * Stops the command for `reason`: SIGTERM to the whole group now, SIGKILL after the grace. No effect once the
   * shell has exited on its own (its leftover processes are already being stopped) or the job has settled.
   */
  stop(reason: BashStopReason): void {
    if (this.settledOutcome !== undefined || this.exit !== null || this.stopReason !== null || this.pid === null) return
    this.stopReason = reason
    this.terminate()
  }

  /** SIGKILL to the group, synchronously: the last resort when the hosting process exits. */
  killNow(): void {
    if (this.pid !== null && this.settledOutcome === undefined) signalProcessGroup(this.pid, 'SIGKILL')
  }

  private terminate(): void {
    if (this.terminating || this.pid === null) return
    this.terminating = true
    this.clearTimer('timeoutTimer')
    const grace = this.options.killGraceMs
    if (grace === 0) {
      this.sigkill()
      return
    }
    signalProcessGroup(this.pid, 'SIGTERM')
    this.killTimer = setTimeout(() => {
      this.killTimer = null
      this.sigkill()
    }, grace)
  }

  private sigkill(): void {
    if (this.killed || this.pid === null) return
    this.killed = true
    this.clearTimer('killTimer')
    signalProcessGroup(this.pid, 'SIGKILL')
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
    this.stdout.destroy()
    this.stderr.destroy()
    void this.finish()
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.exit = { code, signal }
    this.clearTimer('timeoutTimer')
    this.advance()
  }

  /** Moves the job towards settling: stop leftovers, wait for the group and the pipes, then finish. */
  private advance(): void {
    if (this.settledOutcome !== undefined || this.finishing || this.exit === null) return
    if (!this.groupGone) {
      const group = this.group
      const now = performance.now()
      this.reapStartedAt ??= now
      if (group !== null && group.hasLiveMembers(now - this.reapStartedAt >= ZOMBIE_CHECK_AFTER_MS)) {
        // The shell is gone but processes it started in the background may not be: nothing outlives its command.
        this.terminate()
        if (now < this.giveUpAt) {
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
      this.schedulePipeCheck()
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
   * Every process of the group is gone but a pipe is still open: data may still be draining (or paused behind
   * the spill file), or a process that left the group holds it. Close a pipe once it has been idle a while.
   */
  private schedulePipeCheck(): void {
    if (this.pipeTimer !== null) return
    this.pipeTimer = setTimeout(() => {
      this.pipeTimer = null
      const now = performance.now()
      for (const sink of [this.stdout, this.stderr]) {
        if (!sink.closed && !sink.paused && now - sink.lastDataAt >= PIPE_IDLE_MS) {
          this.options.log(`${sink.label} of bash (pid ${this.pid}) stayed open after its process group ended; closing it`)
          sink.destroy()
        }
      }
      this.advance()
    }, PIPE_CHECK_MS)
  }

  private clearTimer(name: 'timeoutTimer' | 'killTimer' | 'pollTimer' | 'pipeTimer' | 'giveUpTimer'): void {
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
    this.clearTimer('pipeTimer')
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
      stdout: this.stdout.capture(),
      stderr: this.stderr.capture(),
    })
    this.settle(Object.freeze({ status: 'completed', result }))
  }

  private fail(cause: unknown): void {
    if (this.settledOutcome !== undefined || this.finishing) return
    this.finishing = true
    this.clearAll()
    const reason = cause instanceof Error ? cause.message : String(cause)
    const error = new BashSpawnError(`cannot start ${this.options.shell} in ${this.cwd}: ${reason}`, this.cwd, { cause })
    this.settle(Object.freeze({ status: 'failed', error }))
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

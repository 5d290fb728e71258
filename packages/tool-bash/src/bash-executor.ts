// cordis's declarations must be loaded before the augmentation at the end of this file: when the augmentation is
// the first mention of 'cordis' in a program, TypeScript drops cordis's own augmentations of `Context`.
import type {} from 'cordis'
import type { JsonObject } from '@dsh/tools-core'
import type { BashSpawnError } from './bash-spawn-error.js'

/**
 * One command to run. Nothing here comes from a model unchecked: a tool builds the request from validated
 * arguments. There is no way to set the environment or stdin (stdin is always `/dev/null`).
 */
export interface BashRequest {
  /** The script, run as `bash -c <command>` (non-login, non-interactive). Must not be empty or hold NUL bytes. */
  command: string
  /** The working directory: absolute, or relative to the executor's `cwd`. Default: the executor's `cwd`. */
  cwd?: string | undefined
  /**
   * Stop the command after this many ms: an integer from 1 to the executor's maximum. Default: the executor's
   * foreground default for {@link BashExecutor.run}, its background default for {@link BashExecutor.start}.
   */
  timeoutMs?: number | undefined
  /** Aborting it stops the command (SIGTERM to its process group, SIGKILL after the grace). */
  signal?: AbortSignal | undefined
}

/** A request after validation: what will actually run. */
export interface ResolvedBashRequest {
  /** The script. */
  readonly command: string
  /** The absolute working directory (it existed and was a directory when resolved). */
  readonly cwd: string
  /** The timeout in ms. */
  readonly timeoutMs: number
}

/** Where the full output of a stream went once it outgrew the in-memory window. */
export interface SpillInfo {
  /**
   * The spill file (mode 0600, in the executor's private 0700 temp directory); `null` when none holds any of the
   * stream: it could not be made (the spill cap was used up, the directory or the file could not be created), or
   * writing failed before a byte reached it. A path here always names a file that exists and holds `bytes` bytes.
   */
  readonly path: string | null
  /** Bytes written to it (or queued for writing, while the command runs); after a failure, the bytes that reached it. */
  readonly bytes: number
  /** True when the file holds the whole stream. */
  readonly complete: boolean
  /** Why the file is not complete: the executor's spill cap was reached, or creating or writing it failed. */
  readonly stoppedBy: 'cap' | 'error' | null
  /**
   * When creating or writing failed: why, briefly — the error code (such as `ENOSPC`, `ENOTDIR`, `EACCES`), or
   * `removed` when the file was deleted or cut short (by the command itself, say) before the command ended.
   */
  readonly failure?: string | undefined
}

/**
 * One output stream as captured: all of it when it fit in the window, else its head and tail with the count of the
 * bytes between them. The cuts fall on UTF-8 character boundaries, so no replacement character is introduced.
 */
export interface CapturedOutput {
  /** All the output when nothing was omitted; otherwise its first part (at most half the window). */
  readonly head: string
  /** The last part of the output (at most half the window); `''` when nothing was omitted. */
  readonly tail: string
  /** Bytes left out between `head` and `tail`; 0 when nothing was. */
  readonly omittedBytes: number
  /** Bytes the captured span covers (head + omitted + tail). */
  readonly totalBytes: number
  /** The spill file of the whole stream, or `null` when the stream fit in the window. */
  readonly spill: SpillInfo | null
}

/** Why the executor stopped a command: its timeout, its request's signal, `kill()`, or executor disposal. */
export type BashStopReason = 'timeout' | 'abort' | 'kill' | 'dispose'

/**
 * How a command ended: frozen, lossless JSON (a tool can put parts of it in a result's `meta`). `exitCode`,
 * `signal`, `timedOut` and `durationMs` match the terminal result meta of `@dsh/tools-presentation`.
 */
export interface BashResult {
  /** The script that ran. */
  readonly command: string
  /** The absolute working directory it ran in. */
  readonly cwd: string
  /** The shell's process id (also its process group id); `null` when no process was started (aborted before). */
  readonly pid: number | null
  /** The shell's exit code; `null` when a signal ended it (or it never started). */
  readonly exitCode: number | null
  /** The signal that ended the shell (`SIGTERM`, `SIGKILL`, …), or `null`. */
  readonly signal: string | null
  /** True when the executor stopped the command because its timeout passed. */
  readonly timedOut: boolean
  /** True when the command was stopped on request: its signal aborted, `kill()`, or executor disposal. */
  readonly aborted: boolean
  /** Why the executor stopped the command, or `null` when it ended on its own. */
  readonly stopReason: BashStopReason | null
  /** The timeout that applied, in ms. */
  readonly timeoutMs: number
  /** Wall time from spawn until every process of the command was gone, in ms. */
  readonly durationMs: number
  /**
   * Set when output may have been lost because a pipe was closed before its end: `'drain'` when, after the shell
   * exited and every process of the command was gone, a pipe was still open after the drain bound (the local
   * executor's `drainTimeoutMs`; a process that left the command, such as one started with `setsid`, held it);
   * `'stop'` when the command was stopped (timeout, abort, kill, disposal) after its shell had exited and a pipe
   * was still open. `null` when both streams were read to their end. Optional, so that executors written before it
   * still satisfy the interface (the local executor always sets it; absent reads as `null`).
   */
  readonly outputCutOff?: 'drain' | 'stop' | null | undefined
  /** Standard output. */
  readonly stdout: CapturedOutput
  /** Standard error. */
  readonly stderr: CapturedOutput
  /**
   * A short note from the executor to the model about this result, which the bash tools add after the output
   * (a sandboxed executor's "this looks like a policy block" hint). Optional; the local executor sets none.
   */
  readonly note?: string | undefined
  /**
   * Facts the executor recorded about this command, as lossless JSON (a sandbox's network denials), which the bash
   * tools copy into the result's `meta` as `executor`. Optional; the local executor sets none.
   */
  readonly executorMeta?: JsonObject | undefined
}

/** A background task's state: running, completed (with its result) or failed to start. */
export type BashTaskStatus = 'running' | 'completed' | 'failed'

/** How a background task ended: it ran (`completed`, with its {@link BashResult}) or it never started (`failed`). */
export type BashTaskOutcome =
  | { readonly status: 'completed'; readonly result: BashResult }
  | { readonly status: 'failed'; readonly error: BashSpawnError }

/** What {@link BashTask.read} returns: the output since the previous read, and the status at this read. */
export interface BashTaskOutput {
  /** The status when this read was taken. When `completed` or `failed`, this read holds all the remaining output. */
  readonly status: BashTaskStatus
  /** New standard output since the previous read (bounded by the window; `spill` describes the whole stream). */
  readonly stdout: CapturedOutput
  /** New standard error since the previous read. */
  readonly stderr: CapturedOutput
}

/** A command started in the background by {@link BashExecutor.start}. */
export interface BashTask {
  /** The script. */
  readonly command: string
  /** The absolute working directory. */
  readonly cwd: string
  /** The timeout in ms. */
  readonly timeoutMs: number
  /** The shell's process id (= process group id), or `null` when it failed to start. */
  readonly pid: number | null
  /** When it was started (ms since the epoch). */
  readonly startedAt: number
  /** The current status. */
  readonly status: BashTaskStatus
  /** The outcome once it settled, else `undefined`. */
  readonly outcome: BashTaskOutcome | undefined
  /**
   * Settles (never rejects) when the task has ended and every process of it is gone (its output pipes closed, or
   * cut off at the drain bound).
   */
  readonly done: Promise<BashTaskOutcome>
  /**
   * The output since the previous read (the first read: since the start). A multi-byte character split across
   * reads is held back until it is complete. Between reads, each stream keeps at most the window (head and tail).
   */
  read(): BashTaskOutput
  /** Stops the task (SIGTERM to its group, SIGKILL after the grace) and resolves with its outcome. */
  kill(): Promise<BashTaskOutcome>
  /**
   * Calls `listener` once with the outcome when the task settles (on a microtask if it already has). Returns a
   * function that removes the listener. A listener that throws is logged and does not affect others.
   */
  onDone(listener: (outcome: BashTaskOutcome) => void): () => void
  /**
   * Calls `listener` with each chunk of output as it arrives (every byte, in order per stream, whatever the window
   * keeps for {@link BashTask.read}; a chunk may end inside a multi-byte character), so a reader needs no polling and
   * loses nothing; returns a function that removes it. Do not modify the chunk (the windows share it). Optional: a reader of
   * an executor without it polls `read()`. A listener that throws is logged and does not affect others.
   */
  onOutput?(listener: (stream: 'stdout' | 'stderr', chunk: Uint8Array) => void): () => void
}

/** Options of {@link BashExecutor.resolve}. */
export interface ResolveBashRequestOptions {
  /** Apply the background default timeout instead of the foreground one. */
  background?: boolean | undefined
}

/** The settings a tool may show or use (for example the maximum timeout in its description). */
export interface BashExecutorLimits {
  /** The default working directory (absolute). */
  readonly cwd: string
  /** The foreground default timeout, in ms. */
  readonly defaultTimeoutMs: number
  /** The largest timeout a request may ask for, in ms. */
  readonly maxTimeoutMs: number
  /** The background default timeout, in ms. */
  readonly backgroundTimeoutMs: number
  /** Bytes kept in memory per stream. */
  readonly outputWindowBytes: number
  /**
   * What the executor restricts, in sentences for the model (a sandbox's policy: what commands can write, whether
   * they have network), which the `bash` tool adds to its description. Optional; the local executor sets none.
   */
  readonly policy?: string | undefined
}

/**
 * The executor seam, the cordis service `ctx.bash`. The local implementation ({@link LocalBashExecutor}) runs
 * commands on this machine; a sandboxed or remote one can be provided under the same name instead. It knows
 * nothing about agents, tools or task ids.
 */
export interface BashExecutor {
  /** The settings requests are checked against. */
  readonly limits: BashExecutorLimits
  /**
   * Validates a request and fills in the defaults. Rejects with a `BashRequestError` (`INVALID_ARGS`) for a bad
   * command or timeout, with a `BashSpawnError` (`BASH_SPAWN_FAILED`) when `cwd` is not an existing directory.
   */
  resolve(request: BashRequest, options?: ResolveBashRequestOptions): Promise<ResolvedBashRequest>
  /**
   * Runs a command in the foreground and resolves when it has ended and every process of it is gone. A timeout
   * or an abort resolves too (`timedOut` / `aborted`); it rejects only when the request is invalid or the command
   * could not be started (`BashSpawnError`).
   */
  run(request: BashRequest): Promise<BashResult>
  /**
   * Starts a command in the background and resolves with its handle as soon as it is spawned. Rejects like
   * {@link BashExecutor.resolve}; a failure of the spawn itself shows as the task's `failed` outcome.
   */
  start(request: BashRequest): Promise<BashTask>
}

declare module 'cordis' {
  interface Context {
    /** The command executor (see {@link BashExecutor}). */
    bash: BashExecutor
  }
}

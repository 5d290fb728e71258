import type { JsonObject, TaskSnapshot } from '@dsh/tools-core'
import type { TerminalResultMeta } from '@dsh/tools-presentation'
import type { BashStopReason, BashTaskStatus, CapturedOutput } from './bash-executor.js'
import { savedSpillPath } from './format-bash-output.js'

/** One output stream of a result, as data: how much it printed, how much the text leaves out, where it all is. */
export interface BashStreamMeta {
  /** Bytes the stream printed (for a background read: since the previous read). */
  readonly bytes: number
  /** Bytes left out of the text between its head and its tail. */
  readonly omittedBytes: number
  /**
   * The spill file that holds the whole stream, when one was written (it may be cut at the spill cap or by a write
   * failure); `null` when no file holds any of it (none was needed, or it could not be created or written).
   */
  readonly spillPath: string | null
}

/**
 * The `meta` of a foreground `bash` result: how the command ended, as {@link TerminalResultMeta} (read it with
 * `readTerminalResultMeta` of `@dsh/tools-presentation`), plus where it ran and what each stream printed.
 */
export interface BashRunMeta extends TerminalResultMeta {
  /** The absolute directory the command ran in. */
  readonly cwd: string
  /** The timeout that applied, in ms. */
  readonly timeoutMs: number
  /** Spawn → every process gone, in ms. */
  durationMs: number
  /** Set when output may be missing because a pipe was closed before its end (see `BashResult.outputCutOff`). */
  readonly outputCutOff: 'drain' | 'stop' | null
  /** Standard output. */
  readonly stdout: BashStreamMeta
  /** Standard error. */
  readonly stderr: BashStreamMeta
  /** What the executor recorded about the command (`BashResult.executorMeta`), when it recorded anything. */
  readonly executor?: JsonObject
}

/** The `meta` of a `bash` call with `run_in_background`: the task that was started. */
export interface BashStartMeta {
  /** The id to pass to `bash_output` and `bash_kill`. */
  readonly taskId: string
  /** Always `running` when the call returns (a spawn failure shows at the first `bash_output`). */
  readonly status: 'running'
  /** The shell's process id (its process group id), or `null` when the spawn failed. */
  readonly pid: number | null
  /** The absolute directory the command runs in. */
  readonly cwd: string
  /** The timeout that applies, in ms. */
  readonly timeoutMs: number
  /**
   * The task layer's snapshot of the task, when `@dsh/tool-tasks` runs it (absent when tool-bash's own table does):
   * what a UI's task card and `task_list` show.
   */
  readonly task?: TaskSnapshot
}

/**
 * The `meta` of `bash_output` and `bash_kill`: the task's status at the read and the streams of this read. Once
 * the task has completed it also holds the {@link TerminalResultMeta} fields (`exitCode`, `signal`, `timedOut`,
 * `durationMs`) and why the executor stopped it, if it did.
 */
export interface BashTaskMeta {
  /** The task. */
  readonly taskId: string
  /** `running`, `completed` (the command ran and ended) or `failed` (it could not be started). */
  readonly status: BashTaskStatus
  /** The exit code, once completed; `null` when a signal ended the shell. */
  readonly exitCode?: number | null
  /** The signal that ended the shell, once completed. */
  readonly signal?: string | null
  /** True when its timeout stopped it, once completed. */
  readonly timedOut?: boolean
  /** Spawn → every process gone, in ms, once completed. */
  readonly durationMs?: number
  /** Why the executor stopped it (`kill` for `bash_kill`), once completed; `null` when it ended on its own. */
  readonly stopReason?: BashStopReason | null
  /** Set when output may be missing because a pipe was closed before its end, once completed. */
  readonly outputCutOff?: 'drain' | 'stop' | null
  /** What the executor recorded about the command (`BashResult.executorMeta`), once completed, when it recorded anything. */
  readonly executor?: JsonObject
  /** Standard output of this read. */
  readonly stdout: BashStreamMeta
  /** Standard error of this read. */
  readonly stderr: BashStreamMeta
}

/** The {@link BashStreamMeta} of a captured stream. */
export function streamMeta(output: CapturedOutput): BashStreamMeta {
  return { bytes: output.totalBytes, omittedBytes: output.omittedBytes, spillPath: savedSpillPath(output.spill) }
}

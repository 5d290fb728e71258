import { StringDecoder } from 'node:string_decoder'
import { TASK_ERROR_CODES, type Agent, type ToolExecution } from '@dsh/tools-core'
import { TaskError, type StartedTask, type TaskContext, type TaskRunResult, type TaskService } from '@dsh/tool-tasks'
import { BashAbortedError } from './bash-aborted-error.js'
import type { BashExecutor, BashRequest, BashTask, BashTaskOutcome } from './bash-executor.js'
import { formatOutputChunk, formatTaskEnd, streamSwitch, type OutputChunkState } from './format-bash-output.js'

/**
 * How often a running command's new output is read into its task's output, in ms, when its executor's tasks do not
 * hand over each chunk ({@link BashTask.onOutput}); with it, every chunk moves as it arrives.
 */
export const LAYER_PUMP_INTERVAL_MS = 50

/**
 * How far past the command's own timeout the task's maximum run time lies, so the command's timeout (which stops it
 * with markers the model can read) always fires first, and the layer's limit only catches an executor that hangs.
 */
const RUNTIME_MARGIN_MS = 70_000

/** A background command the task layer runs: the layer's task and the executor's handle. */
export interface LayerBashTask {
  readonly started: StartedTask
  readonly task: BashTask
}

/**
 * `bash` with `run_in_background` when `@dsh/tool-tasks` is loaded: every command is a task of the layer (its ids,
 * owners, caps, retention, notices, `task_output`, `task_kill`, `task_list` and store), and tool-bash only runs the
 * command: it starts it through the executor, moves its output into the task's output as it comes, stops it when the
 * task's signal fires (`task_kill`, the maximum run time, the layer's unload), and ends the task with how the command
 * ended. Unloading the bash tools stops every command it started (no notice).
 */
export class LayerBashTasks {
  private readonly running = new Map<BashTask, StartedTask>()
  /** Starts in flight: their commands are stopped too when the tools unload meanwhile. */
  private readonly starting = new Set<Promise<unknown>>()
  private disposed = false

  /**
   * Starts `request` as a task of `layer` for the call `exec`. Throws {@link TaskError} `TASK_LIMIT` when a cap of
   * the layer leaves no room (nothing is started), {@link BashAbortedError} when the tools are being unloaded, and
   * whatever the executor's `start` throws (an invalid request, a missing directory).
   */
  start(layer: TaskService, executor: BashExecutor, exec: Readonly<ToolExecution>, request: BashRequest): Promise<LayerBashTask> {
    const operation = this.launch(layer, executor, exec, request)
    this.starting.add(operation)
    const settled = (): void => void this.starting.delete(operation)
    operation.then(settled, settled)
    return operation
  }

  private async launch(layer: TaskService, executor: BashExecutor, exec: Readonly<ToolExecution>, request: BashRequest): Promise<LayerBashTask> {
    if (this.disposed) throw new BashAbortedError('dispose', 'The bash tools are being unloaded; nothing was started.')
    refuseWithoutRoom(layer, exec.agent)
    const task = await executor.start(request)
    if (this.disposed) {
      await task.kill()
      throw new BashAbortedError('dispose', 'The bash tools were unloaded while the task started; it was stopped.')
    }
    let started: StartedTask
    try {
      // Another call may have taken the last slot while the executor started this one: the layer checks again.
      started = layer.start(exec, (context) => this.pump(task, context), { maxRuntimeMs: task.timeoutMs + RUNTIME_MARGIN_MS })
    } catch (error) {
      await task.kill()
      throw error
    }
    this.running.set(task, started)
    task.onDone(() => this.running.delete(task))
    return { started, task }
  }

  /** Moves the command's output into the task until it ends, stops it when the task's signal fires, and says how it ended. */
  private async pump(task: BashTask, context: TaskContext): Promise<TaskRunResult> {
    const stop = (): void => void task.kill()
    if (context.signal.aborted) stop()
    else context.signal.addEventListener('abort', stop, { once: true })
    const follow = typeof task.onOutput === 'function' ? followChunks(task, context) : pollReads(task, context)
    let outcome: BashTaskOutcome
    try {
      outcome = await task.done
    } finally {
      follow.end()
      context.signal.removeEventListener('abort', stop)
    }
    if (outcome.status === 'failed') throw outcome.error
    const { result } = outcome
    return {
      content: [{ type: 'text', text: formatTaskEnd(outcome) }],
      meta: {
        exitCode: result.exitCode,
        signal: result.signal,
        timedOut: result.timedOut,
        durationMs: result.durationMs,
        stopReason: result.stopReason,
        cwd: result.cwd,
      },
    }
  }

  /** Stops every command it started (their tasks end `cancelled`, nobody is told) and waits until each has settled. */
  async dispose(): Promise<void> {
    this.disposed = true
    await Promise.allSettled(this.starting)
    const running = [...this.running]
    for (const [, started] of running) started.cancel('the bash tools were unloaded')
    await Promise.all(running.map(([task]) => task.kill()))
  }
}

/** Throws the layer's `TASK_LIMIT` when one more task of `agent` would pass a cap, before any process starts. */
function refuseWithoutRoom(layer: TaskService, agent: Agent | undefined): void {
  const problem = layer.roomFor(agent)
  if (problem !== undefined) {
    throw new TaskError(TASK_ERROR_CODES.LIMIT, `Cannot start another background task: ${problem}.`)
  }
}

/** How output reaches a task until the command ends; `end()` moves what is left and stops following. */
interface OutputFollower {
  end(): void
}

/**
 * Every chunk, as it arrives ({@link BashTask.onOutput}): nothing is lost to the executor's read window, and the
 * layer's own window and spill file bound what is kept. Each stream is decoded on its own, so a character split
 * across chunks is whole, and a `[stderr]` / `[stdout]` line marks each switch of stream.
 */
function followChunks(task: BashTask, context: TaskContext): OutputFollower {
  const decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') }
  const state: OutputChunkState = { stream: 'stdout', atLineStart: true }
  const append = (stream: 'stdout' | 'stderr', text: string): void => {
    if (text === '') return
    const chunk = streamSwitch(state, stream) + text
    state.atLineStart = text.endsWith('\n')
    context.output(chunk)
  }
  const off = (task.onOutput as NonNullable<BashTask['onOutput']>)((stream, chunk) => append(stream, decoders[stream].write(chunk as Buffer)))
  return {
    end() {
      off()
      append('stdout', decoders.stdout.end())
      append('stderr', decoders.stderr.end())
    },
  }
}

/** `read()` every {@link LAYER_PUMP_INTERVAL_MS}, for an executor whose tasks lack `onOutput` (its window bounds each read). */
function pollReads(task: BashTask, context: TaskContext): OutputFollower {
  const state: OutputChunkState = { stream: 'stdout', atLineStart: true }
  const drain = (): void => {
    const text = formatOutputChunk(task.read(), state)
    if (text !== '') context.output(text)
  }
  const timer = setInterval(drain, LAYER_PUMP_INTERVAL_MS)
  timer.unref()
  return {
    end() {
      clearInterval(timer)
      drain()
    },
  }
}

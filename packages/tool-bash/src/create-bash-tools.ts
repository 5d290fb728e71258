import { isAbsolute, join } from 'node:path'
import type { JsonObject, ToolExecution, ToolResult, ToolResultView } from '@dsh/tools-core'
import { genericCall, genericResult, terminalCall, terminalResultFromMeta, terminalResultMeta } from '@dsh/tools-presentation'
import { defineTool, MAX_TIMEOUT_MS } from '@dsh/tools-schema'
import { taskCard, taskKillResult, taskOutputResult, type TaskService } from '@dsh/tool-tasks'
import { describeDuration, type BackgroundTasks, type TaskRead } from './background-tasks.js'
import { BashAbortedError } from './bash-aborted-error.js'
import type { BashExecutor, BashExecutorLimits, BashRequest, BashResult } from './bash-executor.js'
import { BashRequestError } from './bash-request-error.js'
import { streamMeta, type BashRunMeta, type BashStartMeta, type BashTaskMeta } from './bash-tool-meta.js'
import type { ResolvedBashToolsConfig } from './bash-tools-config.js'
import { ownValue } from './config-values.js'
import { formatBashResult, formatBashTaskOutput } from './format-bash-output.js'
import type { LayerBashTasks } from './layer-tasks.js'

/**
 * How far past the executor's maximum command timeout the `bash` tool's declared `timeoutMs` (its budget for a
 * timeout policy) lies: the longest kill grace (60 s), the executor's wait for processes stuck after SIGKILL (5 s),
 * and slack. A command's own timeout always fires first; the budget only catches an executor that hangs, and keeps
 * a policy's default budget for tools that declare none from cutting long commands short.
 */
export const BUDGET_MARGIN_MS = 70_000

/** Foreground commands in flight, so that unloading the tools stops them instead of leaving them to run. */
export class ForegroundRuns {
  private readonly runs = new Map<AbortController, Promise<unknown>>()
  private disposed = false

  /** Runs `request` under `signal` and under the tools' own lifetime. */
  async run(executor: BashExecutor, request: BashRequest, signal: AbortSignal): Promise<BashResult> {
    if (this.disposed) throw new BashAbortedError('dispose', 'The bash tools are being unloaded; the command was not run.')
    const controller = new AbortController()
    const forward = (): void => controller.abort(signal.reason)
    if (signal.aborted) forward()
    else signal.addEventListener('abort', forward, { once: true })
    try {
      const running = executor.run({ ...request, signal: controller.signal })
      this.runs.set(controller, running)
      return await running
    } finally {
      signal.removeEventListener('abort', forward)
      this.runs.delete(controller)
    }
  }

  /** True once the tools are being unloaded. */
  get stopping(): boolean {
    return this.disposed
  }

  /** Aborts every command in flight and waits until each has settled. */
  async dispose(): Promise<void> {
    this.disposed = true
    const runs = [...this.runs]
    for (const [controller] of runs) controller.abort()
    await Promise.allSettled(runs.map(([, running]) => running))
  }
}

/**
 * What {@link createBashTools} needs: the executor, the task table, the in-flight runs and the configuration; and,
 * when `@dsh/tool-tasks` may be loaded, how to find it (`layer`, asked at each call) and the commands run on it.
 */
export interface BashToolsContext {
  readonly executor: BashExecutor
  readonly tasks: BackgroundTasks
  readonly foreground: ForegroundRuns
  readonly config: ResolvedBashToolsConfig
  readonly layer?: (() => TaskService | undefined) | undefined
  readonly layerTasks?: LayerBashTasks | undefined
}

/** Ids of tool-bash's own task table (`bash_1`, …); any other id is the task layer's, when it is loaded. */
const OWN_TASK_ID = /^bash_\d+$/

/** The task layer that runs a task id, or `undefined` when tool-bash's own table does (or no layer is loaded). */
function layerFor(context: BashToolsContext, taskId: string): TaskService | undefined {
  return OWN_TASK_ID.test(taskId) ? undefined : context.layer?.()
}

/** The directory a call runs in: `workdir` (absolute, or relative to the agent's cwd), else the agent's cwd. */
function requestCwd(workdir: string | undefined, exec: ToolExecution): string | undefined {
  if (workdir === '') throw new BashRequestError('workdir', 'workdir must be a non-empty path (or left out)')
  const agentCwd = exec.agent?.cwd
  if (workdir !== undefined && isAbsolute(workdir)) return workdir
  if (agentCwd === undefined || agentCwd === '') return workdir
  // A relative agent cwd stays relative: the executor resolves it against its own cwd.
  return workdir === undefined ? agentCwd : join(agentCwd, workdir)
}

/**
 * One argument of a call, read as an own property only: when something in the process polluted `Object.prototype`
 * (`command`, `run_in_background`, …), a call that left the argument out must not get the inherited value.
 */
function arg<Args extends object, Key extends keyof Args & string>(args: Args, key: Key): Args[Key] | undefined {
  return ownValue(args, key) as Args[Key] | undefined
}

/** The executor's own policy sentence (a sandbox's), with a leading space, or '' when it has none. */
function executorPolicy(limits: BashExecutorLimits): string {
  const policy: unknown = Object.hasOwn(limits, 'policy') ? limits.policy : undefined
  return typeof policy === 'string' && policy !== '' ? ` ${policy}` : ''
}

function runMeta(result: BashResult): BashRunMeta {
  return {
    ...terminalResultMeta({
      exitCode: result.exitCode,
      signal: result.signal,
      timedOut: result.timedOut,
      durationMs: result.durationMs,
    }),
    durationMs: result.durationMs,
    outputCutOff: result.outputCutOff ?? null,
    cwd: result.cwd,
    timeoutMs: result.timeoutMs,
    stdout: streamMeta(result.stdout),
    stderr: streamMeta(result.stderr),
    ...executorMeta(result),
  }
}

/** `{ executor }` when the result carries its own `executorMeta` (an inherited one is not the executor's), else `{}`. */
function executorMeta(result: BashResult): { executor?: JsonObject } {
  const meta: unknown = Object.hasOwn(result, 'executorMeta') ? result.executorMeta : undefined
  return typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? { executor: meta as JsonObject } : {}
}

function taskMeta(read: TaskRead): BashTaskMeta {
  const base = {
    taskId: read.record.id,
    status: read.output.status,
    stdout: streamMeta(read.output.stdout),
    stderr: streamMeta(read.output.stderr),
  }
  const outcome = read.outcome
  if (outcome === undefined || outcome.status === 'failed') return base
  const { result } = outcome
  return {
    ...base,
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
    stopReason: result.stopReason,
    outputCutOff: result.outputCutOff ?? null,
    ...executorMeta(result),
  }
}

/** The `task_id` argument, own property only (an inherited one names no task: the lookup fails as for a wrong id). */
function taskIdOf(args: { task_id: string }): string {
  const id = arg(args, 'task_id')
  return typeof id === 'string' ? id : ''
}

function readTaskStatus(result: ToolResult): string | undefined {
  const meta = result.meta
  if (typeof meta !== 'object' || meta === null) return undefined
  const status = ownValue(meta, 'status')
  return status === 'running' || status === 'completed' || status === 'failed' ? status : undefined
}

const taskIdParameter = {
  task_id: {
    type: 'string',
    required: true,
    description: 'The id of the background task, as bash returned it (for example "bash_1").',
  },
} as const

/**
 * Builds the three model-facing tools (`bash`, `bash_output`, `bash_kill`) over an executor. The descriptions
 * state the executor's limits (timeouts, output window) so the model knows them.
 */
export function createBashTools(context: BashToolsContext) {
  const { executor, tasks, foreground, config, layerTasks } = context
  const limits = executor.limits
  const notice = config.notifyOnCompletion ? ', and you are told when it ends' : ''

  const bash = defineTool({
    name: 'bash',
    timeoutMs: Math.min(MAX_TIMEOUT_MS, limits.maxTimeoutMs + BUDGET_MARGIN_MS),
    description:
      'Runs a bash command and returns its output. The command runs with `bash -c` (not a login or interactive ' +
      'shell; stdin is empty, so a command that waits for input reads end-of-file) in the working directory, or in ' +
      '`workdir`. The result is stdout, then stderr after a `[stderr]` line, then markers: `[output truncated: …]` ' +
      `when a stream printed more than ${limits.outputWindowBytes} bytes (its start and end are shown, and the marker ` +
      'names the file holding all of it), `[timed out after Nms]`, and `[killed by signal: S]` or `[exit code: N]`. ' +
      'No exit marker means exit code 0; `(no output)` means nothing was printed. ' +
      `The timeout is ${limits.defaultTimeoutMs} ms unless \`timeout\` says otherwise (at most ${limits.maxTimeoutMs} ms); ` +
      'when it passes, the command and every process it started are stopped, and so are processes it leaves running ' +
      'when it ends. For servers, watchers and other long jobs set `run_in_background`: you get a task id at once, ' +
      `read new output with bash_output and stop the task with bash_kill${notice}. At most ` +
      `${config.maxBackgroundTasks} background tasks may run at once. Environment variables and stdin cannot be ` +
      'passed as arguments: set variables in the command itself (`FOO=bar make`).' +
      executorPolicy(limits),
    parameters: {
      command: { type: 'string', required: true, description: 'The command to run: a bash script, one or more lines.' },
      description: {
        type: 'string',
        description: 'What the command does, in a few words (shown to the user), for example "Run the unit tests".',
      },
      timeout: {
        type: 'integer',
        description:
          `Stop the command after this many milliseconds: 1 to ${limits.maxTimeoutMs}. Default: ${limits.defaultTimeoutMs} ` +
          `(${limits.backgroundTimeoutMs} in the background).`,
      },
      workdir: {
        type: 'string',
        description: 'The directory to run in: absolute, or relative to the working directory. It must exist.',
      },
      run_in_background: {
        type: 'boolean',
        description: 'Start the command and return a task id at once instead of waiting for it to finish.',
      },
    },
    async execute(args, exec) {
      const cwd = requestCwd(arg(args, 'workdir'), exec)
      // A missing command reaches the executor as `undefined` and is refused there (INVALID_ARGS).
      const request: BashRequest = { command: arg(args, 'command') as string, cwd, timeoutMs: arg(args, 'timeout') }
      const layer = arg(args, 'run_in_background') === true && layerTasks !== undefined ? context.layer?.() : undefined
      if (layer !== undefined && layerTasks !== undefined) {
        const { started, task } = await layerTasks.start(layer, executor, exec, request)
        const id = started.task.id
        const meta: BashStartMeta = { taskId: id, status: 'running', pid: task.pid, cwd: task.cwd, timeoutMs: task.timeoutMs, task: started.task }
        const told = layer.config.notify && typeof exec.agent?.inject === 'function'
        const text =
          `Started background task ${id} in ${task.cwd} (timeout ${task.timeoutMs}ms). ` +
          `Read its output with bash_output or task_output and stop it with bash_kill or task_kill (task_id "${id}")` +
          `${told ? '; you will be told when it ends' : ''}.`
        return { content: [{ type: 'text', text }], meta }
      }
      if (arg(args, 'run_in_background') === true) {
        const record = await tasks.start(executor, exec.agent, request)
        const { task } = record
        const meta: BashStartMeta = {
          taskId: record.id,
          status: 'running',
          pid: task.pid,
          cwd: task.cwd,
          timeoutMs: task.timeoutMs,
        }
        const told = config.notifyOnCompletion && typeof exec.agent?.inject === 'function'
        const text =
          `Started background task ${record.id} in ${task.cwd} (timeout ${task.timeoutMs}ms). ` +
          `Read its output with bash_output and stop it with bash_kill (task_id "${record.id}")` +
          `${told ? '; you will be told when it ends' : ''}.`
        return { content: [{ type: 'text', text }], meta }
      }
      const result = await foreground.run(executor, request, exec.signal)
      if (result.aborted) {
        const why =
          result.stopReason === 'dispose' || foreground.stopping
            ? 'because the bash tools were unloaded'
            : 'because the call was cancelled'
        throw new BashAbortedError(
          result.stopReason === 'dispose' || foreground.stopping ? 'dispose' : 'abort',
          `The command was stopped before it finished ${why}; all of its processes were stopped. ` +
            `What it printed:\n${formatBashResult(result)}`,
        )
      }
      return { content: [{ type: 'text', text: formatBashResult(result) }], meta: runMeta(result) }
    },
    presentCall(args) {
      const title = String(arg(args, 'command') ?? '')
      const description = arg(args, 'description')
      if (arg(args, 'run_in_background') === true) {
        return genericCall({
          title,
          kind: 'execute',
          content: [{ type: 'text', text: `${description ?? 'Runs'} (in the background)` }],
        })
      }
      return terminalCall({ title, description, cwd: arg(args, 'workdir') })
    },
    presentResult(args, result): ToolResultView {
      if (arg(args, 'run_in_background') === true) return genericResult()
      return terminalResultFromMeta(result)
    },
  })

  const bashOutput = defineTool({
    name: 'bash_output',
    description:
      'Returns what a background task (started by bash with run_in_background) printed since the previous ' +
      'bash_output for it, laid out like bash output (stdout, `[stderr]`, markers), and its status: the text ends ' +
      'with `[task <id> is still running]`, or, once the task has ended, with its exit markers and ' +
      '`[task <id> has finished]` (or `was killed`, `failed to start: …`). After a read that shows the task ended, ' +
      'the task is forgotten. A finished task nobody reads is dropped after ' +
      `${describeDuration(config.finishedTaskRetentionMs)} (or once ${config.maxFinishedTasks} newer ` +
      'finished tasks wait), so read it soon.',
    parameters: taskIdParameter,
    concurrencySafe: true,
    async execute(args, exec) {
      const layer = layerFor(context, taskIdOf(args))
      if (layer !== undefined) return taskOutputResult(await layer.read(taskIdOf(args), exec.agent))
      const read = tasks.read(exec.agent, taskIdOf(args))
      return {
        content: [{ type: 'text', text: formatBashTaskOutput(read.record.id, read.output, read.outcome) }],
        meta: taskMeta(read),
      }
    },
    presentCall: (args) => genericCall({ title: `Output of ${taskIdOf(args)}`, kind: 'read' }),
    presentResult(args, result) {
      const card = taskCard(result)
      if (card !== undefined) return card
      const status = readTaskStatus(result)
      const id = taskIdOf(args)
      return genericResult({ title: status === undefined ? `Output of ${id}` : `Output of ${id} (${status})` })
    },
  })

  const bashKill = defineTool({
    name: 'bash_kill',
    description:
      'Stops a background task started by bash with run_in_background: SIGTERM to it and every process it started, ' +
      'SIGKILL to those still alive after a short grace. Returns what it printed since the previous bash_output, ' +
      'with its exit markers; the task is forgotten afterwards.',
    parameters: taskIdParameter,
    async execute(args, exec) {
      const layer = layerFor(context, taskIdOf(args))
      if (layer !== undefined) return taskKillResult(await layer.kill(taskIdOf(args), exec.agent), layer.config.killGraceMs)
      const read = await tasks.kill(exec.agent, taskIdOf(args))
      const prefix = read.alreadyEnded ? `Task ${read.record.id} had already ended.\n` : ''
      return {
        content: [{ type: 'text', text: prefix + formatBashTaskOutput(read.record.id, read.output, read.outcome) }],
        meta: taskMeta(read),
      }
    },
    presentCall: (args) => genericCall({ title: `Stop ${taskIdOf(args)}`, kind: 'execute' }),
    presentResult: (args, result) => taskCard(result) ?? genericResult({ title: `Stop ${taskIdOf(args)}` }),
  })

  return [bash, bashOutput, bashKill] as const
}

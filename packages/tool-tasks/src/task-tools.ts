import type { ContentBlock, JsonObject, TaskSnapshot, ToolResult, ToolResultView } from '@dsh/tools-core'
import { taskResult } from '@dsh/tools-presentation'
import { defineTool, type DefinedTool } from '@dsh/tools-schema'
import type { TaskRead, TaskService } from './task-service.js'

/** The model's three task tools, bound to `tasks`. */
export function createTaskTools(tasks: TaskService): DefinedTool<unknown, unknown>[] {
  const taskOutput = defineTool({
    name: 'task_output',
    description:
      'Read a background task: its new output, its status, and its final result once it has ended. Without since, returns what you have not read yet; ' +
      'with since (the cursor a previous read returned), returns the output from there again (a repeated read loses nothing). ' +
      'wait_ms waits up to that long (at most 30000) for new output or the end before answering.',
    parameters: {
      task_id: { type: 'string', required: true, description: 'The id the started call returned (task_list shows yours).' },
      since: { type: 'integer', minimum: 0, description: 'A cursor from an earlier read: return the output from there.' },
      wait_ms: { type: 'integer', minimum: 0, maximum: 30_000, description: 'Wait up to this long for new output or the end.' },
    },
    concurrencySafe: true,
    async execute(args, exec) {
      return taskOutputResult(await tasks.read(args.task_id, exec.agent, { since: args.since, waitMs: args.wait_ms }))
    },
    presentResult: (_args, result) => taskCard(result),
  })
  const taskKill = defineTool({
    name: 'task_kill',
    description: 'Stop a background task. Says whether it stopped, or may still be running when it did not stop in time.',
    parameters: { task_id: { type: 'string', required: true, description: 'The task to stop.' } },
    async execute(args, exec) {
      return taskKillResult(await tasks.kill(args.task_id, exec.agent), tasks.config.killGraceMs)
    },
    presentResult: (_args, result) => taskCard(result),
  })
  const taskList = defineTool({
    name: 'task_list',
    description: 'List your background tasks: id, tool, status, age and unread output.',
    parameters: {},
    concurrencySafe: true,
    execute(_args, exec) {
      const mine = tasks.list(exec.agent)
      if (mine.length === 0) return 'You have no background tasks.'
      const now = Date.now()
      const lines = mine.map(
        (task) =>
          `${task.id}  ${task.tool}  ${task.status}  ${seconds((task.endedAt ?? now) - task.startedAt)}${task.unreadBytes > 0 ? `  ${task.unreadBytes} bytes unread` : ''}  ${task.title}`,
      )
      return { content: [{ type: 'text', text: lines.join('\n') }], meta: { tasks: mine.map((task) => ({ ...task })) } }
    },
  })
  return [taskOutput, taskKill, taskList] as DefinedTool<unknown, unknown>[]
}

/**
 * What `task_output` answers for a read: the text (a status line, the output read, and the final result once the
 * task has ended) and `meta` (`task`: the snapshot; `cursor`: where the next read starts). For a tool's own alias of
 * `task_output` (tool-bash's `bash_output`), so both answer alike.
 */
export function taskOutputResult(read: TaskRead): { content: ContentBlock[]; meta: JsonObject } {
  const meta: JsonObject = { task: { ...read.task } as unknown as JsonObject, ...(read.output === undefined ? {} : { cursor: read.output.next }) }
  return { content: render(read), meta }
}

/**
 * What `task_kill` answers for a kill ({@link TaskService.kill}'s outcome; `graceMs`: the layer's `killGraceMs`),
 * for a tool's own alias of `task_kill`.
 */
export function taskKillResult(
  kill: { readonly task: TaskSnapshot; readonly stopped: boolean; readonly alreadyEnded: boolean },
  graceMs: number,
): { content: ContentBlock[]; meta: JsonObject } {
  const { task, stopped, alreadyEnded } = kill
  const text = alreadyEnded
    ? `Task ${task.id} had already ended (${task.status}); nothing to stop.`
    : stopped
      ? `Task ${task.id} was stopped.`
      : `Task ${task.id} was told to stop but had not stopped after ${graceMs} ms: it may still be running, and its side effects may still take effect. It is recorded as cancelled.`
  return { content: [{ type: 'text', text }], meta: { task: { ...task } as unknown as JsonObject } }
}

/**
 * The `task` card of a `task_output` or `task_kill` result, from the task snapshot in its `meta` (the output shown is
 * the result's text); `undefined` (the generic card) for a failure, or a result without one.
 */
export function taskCard(result: ToolResult): ToolResultView | undefined {
  const task = (result.meta as { task?: Partial<TaskSnapshot> } | undefined)?.task
  if (result.isError || task === undefined || typeof task.id !== 'string' || typeof task.status !== 'string') return undefined
  return taskResult({
    title: `Task ${task.id}${typeof task.tool === 'string' ? ` (${task.tool})` : ''}`,
    taskId: task.id,
    status: task.status,
    ...(typeof task.statusMessage === 'string' ? { statusMessage: task.statusMessage } : {}),
    ...(task.progress === undefined ? {} : { progress: task.progress }),
  })
}

/** What `task_output` shows: a status line, the output read, and the final result once the task ended. */
function render(read: TaskRead): ContentBlock[] {
  const { task, output, final, restored } = read
  const lines = [`Task ${task.id} (${task.tool}): ${task.status}${task.statusMessage === undefined ? '' : ` — ${task.statusMessage}`}`]
  if (output !== undefined) {
    if (output.dropped > 0) lines.push(`[${output.dropped} bytes of earlier output were dropped and cannot be read]`)
    if (output.text !== '') lines.push(output.text)
    lines.push(
      output.more > 0
        ? `[output up to byte ${output.next} of ${task.outputBytes}; ${output.more} more bytes: call task_output with since ${output.next}]`
        : `[cursor: ${output.next}]`,
    )
  }
  const blocks: ContentBlock[] = [{ type: 'text', text: lines.join('\n') }]
  if (task.status === 'working' || task.status === 'input_required') return blocks
  if (final !== undefined) {
    blocks.push({ type: 'text', text: final.isError ? `The task failed${final.error === undefined ? '' : ` (${final.error.code})`}. Its result:` : 'The task completed. Its result:' })
    blocks.push(...(final.content as ContentBlock[]))
  } else if (restored !== undefined) {
    blocks.push({ type: 'text', text: 'The task ended before the host restarted. What task_output showed of it then:' })
    blocks.push(...(restored.content as ContentBlock[]))
  } else {
    blocks.push({ type: 'text', text: endedWithout(task.status) })
  }
  return blocks
}

function endedWithout(status: string): string {
  return status === 'cancelled' ? 'The task was stopped before it finished; it has no result.' : 'The task ended without a result.'
}

function seconds(ms: number): string {
  return ms < 60_000 ? `${Math.round(ms / 1_000)}s` : `${Math.round(ms / 60_000)}m`
}

import { describe, expect, it } from 'vitest'
import { toAcpToolCallUpdate } from './acp-mapping.js'
import { genericCall, taskResult } from './card-builders.js'
import { snapshotToolResultView } from './card-snapshot.js'
import { InvalidCardError } from './invalid-card-error.js'
import { renderToolResult } from './render-card.js'
import { UnknownCardError } from './unknown-card-error.js'
import { findToolCallViewIssue, findToolResultViewIssue, isToolResultView } from './validate-card.js'

const call = genericCall({ title: 'task_output' })
const ok = { content: [{ type: 'text' as const, text: 'Task task_1 (build): working\nline 1\nline 2' }], isError: false }

describe('the task card', () => {
  it('is built from a task snapshot, and is a result card only', () => {
    const view = taskResult({ taskId: 'task_1', status: 'working', statusMessage: 'compiling', progress: { progress: 3, total: 5 }, output: 'a\nb' })
    expect(view).toEqual({ card: 'task', taskId: 'task_1', status: 'working', statusMessage: 'compiling', progress: { progress: 3, total: 5 }, output: 'a\nb' })
    expect(isToolResultView(view)).toBe(true)
    const asCall = findToolCallViewIssue({ ...view, title: 'x' })
    expect(asCall).toBeInstanceOf(UnknownCardError)
    expect(asCall?.message).toContain('"task" is a card for completed calls only')
  })

  it('names each malformed field', () => {
    const cases: [unknown, string][] = [
      [{ card: 'task', status: 'working' }, 'taskId'],
      [{ card: 'task', taskId: 't', status: 'done' }, 'status'],
      [{ card: 'task', taskId: 't', status: 'failed', statusMessage: 3 }, 'statusMessage'],
      [{ card: 'task', taskId: 't', status: 'failed', output: [] }, 'output'],
      [{ card: 'task', taskId: 't', status: 'failed', progress: 2 }, 'progress'],
      [{ card: 'task', taskId: 't', status: 'failed', progress: { total: 2 } }, 'progress.progress'],
      [{ card: 'task', taskId: 't', status: 'failed', progress: { progress: 1, total: Number.NaN } }, 'progress.total'],
      [{ card: 'task', taskId: 't', status: 'failed', progress: { progress: 1, message: 1 } }, 'progress.message'],
    ]
    for (const [value, path] of cases) {
      const issue = findToolResultViewIssue(value)
      expect(issue, JSON.stringify(value)).toBeInstanceOf(InvalidCardError)
      expect(issue?.path).toBe(path)
    }
  })

  it('is detached as a copy of the fields the vocabulary knows', () => {
    const source = { card: 'task', taskId: 't', status: 'completed', progress: { progress: 1, extra: true }, secret: 'x' }
    const snapshot = snapshotToolResultView(source)
    expect(snapshot.ok && snapshot.view).toEqual({ card: 'task', taskId: 't', status: 'completed', progress: { progress: 1 } })
    expect(snapshot.ok && Object.isFrozen(snapshot.view)).toBe(true)
  })

  it('renders its status as the pill, its message and progress, and the tail of the output', () => {
    const lines = renderToolResult(taskResult({ taskId: 'task_1', status: 'working', statusMessage: 'compiling', progress: { progress: 3, total: 5, message: 'files' } }), {
      color: false,
      call,
      result: ok,
      tailLines: 2,
    })
    expect(lines.join('\n')).toBe(
      [
        '• task_output  [task working]',
        '  task task_1 — compiling',
        '  progress 3/5 files',
        '  … 1 earlier line',
        '  │ line 1',
        '  │ line 2',
      ].join('\n'),
    )
    const failed = renderToolResult(taskResult({ taskId: 'task_1', status: 'failed', output: '' }), { color: false, call, result: ok })
    expect(failed[0]).toBe('• task_output  [task failed]')
  })

  it('maps to one ACP text content: the status line and the output in a console block', () => {
    const update = toAcpToolCallUpdate(
      { toolCallId: 'c', call, view: taskResult({ taskId: 'task_1', status: 'completed', progress: { progress: 5, total: 5 }, output: 'done' }), result: ok },
      { cwd: '/work/app' },
    )
    expect(update).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'c',
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: 'Task task\\_1: completed (5/5)\n\n```console\ndone\n```' } }],
    })
  })
})

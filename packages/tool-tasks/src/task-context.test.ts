import type { ToolExecution } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import { attachTaskContext, taskOf, type TaskContext } from './task-context.js'

describe('taskOf across copies of the package', () => {
  it('a second copy of the module finds the context the first attached (one map per process)', async () => {
    // A query string makes the module loader evaluate the file again: a second copy, as a harness with two installs has.
    const second = (await import(/* @vite-ignore */ `./task-context.js?copy=${Date.now()}`)) as typeof import('./task-context.js')
    expect(second.taskOf).not.toBe(taskOf)
    const exec = { callId: 'c', name: 't', arguments: {}, signal: new AbortController().signal } as unknown as ToolExecution
    const context = { id: 'task_1' } as unknown as TaskContext
    attachTaskContext(exec, context)
    expect(second.taskOf(exec)).toBe(context)
    expect(taskOf({ ...exec } as ToolExecution)).toBeUndefined()
  })
})

import type { Agent, ContentBlock, TaskSnapshot, ToolExecution } from '@dsh/tools-core'
import type { Context } from 'cordis'
import { describe, expectTypeOf, test } from 'vitest'
import { taskOf, type TaskContext } from './task-context.js'
import type { StartedTask, TaskRead, TaskRunResult, TaskService } from './task-service.js'
import { taskOutputResult } from './task-tools.js'

describe('the task layer, as its users see it', () => {
  test('ctx.tasks is the service, with typed reads and kills', () => {
    expectTypeOf<Context['tasks']>().toEqualTypeOf<TaskService>()
    expectTypeOf<TaskService['list']>().returns.toEqualTypeOf<TaskSnapshot[]>()
    expectTypeOf<TaskService['read']>().returns.resolves.toEqualTypeOf<TaskRead>()
    expectTypeOf<TaskService['kill']>().returns.resolves.toMatchTypeOf<{ readonly stopped: boolean }>()
  })

  test('a body finds its task context, or learns it runs in the foreground', () => {
    expectTypeOf(taskOf).parameter(0).toMatchTypeOf<Readonly<ToolExecution>>()
    expectTypeOf(taskOf).returns.toEqualTypeOf<TaskContext | undefined>()
    expectTypeOf<TaskContext['output']>().parameter(0).toEqualTypeOf<string | Uint8Array>()
  })

  test('a tool starts its own task with a run that gets the task context', () => {
    expectTypeOf<TaskService['start']>().returns.toEqualTypeOf<StartedTask>()
    expectTypeOf<Parameters<TaskService['start']>[1]>().parameter(0).toEqualTypeOf<TaskContext>()
    expectTypeOf<Parameters<TaskService['start']>[1]>().returns.toEqualTypeOf<TaskRunResult | Promise<TaskRunResult>>()
    expectTypeOf<TaskService['roomFor']>().returns.toEqualTypeOf<string | undefined>()
    expectTypeOf(taskOutputResult).returns.toMatchTypeOf<{ content: ContentBlock[] }>()
  })

  test('tasks/settled listeners are typed', () => {
    const listen = (ctx: Context): void => {
      ctx.on('tasks/settled', (task, agent) => {
        expectTypeOf(task).toEqualTypeOf<TaskSnapshot>()
        expectTypeOf(agent).toEqualTypeOf<Agent | undefined>()
      })
    }
    expectTypeOf(listen).toBeFunction()
  })
})

import type { Agent, TaskSnapshot, ToolExecution } from '@dsh/tools-core'
import type { Context } from 'cordis'
import { describe, expectTypeOf, test } from 'vitest'
import { taskOf, type TaskContext } from './task-context.js'
import type { TaskRead, TaskService } from './task-service.js'

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

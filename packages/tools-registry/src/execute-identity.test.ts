// The execution's identity is frozen from the start; only a wrapper may swap the signal.
import type { ToolExecution, ToolExecutionToken } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import { agent, call, createHarness, tool } from './test-kit.js'

describe('the execution identity', () => {
  it('callId, name, arguments, agent, parent and token are the same object everywhere and cannot change', async () => {
    const { ctx, tools } = await createHarness()
    const executions: Readonly<ToolExecution>[] = []
    const failures: string[] = []
    const tryMutate = (exec: object, stage: string): void => {
      for (const key of ['callId', 'name', 'arguments', 'agent', 'parent', 'token']) {
        try {
          ;(exec as Record<string, unknown>)[key] = 'changed'
          failures.push(`${stage}.${key} changed`)
        } catch {
          // expected: frozen
        }
      }
      try {
        Object.defineProperty(exec, 'extra', { value: 1 })
        failures.push(`${stage} extended`)
      } catch {
        // expected: frozen
      }
    }
    tools.register(tool('read', { execute: async (_args, exec) => (executions.push(exec), tryMutate(exec, 'body'), []) }))
    ctx.on('tools/pre-execute', (exec, next) => (executions.push(exec), tryMutate(exec, 'pre'), next()))
    tools.guard((exec) => (executions.push(exec), tryMutate(exec, 'guard'), undefined))
    ctx.on('tools/execute', (exec, next) => (executions.push(exec), tryMutate(exec, 'execute'), next()))
    ctx.on('tools/post-execute', (exec, _result, next) => (executions.push(exec), tryMutate(exec, 'post'), next()))
    ctx.on('tools/result', (exec) => void (executions.push(exec), tryMutate(exec, 'result')))
    const alice = agent('alice')
    const parent = Symbol('outer') as ToolExecutionToken
    await tools.execute(call('read', { x: 1 }, { callId: 'c1', agent: alice, parent }))
    expect(failures).toEqual([])
    expect(executions).toHaveLength(6)
    expect(new Set(executions).size).toBe(1)
    const [exec] = executions
    expect(exec).toMatchObject({ callId: 'c1', name: 'read', arguments: { x: 1 }, agent: alice, parent })
    expect(typeof exec?.token).toBe('symbol')
  })

  it('each execution gets a fresh token; a nested call carries its parent token', async () => {
    const { tools } = await createHarness()
    const seen: { token: symbol; parent: symbol | undefined }[] = []
    tools.register(tool('inner', { execute: async (_args, exec) => (seen.push({ token: exec.token, parent: exec.parent }), []) }))
    tools.register(
      tool('outer', {
        execute: async (_args, exec) => {
          seen.push({ token: exec.token, parent: exec.parent })
          const nested = await tools.execute({ callId: `${exec.callId}/1`, name: 'inner', arguments: {}, parent: exec.token, signal: exec.signal })
          return nested.content
        },
      }),
    )
    await tools.execute(call('outer'))
    await tools.execute(call('inner'))
    const [outer, inner, alone] = seen
    expect(inner?.parent).toBe(outer?.token)
    expect(outer?.parent).toBeUndefined()
    expect(new Set([outer?.token, inner?.token, alone?.token]).size).toBe(3)
  })

  it('an execution with no agent has agent undefined', async () => {
    const { tools } = await createHarness()
    let seen: Readonly<ToolExecution> | undefined
    tools.register(tool('read', { execute: async (_args, exec) => ((seen = exec), []) }))
    await tools.execute(call('read'))
    expect(seen?.agent).toBeUndefined()
  })
})

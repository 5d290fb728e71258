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
    // A parent must be the token of a call still running: an outer call dispatches this one from its body.
    let parent: ToolExecutionToken | undefined
    tools.register(
      tool('outer', {
        execute: async (_args, outer) => {
          parent = outer.token
          await tools.execute(call('read', { x: 1 }, { callId: 'c1', agent: alice, parent }))
          return []
        },
      }),
    )
    await tools.execute(call('outer', {}, { callId: 'c0' }))
    expect(failures).toEqual([])
    // The outer call went through the same listeners; only the nested call's executions are compared.
    executions.splice(0, executions.length, ...executions.filter((exec) => exec.name === 'read'))
    expect(executions).toHaveLength(6)
    expect(new Set(executions).size).toBe(1)
    const [exec] = executions
    expect(exec).toMatchObject({ callId: 'c1', name: 'read', arguments: { x: 1 }, agent: alice, parent })
    expect(typeof exec?.token).toBe('symbol')
  })

  it('a parent must be the token of a call still running: a made-up token, or one of a finished call, is INVALID_CALL', async () => {
    const { tools } = await createHarness()
    tools.register(tool('read', { execute: async () => [] }))
    let finished: ToolExecutionToken | undefined
    tools.register(tool('outer', { execute: async (_args, exec) => ((finished = exec.token), []) }))
    await tools.execute(call('outer'))
    for (const parent of [Symbol('made up') as ToolExecutionToken, finished as ToolExecutionToken]) {
      const result = await tools.execute(call('read', {}, { callId: 'n', parent }))
      expect(result).toMatchObject({ isError: true, error: { code: 'INVALID_CALL' } })
      expect(result.content[0]).toMatchObject({ text: expect.stringContaining('its parent is not the token of a call still running') })
    }
  })

  it('a body that outlives its call (moved to the background by a wrapper) keeps its token a valid parent until it settles', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read', { execute: async () => [] }))
    let open!: () => void
    const gate = new Promise<void>((resolve) => (open = resolve))
    let token: ToolExecutionToken | undefined
    let body: Promise<unknown> | undefined
    tools.register(
      tool('long', {
        execute: async (_args, exec) => {
          token = exec.token
          await gate
          const nested = await tools.execute(call('read', {}, { callId: 'from-the-background', parent: exec.token }))
          return nested.isError ? nested.content : []
        },
      }),
    )
    // A wrapper that answers at once and lets the body run on, as a task layer does.
    ctx.on('tools/execute', (exec, next) => {
      if (exec.name !== 'long') return next()
      body = next()
      return { callId: exec.callId, content: [{ type: 'text', text: 'started' }], isError: false }
    })
    expect(await tools.execute(call('long'))).toMatchObject({ isError: false, content: [{ text: 'started' }] })
    open()
    expect(await body).toMatchObject({ isError: false, content: [] })
    expect(await tools.execute(call('read', {}, { callId: 'after', parent: token }))).toMatchObject({ isError: true, error: { code: 'INVALID_CALL' } })
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

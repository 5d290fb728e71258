// Stage 5: guards are deny-only, run after the whole waterfall, and fail closed.
import type { ToolExecution } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import { call, createHarness, textOf, tool } from './test-kit.js'

describe('guards: final, deny-only pre-dispatch policy', () => {
  it('a returned reason denies the call with GUARD_DENIED', async () => {
    const { tools } = await createHarness()
    const write = tool('write')
    tools.register(write)
    tools.guard((exec) => (exec.name === 'write' ? 'the workspace is read-only' : undefined))
    const result = await tools.execute(call('write'))
    expect(result.error).toEqual({ name: 'ToolDeniedError', code: 'GUARD_DENIED' })
    expect(textOf(result)).toBe('The call to "write" was denied by a guard: the workspace is read-only')
    expect(write.calls).toEqual([])
  })

  it('undefined keeps the waterfall decision', async () => {
    const { tools } = await createHarness()
    tools.register(tool('read'))
    tools.guard(() => undefined)
    expect((await tools.execute(call('read'))).isError).toBe(false)
  })

  it('runs after the whole waterfall: an allow decision cannot undo it', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('write'))
    const order: string[] = []
    tools.guard(() => (order.push('guard'), 'no writes'))
    ctx.on('tools/pre-execute', () => (order.push('listener'), { kind: 'allow' }))
    ctx.on('tools/pre-execute', () => (order.push('never'), { kind: 'allow' }), { prepend: false })
    const result = await tools.execute(call('write'))
    expect(result.error?.code).toBe('GUARD_DENIED')
    expect(order).toEqual(['listener', 'guard'])
  })

  it('does not run when the waterfall already denied', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('write'))
    let guarded = 0
    tools.guard(() => void guarded++)
    ctx.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'no' }))
    expect((await tools.execute(call('write'))).error?.code).toBe('DENIED')
    expect(guarded).toBe(0)
  })

  it('guards run in registration order and the first reason wins', async () => {
    const { tools } = await createHarness()
    tools.register(tool('write'))
    const order: string[] = []
    tools.guard(() => (order.push('a'), undefined))
    tools.guard(() => (order.push('b'), 'b says no'))
    tools.guard(() => (order.push('c'), 'c says no'))
    expect(textOf(await tools.execute(call('write')))).toContain('b says no')
    expect(order).toEqual(['a', 'b'])
  })

  it('receives the frozen execution', async () => {
    const { tools } = await createHarness()
    tools.register(tool('write'))
    let seen: Readonly<ToolExecution> | undefined
    tools.guard((exec) => void (seen = exec))
    await tools.execute(call('write', { path: 'a' }))
    expect(Object.isFrozen(seen)).toBe(true)
    expect(seen?.arguments).toEqual({ path: 'a' })
  })

  it.each([
    ['throws', () => {
      throw new Error('guard bug')
    }],
    ['returns true', () => true],
    ['returns an empty reason', () => ''],
    ['returns a Promise (guards are synchronous)', async () => 'async reason'],
    ['returns an object', () => ({ deny: true })],
  ])('a guard that %s fails closed with INVALID_DECISION', async (_label, guard) => {
    const { tools, warnings } = await createHarness()
    const write = tool('write')
    tools.register(write)
    tools.guard(guard as never)
    const result = await tools.execute(call('write'))
    expect(result.error).toEqual({ name: 'InvalidDecisionError', code: 'INVALID_DECISION' })
    expect(write.calls).toEqual([])
    expect(warnings.length).toBeGreaterThan(0)
  })

  it('tells the model that a guard failure is the harness\'s fault and that retrying cannot help', async () => {
    const { tools } = await createHarness()
    tools.register(tool('write'))
    const dispose = tools.guard(() => {
      throw new Error('policy file missing')
    })
    expect(textOf(await tools.execute(call('write')))).toBe(
      'The call to "write" was not run: a guard of the harness failed (it threw Error: policy file missing). This is a ' +
        'fault in the harness, not in your arguments; calling again with the same or other arguments will fail the same ' +
        'way until it is fixed.',
    )
    dispose()
    tools.guard(() => 42 as never)
    expect(textOf(await tools.execute(call('write')))).toBe(
      'The call to "write" was not run: a guard of the harness failed (it returned the number 42, not a reason to deny or ' +
        'undefined). This is a fault in the harness, not in your arguments; calling again with the same or other ' +
        'arguments will fail the same way until it is fixed.',
    )
  })

  it('the same function registered twice is two guards, each with its own disposer', async () => {
    const { tools } = await createHarness()
    tools.register(tool('write'))
    let calls = 0
    const guard = (): undefined => void calls++
    const first = tools.guard(guard)
    tools.guard(guard)
    first()
    await tools.execute(call('write'))
    expect(calls).toBe(1)
  })
})

// Stage 3: the tools/pre-execute waterfall decides allow / deny / ask, and fails closed.
import type { PreToolDecision } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import { call, createHarness, textOf, tool } from './test-kit.js'

describe('tools/pre-execute: the reorderable allow/deny/ask waterfall', () => {
  it('with no listener the call is allowed', async () => {
    const { tools } = await createHarness()
    const read = tool('read')
    tools.register(read)
    expect((await tools.execute(call('read'))).isError).toBe(false)
    expect(read.calls).toHaveLength(1)
  })

  it('next() delegates to the default, allow', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    const seen: PreToolDecision[] = []
    ctx.on('tools/pre-execute', async (_exec, next) => {
      const decision = await next()
      seen.push(decision)
      return decision
    })
    expect((await tools.execute(call('read'))).isError).toBe(false)
    expect(seen).toEqual([{ kind: 'allow' }])
  })

  it('listeners run in registration order; returning a decision short-circuits the later ones', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    const order: string[] = []
    ctx.on('tools/pre-execute', (_exec, next) => (order.push('first'), next()))
    ctx.on('tools/pre-execute', () => (order.push('second'), { kind: 'allow' }))
    ctx.on('tools/pre-execute', () => (order.push('third'), { kind: 'deny', reason: 'never reached' }))
    expect((await tools.execute(call('read'))).isError).toBe(false)
    expect(order).toEqual(['first', 'second'])
  })

  it('deny skips dispatch and yields an isError result with the reason and code DENIED', async () => {
    const { ctx, tools } = await createHarness()
    const read = tool('read')
    tools.register(read)
    ctx.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'reading is off in plan mode' }))
    const result = await tools.execute(call('read'))
    expect(result).toEqual({
      callId: result.callId,
      content: [{ type: 'text', text: 'The call to "read" was denied: reading is off in plan mode' }],
      isError: true,
      error: { name: 'ToolDeniedError', code: 'DENIED' },
    })
    expect(read.calls).toEqual([])
  })

  it('an outer listener decides over what next() returned (guards are the monotonic layer)', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    ctx.on('tools/pre-execute', async (_exec, next) => {
      const inner = await next()
      return inner.kind === 'deny' ? { kind: 'allow' } : inner
    })
    ctx.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'inner says no' }))
    expect((await tools.execute(call('read'))).isError).toBe(false)
  })

  it('offers no input rewrite: extra fields on a decision change nothing', async () => {
    const { ctx, tools } = await createHarness()
    const read = tool('read')
    tools.register(read)
    ctx.on('tools/pre-execute', () => ({ kind: 'allow', arguments: { path: '/etc/shadow' }, name: 'write' }) as PreToolDecision)
    await tools.execute(call('read', { path: '/tmp/a' }))
    expect(read.calls).toEqual([{ path: '/tmp/a' }])
  })

  it('listeners may be async', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    ctx.on('tools/pre-execute', async () => {
      await new Promise((resolve) => setTimeout(resolve, 1))
      return { kind: 'deny', reason: 'slow no' }
    })
    expect((await tools.execute(call('read'))).error?.code).toBe('DENIED')
  })

  it('listeners receive the frozen execution; they cannot replace its signal', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    let frozen = false
    let signalError: unknown
    ctx.on('tools/pre-execute', (exec, next) => {
      frozen = Object.isFrozen(exec)
      try {
        ;(exec as { signal: AbortSignal }).signal = new AbortController().signal
      } catch (error) {
        signalError = error
      }
      return next()
    })
    await tools.execute(call('read'))
    expect(frozen).toBe(true)
    expect(signalError).toBeInstanceOf(TypeError)
  })
})

describe('tools/pre-execute fails closed: a malformed decision is a denial with INVALID_DECISION', () => {
  const malformed: [string, (next: () => Promise<PreToolDecision>) => unknown][] = [
    ['returns nothing', () => undefined],
    ['returns null', () => null],
    ['returns a string', () => 'allow'],
    ['returns an unknown kind', () => ({ kind: 'permit' })],
    ['denies without a reason', () => ({ kind: 'deny' })],
    ['denies with a blank reason', () => ({ kind: 'deny', reason: '  ' })],
    ['asks with a reason that is not a string', () => ({ kind: 'ask', reason: 42 })],
    ['throws', () => {
      throw new Error('policy crashed')
    }],
    ['rejects', () => Promise.reject(new Error('policy rejected'))],
    ['calls next() twice', async (next) => {
      await next()
      return next()
    }],
  ]

  it.each(malformed)('a listener that %s denies the call; the body never runs', async (_label, listener) => {
    const { ctx, tools, warnings } = await createHarness()
    const read = tool('read')
    tools.register(read)
    ctx.on('tools/pre-execute', (_exec, next) => listener(next) as PreToolDecision)
    const result = await tools.execute(call('read'))
    expect(result.isError).toBe(true)
    expect(result.error).toEqual({ name: 'InvalidDecisionError', code: 'INVALID_DECISION' })
    expect(textOf(result)).toContain('The call to "read" was not run: the harness\'s policy failed to decide (a tools/pre-execute listener of plugin "root"')
    expect(textOf(result)).toMatch(/\)\. This is a fault in the harness, not in your arguments; calling again with the same or other arguments will fail the same way until it is fixed\.$/)
    expect(read.calls).toEqual([])
    expect(warnings).toHaveLength(1)
  })

  it('an outer listener cannot turn an inner malformed decision into an allow', async () => {
    const { ctx, tools } = await createHarness()
    const read = tool('read')
    tools.register(read)
    let innerSaw: PreToolDecision | undefined
    ctx.on('tools/pre-execute', async (_exec, next) => {
      innerSaw = await next()
      return { kind: 'allow' }
    })
    ctx.on('tools/pre-execute', () => ({ kind: 'maybe' }) as never)
    const result = await tools.execute(call('read'))
    expect(result.error?.code).toBe('INVALID_DECISION')
    expect(innerSaw?.kind).toBe('deny')
    expect(read.calls).toEqual([])
  })

  it('an outer listener that swallows an inner throw cannot allow the call', async () => {
    const { ctx, tools } = await createHarness()
    const read = tool('read')
    tools.register(read)
    ctx.on('tools/pre-execute', async (_exec, next) => {
      try {
        return await next()
      } catch {
        return { kind: 'allow' }
      }
    })
    ctx.on('tools/pre-execute', () => {
      throw new Error('inner crash')
    })
    expect((await tools.execute(call('read'))).error?.code).toBe('INVALID_DECISION')
    expect(read.calls).toEqual([])
  })

  it('names the plugin of the listener that failed', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    await ctx.plugin({
      name: 'sloppy-policy',
      apply: (pluginCtx) => {
        pluginCtx.on('tools/pre-execute', () => undefined as never)
      },
    })
    const text = textOf(await tools.execute(call('read')))
    expect(text).toBe(
      'The call to "read" was not run: the harness\'s policy failed to decide (a tools/pre-execute listener of plugin ' +
        '"sloppy-policy" returned nothing (a listener returns a decision or the result of next())). ' +
        'This is a fault in the harness, not in your arguments; calling again with the same or other arguments will fail ' +
        'the same way until it is fixed.',
    )
  })
})

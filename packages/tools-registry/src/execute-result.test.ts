// Stage 9: the final result is materialized, deep-frozen and handed to tools/result observers, once.
import type { ToolExecution, ToolExecutionResult } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import { call, createHarness, isDeepFrozen, textOf, tool } from './test-kit.js'

describe('the final result', () => {
  it('is deep-frozen, JSON-safe and detached from what the body returned', async () => {
    const { tools } = await createHarness()
    const content = [{ type: 'text' as const, text: 'hello' }]
    const meta = { nested: { list: [1, 2] } }
    tools.register(tool('read', { execute: async () => ({ content, meta }) }))
    const result = await tools.execute(call('read'))
    expect(isDeepFrozen(result)).toBe(true)
    expect(JSON.parse(JSON.stringify(result))).toEqual(result)
    expect(result.content).not.toBe(content)
    expect(result.meta).not.toBe(meta)
    expect(Object.isFrozen(content)).toBe(false)
    content[0]!.text = 'changed'
    meta.nested.list.push(3)
    expect(result).toEqual({ callId: result.callId, content: [{ type: 'text', text: 'hello' }], isError: false, meta: { nested: { list: [1, 2] } } })
  })

  it('holds exactly the result fields', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    ctx.on('tools/execute', async (_exec, next) => ({ ...(await next()), debug: 'internal', retries: 2 }) as ToolExecutionResult)
    expect(Object.keys(await tools.execute(call('read')))).toEqual(['callId', 'content', 'isError'])
  })

  it.each([
    ['content with a Date', { content: [{ type: 'text', text: 'x', annotations: { lastModified: new Date(0) } }] }, 'content[0].annotations.lastModified'],
    ['meta with undefined', { content: [], meta: { exit: undefined } }, 'meta.exit'],
    ['meta with a Map', { content: [], meta: new Map() }, 'meta'],
    ['meta with -0', { content: [], meta: { zero: -0 } }, 'meta.zero'],
  ])('%s becomes an INVALID_RESULT error result naming the path', async (_label, returned, path) => {
    const { tools } = await createHarness()
    tools.register(tool('read', { execute: async () => returned as never }))
    const result = await tools.execute(call('read'))
    expect(result.error).toEqual({ name: 'InvalidToolResultError', code: 'INVALID_RESULT' })
    expect(textOf(result)).toContain(`"${path}"`)
    expect(isDeepFrozen(result)).toBe(true)
  })

  it('meta is dropped from a failed call', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read', { execute: async () => ({ content: [], meta: { kept: false } }) }))
    ctx.on('tools/execute', async (_exec, next) => ({ ...(await next()), isError: true }))
    const result = await tools.execute(call('read'))
    expect(result.isError).toBe(true)
    expect('meta' in result).toBe(false)
  })
})

describe('tools/result: the authoritative outcome, delivered synchronously exactly once', () => {
  it('observers get the frozen execution and the very result execute() resolves to, before it resolves', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    const seen: [Readonly<ToolExecution>, ToolExecutionResult][] = []
    ctx.on('tools/result', (exec, result) => void seen.push([exec, result]))
    const pending = tools.execute(call('read', { a: 1 }, { callId: 'c1' }))
    const result = await pending
    expect(seen).toHaveLength(1)
    const [exec, observed] = seen[0]!
    expect(observed).toBe(result)
    expect(exec.callId).toBe('c1')
    expect(exec.arguments).toEqual({ a: 1 })
    expect(Object.isFrozen(exec)).toBe(true)
  })

  it('fires once for every kind of outcome', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('ok'))
    tools.register(tool('boom', { execute: async () => Promise.reject(new Error('x')) }))
    ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'ok' && exec.callId === 'denied' ? { kind: 'deny', reason: 'r' } : next()))
    const codes: string[] = []
    ctx.on('tools/result', (exec, result) => void codes.push(`${exec.callId}:${result.error?.code ?? 'ok'}`))
    await tools.execute(call('ok', {}, { callId: 'success' }))
    await tools.execute(call('ok', {}, { callId: 'denied' }))
    await tools.execute(call('boom', {}, { callId: 'failed' }))
    await tools.execute(call('nope', {}, { callId: 'unknown' }))
    await tools.execute(call('ok', { bad: undefined }, { callId: 'nonjson' }))
    await tools.execute('garbage' as never)
    expect(codes).toEqual(['success:ok', 'denied:DENIED', 'failed:TOOL_FAILED', 'unknown:UNKNOWN_TOOL', 'nonjson:NON_JSON_VALUE', ':INVALID_CALL'])
  })

  it('an observer that throws changes nothing and starves no peer', async () => {
    const { ctx, tools, warnings } = await createHarness()
    tools.register(tool('read'))
    const peers: string[] = []
    ctx.on('tools/result', () => void peers.push('before'))
    ctx.on('tools/result', () => {
      throw new Error('observer crashed')
    })
    ctx.on('tools/result', () => void peers.push('after'))
    const result = await tools.execute(call('read'))
    expect(result.isError).toBe(false)
    expect(peers).toEqual(['before', 'after'])
    expect(warnings).toEqual(['a tools/result observer threw for "read": Error: observer crashed'])
  })

  it('observers cannot transform the outcome or race each other through it', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    const errors: unknown[] = []
    ctx.on('tools/result', (_exec, result) => {
      try {
        ;(result as { isError: boolean }).isError = true
      } catch (error) {
        errors.push(error)
      }
      try {
        result.content.push({ type: 'text', text: 'injected' })
      } catch (error) {
        errors.push(error)
      }
    })
    const result = await tools.execute(call('read'))
    expect(result.isError).toBe(false)
    expect(result.content).toHaveLength(1)
    expect(errors).toHaveLength(2)
  })

  it('an async observer that rejects is reported, not left unhandled', async () => {
    const { ctx, tools, warnings } = await createHarness()
    tools.register(tool('read'))
    ctx.on('tools/result', (async () => {
      throw new Error('async observer failed')
    }) as never)
    await tools.execute(call('read'))
    await new Promise((resolve) => setImmediate(resolve))
    expect(warnings).toEqual(['an async tools/result observer rejected for "read": Error: async observer failed'])
  })

  it('execute() never rejects, whatever the tool, a listener or an observer does', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read', { execute: () => {
      throw new Error('body')
    } }))
    ctx.on('tools/pre-execute', () => {
      throw new Error('pre')
    })
    ctx.on('tools/result', () => {
      throw new Error('observer')
    })
    await expect(tools.execute(call('read'))).resolves.toMatchObject({ isError: true })
    await expect(tools.execute(undefined as never)).resolves.toMatchObject({ isError: true })
  })
})

// Stage 1 of ctx.tools.execute(): the caller's input is read and its arguments materialized, before any policy.
import { describe, expect, it } from 'vitest'
import { call, createHarness, isDeepFrozen, textOf, tool } from './test-kit.js'

describe('execute() materializes the arguments once, before any policy', () => {
  it('hands the body detached, deep-frozen, lossless JSON arguments', async () => {
    const { tools } = await createHarness()
    let received: unknown
    tools.register(tool('read', { execute: async (args) => ((received = args), []) }))
    const args = { path: '/tmp/a', options: { lines: [1, 2, 3] }, ['__proto__']: { polluted: true } }
    Object.defineProperty(args, '__proto__', { value: { polluted: true }, enumerable: true })
    const result = await tools.execute(call('read', args))
    expect(result.isError).toBe(false)
    expect(received).toEqual(args)
    expect(received).not.toBe(args)
    expect((received as typeof args).options).not.toBe(args.options)
    expect(isDeepFrozen(received)).toBe(true)
    expect(Object.isFrozen(args)).toBe(false)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('exposes the same frozen arguments as exec.arguments to every listener', async () => {
    const { ctx, tools } = await createHarness()
    const seen: unknown[] = []
    tools.register(tool('read', { execute: async (args, exec) => (seen.push(args, exec.arguments), []) }))
    ctx.on('tools/pre-execute', (exec, next) => (seen.push(exec.arguments), next()))
    ctx.on('tools/result', (exec) => void seen.push(exec.arguments))
    await tools.execute(call('read', { a: 1 }))
    expect(seen).toHaveLength(4)
    expect(new Set(seen).size).toBe(1)
  })

  it('later changes to the caller object do not reach the call', async () => {
    const { tools } = await createHarness()
    const args = { n: 1 }
    let resolveBody: () => void = () => undefined
    let received: unknown
    tools.register(
      tool('slow', {
        execute: async (bodyArgs) => {
          await new Promise<void>((resolve) => {
            resolveBody = resolve
          })
          received = bodyArgs
          return []
        },
      }),
    )
    const pending = tools.execute(call('slow', args))
    args.n = 2
    await new Promise((resolve) => setImmediate(resolve))
    resolveBody()
    await pending
    expect(received).toEqual({ n: 1 })
  })

  it.each([
    ['undefined inside', { a: undefined }, 'a'],
    ['a Date', { when: new Date(0) }, 'when'],
    ['NaN', { n: Number.NaN }, 'n'],
    ['a function', { f: () => 1 }, 'f'],
    ['a BigInt', [1n], '[0]'],
    ['a cycle', (() => {
      const value: Record<string, unknown> = {}
      value.self = value
      return value
    })(), 'self'],
  ])('non-JSON arguments (%s) become a NON_JSON_VALUE result naming the path', async (_label, args, path) => {
    const { tools } = await createHarness()
    const read = tool('read')
    tools.register(read)
    const result = await tools.execute(call('read', args))
    expect(result.isError).toBe(true)
    expect(result.error).toEqual({ name: 'NonJsonValueError', code: 'NON_JSON_VALUE' })
    expect(textOf(result)).toContain('The arguments of the call to "read" are not JSON')
    expect(textOf(result)).toContain(`"${path}"`)
    expect(read.calls).toEqual([])
  })

  it('non-JSON arguments fail before any policy: no listener, guard or approval is consulted', async () => {
    const { ctx, tools } = await createHarness()
    const consulted: string[] = []
    tools.register(tool('read'))
    ctx.on('tools/pre-execute', () => (consulted.push('pre-execute'), { kind: 'allow' }))
    ctx.on('tools/execute', (_exec, next) => (consulted.push('execute'), next()))
    ctx.on('tools/post-execute', (_exec, _result, next) => (consulted.push('post-execute'), next()))
    tools.guard(() => (consulted.push('guard'), undefined))
    const results: unknown[] = []
    ctx.on('tools/result', (exec, result) => void results.push([exec.arguments, result.error?.code]))
    await tools.execute(call('read', { x: Symbol('s') }))
    expect(consulted).toEqual([])
    expect(results).toEqual([[undefined, 'NON_JSON_VALUE']])
  })

  it('non-JSON arguments are reported even for an unknown tool (materialization comes first)', async () => {
    const { tools } = await createHarness()
    expect((await tools.execute(call('missing', { bad: undefined }))).error?.code).toBe('NON_JSON_VALUE')
  })

  it('a getter that throws while the arguments are read becomes NON_JSON_VALUE, not a rejection', async () => {
    const { tools } = await createHarness()
    tools.register(tool('read'))
    const args = {
      get path(): string {
        throw new Error('getter exploded')
      },
    }
    const result = await tools.execute(call('read', args))
    expect(result.error?.code).toBe('NON_JSON_VALUE')
    expect(textOf(result)).toContain('getter exploded')
  })

  it('accepts any JSON value as arguments, not only objects', async () => {
    const { tools } = await createHarness()
    const received: unknown[] = []
    tools.register(tool('any', { execute: async (args) => (received.push(args), []) }))
    for (const args of [null, 'text', 3, true, [1, 'two']]) await tools.execute(call('any', args))
    expect(received).toEqual([null, 'text', 3, true, [1, 'two']])
  })
})

describe('a malformed call is an error result, never a rejection', () => {
  it.each([
    ['not an object', 'read'],
    ['a callId that is not a string', { callId: 7, name: 'read', arguments: {} }],
    ['a name that is not a string', { callId: 'c', name: ['read'], arguments: {} }],
    ['an agent that is not an object', { callId: 'c', name: 'read', arguments: {}, agent: 'alice' }],
    ['a parent that is not a token', { callId: 'c', name: 'read', arguments: {}, parent: 'p' }],
    ['a signal that is not an AbortSignal', { callId: 'c', name: 'read', arguments: {}, signal: { aborted: 'no' } }],
  ])('%s → INVALID_CALL with the problem named', async (_label, input) => {
    const { ctx, tools } = await createHarness()
    const read = tool('read')
    tools.register(read)
    let observed = 0
    ctx.on('tools/result', () => void observed++)
    const result = await tools.execute(input as never)
    expect(result.isError).toBe(true)
    expect(result.error).toEqual({ name: 'InvalidToolCallError', code: 'INVALID_CALL' })
    expect(textOf(result)).toMatch(/^The tool call is malformed: /)
    expect(read.calls).toEqual([])
    expect(observed).toBe(1)
  })

  it('keeps the callId when it is a string', async () => {
    const { tools } = await createHarness()
    const result = await tools.execute({ callId: 'call_9', name: 'read', arguments: {}, signal: 'x' } as never)
    expect(result.callId).toBe('call_9')
  })

  it('a call object whose getters throw is an error result', async () => {
    const { tools } = await createHarness()
    const input = {
      get callId(): string {
        throw new Error('no id')
      },
    }
    const result = await tools.execute(input as never)
    expect(result.error).toEqual({ name: 'InvalidToolCallError', code: 'INVALID_CALL' })
    expect(textOf(result)).toContain('no id')
    expect(result.callId).toBe('')
  })
})

// Stage 2: the tool is resolved once, before any policy.
import { describe, expect, it } from 'vitest'
import { agent, call, createHarness, textOf, tool } from './test-kit.js'

describe('execute() resolves the tool before any policy', () => {
  it('an unknown tool is UNKNOWN_TOOL (ToolNotFoundError) with the available tools listed', async () => {
    const { tools } = await createHarness()
    tools.register(tool('read'))
    tools.register(tool('write'))
    const result = await tools.execute(call('reed'))
    expect(result).toEqual({
      callId: result.callId,
      content: [{ type: 'text', text: 'Unknown tool "reed". Available tools: read, write.' }],
      isError: true,
      error: { name: 'ToolNotFoundError', code: 'UNKNOWN_TOOL' },
    })
  })

  it('lists at most 50 tools', async () => {
    const { tools } = await createHarness()
    for (let index = 0; index < 53; index++) tools.register(tool(`t${index}`))
    const text = textOf(await tools.execute(call('missing')))
    expect(text).toContain('t49 and 3 more.')
    expect(text).not.toContain('t50')
  })

  it('nobody is asked about a tool that does not exist: no listener, guard or approval runs', async () => {
    const { ctx, tools } = await createHarness()
    const asked: string[] = []
    ctx.provide('toolApproval', { requestApproval: async () => (asked.push('approval'), { outcome: 'allowed-once' }) })
    ctx.on('tools/pre-execute', () => (asked.push('pre-execute'), { kind: 'ask' }))
    ctx.on('tools/execute', (_exec, next) => (asked.push('execute'), next()))
    ctx.on('tools/post-execute', (_exec, _result, next) => (asked.push('post-execute'), next()))
    tools.guard(() => (asked.push('guard'), undefined))
    const observed: string[] = []
    ctx.on('tools/result', (exec, result) => void observed.push(`${exec.name}: ${result.error?.code}`))
    const result = await tools.execute(call('ghost', {}, { agent: agent('alice') }))
    expect(result.error?.code).toBe('UNKNOWN_TOOL')
    expect(asked).toEqual([])
    expect(observed).toEqual(['ghost: UNKNOWN_TOOL'])
  })

  it('the tool that runs is the one resolved before policy, even if the registry changes meanwhile', async () => {
    const { ctx, tools } = await createHarness()
    const original = tool('read')
    const dispose = tools.register(original)
    const replacement = tool('read', { execute: async () => [{ type: 'text', text: 'replacement' }] })
    ctx.on('tools/pre-execute', async (_exec, next) => {
      dispose()
      tools.register(replacement)
      return next()
    })
    const result = await tools.execute(call('read', { n: 1 }))
    expect(textOf(result)).toBe('read')
    expect(original.calls).toEqual([{ n: 1 }])
    expect(replacement.calls).toEqual([])
  })

  it('changing the name later changes nothing: the execution identity is frozen', async () => {
    const { ctx, tools } = await createHarness()
    const read = tool('read')
    const write = tool('write')
    tools.register(read)
    tools.register(write)
    let thrown: unknown
    ctx.on('tools/pre-execute', (exec, next) => {
      try {
        ;(exec as { name: string }).name = 'write'
      } catch (error) {
        thrown = error
      }
      return next()
    })
    await tools.execute(call('read'))
    expect(thrown).toBeInstanceOf(TypeError)
    expect(read.calls).toHaveLength(1)
    expect(write.calls).toHaveLength(0)
  })
})

describe('definitionOf(exec): the definition the pipeline resolved for a call', () => {
  it('is the registered object, in every stage from pre-execute to the result observers', async () => {
    const { ctx, tools } = await createHarness()
    const read = tool('read', { timeoutMs: 250 })
    tools.register(read)
    tools.register(tool('write'))
    const seen: Record<string, unknown> = {}
    ctx.on('tools/pre-execute', (exec, next) => ((seen.pre = tools.definitionOf(exec)), next()))
    ctx.on('tools/execute', (exec, next) => ((seen.execute = tools.definitionOf(exec)), next()))
    ctx.on('tools/post-execute', (exec, _result, next) => ((seen.post = tools.definitionOf(exec)), next()))
    ctx.on('tools/result', (exec) => void (seen.result = tools.definitionOf(exec)))
    await tools.execute(call('read'))
    expect(seen).toEqual({ pre: read, execute: read, post: read, result: read })
    expect(Object.values(seen).every((definition) => definition === read)).toBe(true)
    expect(tools.definitionOf === tools.definitionOf).toBe(true)
  })

  it('stays the tool that runs when the registry changes during policy', async () => {
    const { ctx, tools } = await createHarness()
    const original = tool('read', { timeoutMs: 100 })
    const dispose = tools.register(original)
    const replacement = tool('read', { timeoutMs: 9000 })
    let atDispatch: unknown
    ctx.on('tools/pre-execute', async (_exec, next) => {
      dispose()
      tools.register(replacement)
      return next()
    })
    ctx.on('tools/execute', (exec, next) => ((atDispatch = tools.definitionOf(exec)), next()))
    await tools.execute(call('read'))
    expect(atDispatch).toBe(original)
    expect(tools.get('read')).toBe(replacement)
  })

  it('is the agent\'s own tool when it shadows a global one', async () => {
    const { ctx, tools } = await createHarness()
    const alice = agent('alice')
    const global = tool('read')
    const own = tool('read')
    tools.register(global)
    tools.scope(alice).register(own)
    const seen: unknown[] = []
    ctx.on('tools/execute', (exec, next) => (seen.push(tools.definitionOf(exec)), next()))
    await tools.execute(call('read', {}, { agent: alice }))
    await tools.execute(call('read'))
    expect(seen).toEqual([own, global])
    expect(seen[0]).toBe(own)
    expect(seen[1]).toBe(global)
  })

  it('is undefined for calls that ended before resolution, and for objects that are not executions', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    const seen: Array<[string, unknown]> = []
    ctx.on('tools/result', (exec, result) => void seen.push([result.error?.code ?? 'ok', tools.definitionOf(exec)]))
    await tools.execute(call('ghost'))
    await tools.execute(call('read', { when: new Date(0) }))
    await tools.execute({ callId: 7, name: 'read', arguments: {} } as never)
    expect(seen).toEqual([
      ['UNKNOWN_TOOL', undefined],
      ['NON_JSON_VALUE', undefined],
      ['INVALID_CALL', undefined],
    ])
    const lookalike = { callId: 'c', name: 'read', arguments: {}, token: Symbol('t'), signal: new AbortController().signal }
    expect(tools.definitionOf(lookalike as never)).toBeUndefined()
    expect(tools.definitionOf(null as never)).toBeUndefined()
    expect(tools.definitionOf('read' as never)).toBeUndefined()
  })
})

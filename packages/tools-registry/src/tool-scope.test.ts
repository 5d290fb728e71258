import type { ToolExecutionResult } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import type { ToolChange } from './events.js'
import { InvalidToolPolicyError } from './invalid-tool-policy-error.js'
import { agent, call, createHarness, load, tool } from './test-kit.js'

const names = (schemas: { name: string }[]): string[] => schemas.map((schema) => schema.name)

describe('scopes: an agent may have its own tools, restrictions and guards', () => {
  it('an agent without a scope sees every global tool in registration order', async () => {
    const { tools } = await createHarness()
    tools.register(tool('b'))
    tools.register(tool('a'))
    expect(names(tools.schemas(agent('nobody')))).toEqual(['b', 'a'])
    expect(names(tools.schemas())).toEqual(['b', 'a'])
  })

  it('own tools shadow global tools of the same name, for that agent only', async () => {
    const { tools } = await createHarness()
    const alice = agent('alice')
    tools.register(tool('read'))
    tools.register(tool('write'))
    tools.scope(alice).register(tool('read', { description: 'Alice reads.', execute: async () => [{ type: 'text', text: 'alice' }] }))
    expect(tools.schemas(alice)).toEqual([
      { name: 'write', description: 'The write tool.', parameters: { type: 'object', properties: {} } },
      { name: 'read', description: 'Alice reads.', parameters: { type: 'object', properties: {} } },
    ])
    expect((await tools.execute(call('read', {}, { agent: alice }))).content).toEqual([{ type: 'text', text: 'alice' }])
    expect((await tools.execute(call('read'))).content).toEqual([{ type: 'text', text: 'read' }])
    expect((await tools.execute(call('read', {}, { agent: agent('bob') }))).content).toEqual([{ type: 'text', text: 'read' }])
  })

  it('scopes are keyed by the agent object, not by its id', async () => {
    const { tools } = await createHarness()
    const alice = agent('same-id')
    tools.scope(alice).register(tool('mine'))
    expect(tools.get('mine', alice)).toBeDefined()
    expect(tools.get('mine', agent('same-id'))).toBeUndefined()
  })

  it('restrictions apply only to inherited globals: own tools are exempt', async () => {
    const { tools } = await createHarness()
    const alice = agent('alice')
    tools.register(tool('read'))
    const scope = tools.scope(alice)
    scope.register(tool('notes'))
    scope.restrict({ allow: ['read'] })
    scope.restrict({ deny: ['notes'] })
    expect(names(scope.schemas())).toEqual(['read', 'notes'])
  })

  it('several restrictions intersect', async () => {
    const { tools } = await createHarness()
    const alice = agent('alice')
    for (const name of ['a', 'b', 'c', 'd']) tools.register(tool(name))
    const scope = tools.scope(alice)
    scope.restrict({ allow: ['a', 'b', 'c'] })
    scope.restrict({ allow: ['b', 'c', 'd'], deny: ['c'] })
    expect(names(scope.schemas())).toEqual(['b'])
  })

  it('a deny-only restriction admits globals registered later', async () => {
    const { tools } = await createHarness()
    const scope = tools.scope(agent('alice'))
    scope.restrict({ deny: ['bash'] })
    tools.register(tool('bash'))
    tools.register(tool('grep'))
    expect(names(scope.schemas())).toEqual(['grep'])
  })

  it('an allow-list excludes globals registered later', async () => {
    const { tools } = await createHarness()
    const scope = tools.scope(agent('alice'))
    scope.restrict({ allow: ['read'] })
    tools.register(tool('read'))
    tools.register(tool('write'))
    expect(names(scope.schemas())).toEqual(['read'])
  })

  it('a restricted tool does not exist for the agent: UNKNOWN_TOOL, and its body never runs', async () => {
    const { tools } = await createHarness()
    const bash = tool('bash')
    tools.register(bash)
    const alice = agent('alice')
    tools.scope(alice).restrict({ deny: ['bash'] })
    const result = await tools.execute(call('bash', {}, { agent: alice }))
    expect(result.error).toEqual({ name: 'ToolNotFoundError', code: 'UNKNOWN_TOOL' })
    expect(bash.calls).toEqual([])
    expect(tools.get('bash', alice)).toBeUndefined()
    expect(tools.get('bash')).toBe(bash)
  })

  it('restrictions are compiled: changing the caller array later changes nothing', async () => {
    const { tools } = await createHarness()
    tools.register(tool('a'))
    tools.register(tool('b'))
    const allow = ['a']
    const scope = tools.scope(agent('alice'))
    scope.restrict({ allow })
    allow.push('b')
    expect(names(scope.schemas())).toEqual(['a'])
  })

  it('removing a restriction or an own tool restores the view', async () => {
    const { tools } = await createHarness()
    tools.register(tool('read'))
    const scope = tools.scope(agent('alice'))
    const unrestrict = scope.restrict({ allow: [] })
    const unregister = scope.register(tool('read', { description: 'own' }))
    expect(scope.schemas()).toEqual([{ name: 'read', description: 'own', parameters: { type: 'object', properties: {} } }])
    unregister()
    expect(scope.schemas()).toEqual([])
    unrestrict()
    expect(scope.schemas()[0]?.description).toBe('The read tool.')
  })

  it('the visible view is cached and follows every change', async () => {
    const { tools } = await createHarness()
    const alice = agent('alice')
    const scope = tools.scope(alice)
    scope.restrict({ deny: ['x'] })
    const views: string[][] = []
    const snap = (): void => {
      views.push(names(scope.schemas()))
    }
    snap()
    const a = tools.register(tool('a'))
    snap()
    snap()
    tools.register(tool('x'))
    snap()
    a()
    snap()
    scope.register(tool('x'))
    snap()
    expect(views).toEqual([[], ['a'], ['a'], ['a'], [], ['x']])
  })

  it('scope.execute runs calls for the scope agent', async () => {
    const { tools } = await createHarness()
    const alice = agent('alice')
    const seen: unknown[] = []
    const scope = tools.scope(alice)
    scope.register(tool('who', { execute: async (_args, exec) => (seen.push(exec.agent), []) }))
    const result = await scope.execute(call('who'))
    expect(result.isError).toBe(false)
    expect(seen).toEqual([alice])
    expect((await tools.execute(call('who'))).error?.code).toBe('UNKNOWN_TOOL')
  })

  it('scope guards apply to the agent only, after the global guards', async () => {
    const { tools } = await createHarness()
    tools.register(tool('read'))
    const alice = agent('alice')
    const order: string[] = []
    tools.guard(() => {
      order.push('global')
      return undefined
    })
    tools.scope(alice).guard(() => {
      order.push('alice')
      return 'alice may not read'
    })
    const denied = await tools.execute(call('read', {}, { agent: alice }))
    expect(denied.error?.code).toBe('GUARD_DENIED')
    expect((await tools.execute(call('read', {}, { agent: agent('bob') }))).isError).toBe(false)
    expect(order).toEqual(['global', 'alice', 'global'])
  })

  it('scope.dispose() undoes everything registered through that scope', async () => {
    const { tools } = await createHarness()
    tools.register(tool('read'))
    const alice = agent('alice')
    const scope = tools.scope(alice)
    scope.register(tool('own'))
    scope.restrict({ deny: ['read'] })
    scope.guard(() => 'no')
    scope.dispose()
    expect(names(tools.schemas(alice))).toEqual(['read'])
    expect((await tools.execute(call('read', {}, { agent: alice }))).isError).toBe(false)
    scope.register(tool('again'))
    expect(names(scope.schemas())).toEqual(['read', 'again'])
  })

  it('what a scope registered is undone when the fiber that created the scope is disposed', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    const alice = agent('alice')
    const plugin = await load(ctx, (pluginCtx) => {
      const scope = pluginCtx.tools.scope(alice)
      scope.register(tool('own'))
      scope.restrict({ deny: ['read'] })
      scope.guard(() => 'no')
    })
    expect(names(tools.schemas(alice))).toEqual(['own'])
    await plugin.dispose()
    expect(names(tools.schemas(alice))).toEqual(['read'])
    expect((await tools.execute(call('read', {}, { agent: alice }))).isError).toBe(false)
  })

  it('tools/change reports scope changes with the agent', async () => {
    const { ctx, tools } = await createHarness()
    const changes: ToolChange[] = []
    ctx.on('tools/change', (change) => void changes.push(change))
    const alice = agent('alice')
    const scope = tools.scope(alice)
    const unregister = scope.register(tool('own'))
    const unrestrict = scope.restrict({ deny: [] })
    scope.guard(() => undefined)
    unrestrict()
    unregister()
    expect(changes).toEqual([
      { type: 'register', name: 'own', agent: alice },
      { type: 'restrict', agent: alice },
      { type: 'unrestrict', agent: alice },
      { type: 'unregister', name: 'own', agent: alice },
    ])
    expect(changes.every((change) => Object.isFrozen(change))).toBe(true)
  })

  it('rejects an agent that is not an object, a malformed restriction and a guard that is not a function', async () => {
    const { tools } = await createHarness()
    expect(() => tools.scope(null as never)).toThrow(InvalidToolPolicyError)
    const scope = tools.scope(agent('a'))
    for (const restriction of [null, { allow: 'read' }, { deny: [1] }, [['read']]]) {
      let error: unknown
      try {
        scope.restrict(restriction as never)
      } catch (caught) {
        error = caught
      }
      expect(InvalidToolPolicyError.isInstance(error)).toBe(true)
      expect((error as InvalidToolPolicyError).code).toBe('INVALID_CONFIG')
    }
    expect(() => scope.guard('no' as never)).toThrow(InvalidToolPolicyError)
    expect(() => tools.guard(undefined as never)).toThrow(InvalidToolPolicyError)
  })
})

describe("restrictions that apply to direct calls only (appliesTo: 'direct')", () => {
  it("hide tools from the model's view and direct calls (UNKNOWN_TOOL with the hint, before any policy); nested calls and nested listings see through them", async () => {
    const { ctx, tools } = await createHarness()
    const alice = agent('alice')
    const policies: string[] = []
    ctx.on('tools/pre-execute', (exec, next) => (policies.push(exec.name), next()))
    tools.register(tool('read'))
    tools.register(tool('secret'))
    const nested: ToolExecutionResult[] = []
    tools.register(
      tool('program', {
        execute: async (_args, exec) => {
          nested.push(await tools.execute(call('read', {}, { callId: 'sub', agent: alice, parent: exec.token })))
          nested.push(await tools.execute(call('secret', {}, { callId: 'sub2', agent: alice, parent: exec.token })))
          return []
        },
      }),
    )
    const scope = tools.scope(alice)
    scope.restrict({ deny: ['secret'] })
    scope.restrict({ allow: ['program'], appliesTo: 'direct', hint: 'Call it from a program: await tools.read({}).' })
    expect(names(tools.schemas(alice))).toEqual(['program'])
    expect(names(tools.schemas(alice, { nested: true }))).toEqual(['read', 'program'])
    expect(tools.get('read', alice)).toBeUndefined()
    expect(tools.get('read', alice, { nested: true })?.name).toBe('read')
    const direct = await tools.execute(call('read', {}, { agent: alice }))
    expect(direct).toMatchObject({ isError: true, error: { code: 'UNKNOWN_TOOL' } })
    expect(direct.content[0]).toMatchObject({ text: 'Unknown tool "read". Available tools: program. Call it from a program: await tools.read({}).' })
    // A tool hidden by an ordinary restriction gets no hint: no program reaches it either.
    expect((await tools.execute(call('secret', {}, { agent: alice }))).content[0]).toMatchObject({ text: 'Unknown tool "secret". Available tools: program.' })
    expect(policies).toEqual([])
    await tools.execute(call('program', {}, { agent: alice }))
    expect(nested.map((result) => [result.isError, result.error?.code])).toEqual([
      [false, undefined],
      [true, 'UNKNOWN_TOOL'],
    ])
    expect(policies).toEqual(['program', 'read'])
    // Another agent is not restricted at all.
    expect(names(tools.schemas(agent('bob')))).toEqual(['read', 'secret', 'program'])
  })

  it("refuses an appliesTo or a hint of the wrong kind", async () => {
    const { tools } = await createHarness()
    const scope = tools.scope(agent('carol'))
    expect(() => scope.restrict({ deny: ['x'], appliesTo: 'model' as 'direct' })).toThrow("A restriction's appliesTo must be 'all' or 'direct', got the string \"model\"")
    expect(() => scope.restrict({ deny: ['x'], hint: 7 as unknown as string })).toThrow(InvalidToolPolicyError)
  })
})

describe('schemas(agent) is the model-facing allowlist projection', () => {
  it('holds exactly name, description and parameters: never execute, presenters, timeoutMs or extra fields', async () => {
    const { tools } = await createHarness()
    tools.register({
      ...tool('bash'),
      timeoutMs: 120_000,
      concurrencySafe: false,
      presentCall: () => undefined,
      presentResult: () => undefined,
      annotations: { readOnlyHint: false, title: 'Bash' },
      ...({ secret: 'api-key' } as object),
    })
    const [schema] = tools.schemas()
    expect(Object.keys(schema ?? {})).toEqual(['name', 'description', 'parameters'])
    expect(JSON.stringify(tools.schemas())).not.toContain('api-key')
  })

  it('returns fresh detached copies: mutating them changes nothing', async () => {
    const { tools } = await createHarness()
    tools.register(tool('read', { parameters: { type: 'object', properties: { path: { type: 'string' } } } }))
    const first = tools.schemas()
    first[0]!.description = 'hijacked'
    ;(first[0]!.parameters.properties as Record<string, unknown>).path = { type: 'number' }
    first.push({ name: 'fake', description: '', parameters: { type: 'object' } })
    const second = tools.schemas()
    expect(second).toEqual([
      { name: 'read', description: 'The read tool.', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
    ])
    expect(second[0]).not.toBe(first[0])
    expect(Object.isFrozen(second[0])).toBe(false)
  })

  it('is empty when nothing is registered', async () => {
    const { tools } = await createHarness()
    expect(tools.schemas()).toEqual([])
    const result: ToolExecutionResult = await tools.execute(call('anything'))
    expect(result.content).toEqual([{ type: 'text', text: 'Unknown tool "anything". No tools are available.' }])
  })
})

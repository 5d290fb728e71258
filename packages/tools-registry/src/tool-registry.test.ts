import type { ToolExecutionResult } from '@dsh/tools-core'
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import type { ToolChange } from './events.js'
import ToolRegistryDefault, { ToolRegistry } from './index.js'
import { agent, call, createHarness, load, tool } from './test-kit.js'

describe('ToolRegistry is a cordis Service provided as ctx.tools', () => {
  it('loads with ctx.plugin(ToolRegistry) and is the default export', async () => {
    expect(ToolRegistryDefault).toBe(ToolRegistry)
    const ctx = new Context()
    await ctx.plugin(ToolRegistry)
    expect(ctx.tools).toBeInstanceOf(ToolRegistry)
    let seen: ToolRegistry | undefined
    await load(ctx, (pluginCtx) => {
      seen = pluginCtx.tools
    })
    expect(seen).toBeInstanceOf(ToolRegistry)
  })

  it('holds execute, get, schemas and executionMode as bound functions', async () => {
    const { tools } = await createHarness()
    tools.register(tool('read', { concurrencySafe: true }))
    const { execute, get, schemas, executionMode } = tools
    expect((await execute(call('read'))).isError).toBe(false)
    expect(get('read')?.name).toBe('read')
    expect(schemas().map((schema) => schema.name)).toEqual(['read'])
    expect(executionMode({ name: 'read' })).toBe('parallel')
  })

  it('register returns a disposer; get returns the registered definition', async () => {
    const { tools } = await createHarness()
    const read = tool('read')
    const dispose = tools.register(read)
    expect(tools.get('read')).toBe(read)
    dispose()
    expect(tools.get('read')).toBeUndefined()
  })
})

describe('hot unload: everything a plugin set up is undone when its fiber is disposed', () => {
  it('leaves the registry as it was, and tools/change is emitted both ways', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('base'))
    const alice = agent('alice')
    const changes: ToolChange[] = []
    ctx.on('tools/change', (change) => void changes.push(change))
    const hookCounts = (): Record<string, number> =>
      Object.fromEntries(
        ['tools/pre-execute', 'tools/execute', 'tools/post-execute', 'tools/result', 'tools/change'].map((name) => [
          name,
          ctx.events._hooks[name]?.length ?? 0,
        ]),
      )
    const before = { schemas: tools.schemas(), alice: tools.schemas(alice), hooks: hookCounts() }
    const baseline = await tools.execute(call('base', {}, { agent: alice }))

    const plugin = await load(ctx, (pluginCtx) => {
      pluginCtx.tools.register(tool('plugin_tool'))
      pluginCtx.tools.guard(() => 'plugin guard')
      pluginCtx.tools.on('tools/pre-execute', (_exec, next) => next())
      pluginCtx.on('tools/execute', (_exec, next) => next())
      pluginCtx.on('tools/post-execute', () => ({ kind: 'block', feedback: [{ type: 'text', text: 'blocked' }] }))
      pluginCtx.on('tools/result', () => undefined)
      const scope = pluginCtx.tools.scope(alice)
      scope.register(tool('alice_tool'))
      scope.restrict({ deny: ['base'] })
      scope.guard(() => undefined)
    })
    expect(tools.schemas().map((schema) => schema.name)).toEqual(['base', 'plugin_tool'])
    expect(tools.schemas(alice).map((schema) => schema.name)).toEqual(['plugin_tool', 'alice_tool'])
    expect((await tools.execute(call('base'))).error?.code).toBe('GUARD_DENIED')
    expect(changes.map((change) => change.type)).toEqual(['register', 'register', 'restrict'])

    await plugin.dispose()
    expect({ schemas: tools.schemas(), alice: tools.schemas(alice), hooks: hookCounts() }).toEqual(before)
    const after: ToolExecutionResult = await tools.execute(call('base', {}, { agent: alice }))
    expect({ ...after, callId: baseline.callId }).toEqual(baseline)
    expect(changes.map((change) => change.type).sort()).toEqual(['register', 'register', 'restrict', 'unregister', 'unregister', 'unrestrict'])
  })

  it('a registration made while loading and disposed early is not undone twice', async () => {
    const { ctx, tools } = await createHarness()
    const plugin = await load(ctx, (pluginCtx) => {
      const dispose = pluginCtx.tools.register(tool('temp'))
      dispose()
      pluginCtx.tools.register(tool('temp'))
    })
    expect(tools.get('temp')).toBeDefined()
    await plugin.dispose()
    expect(tools.get('temp')).toBeUndefined()
    tools.register(tool('temp'))
  })

  it('registering through a disposed plugin context throws instead of leaking', async () => {
    const { ctx, tools } = await createHarness()
    let pluginTools: ToolRegistry | undefined
    const plugin = await load(ctx, (pluginCtx) => {
      pluginTools = pluginCtx.tools
    })
    await plugin.dispose()
    expect(() => pluginTools?.register(tool('late'))).toThrow(/inactive/)
    expect(tools.get('late')).toBeUndefined()
  })

  it('tools/change reports global registrations with no agent', async () => {
    const { ctx, tools } = await createHarness()
    const changes: ToolChange[] = []
    ctx.on('tools/change', (change) => void changes.push(change))
    const dispose = tools.register(tool('read'))
    dispose()
    expect(changes).toEqual([
      { type: 'register', name: 'read', agent: undefined },
      { type: 'unregister', name: 'read', agent: undefined },
    ])
  })

  it('a tools/change observer that throws starves no peer and changes nothing', async () => {
    const { ctx, tools, warnings } = await createHarness()
    const seen: string[] = []
    ctx.on('tools/change', () => {
      throw new Error('observer bug')
    })
    ctx.on('tools/change', (change) => void seen.push(change.type))
    tools.register(tool('read'))
    expect(seen).toEqual(['register'])
    expect(tools.get('read')).toBeDefined()
    expect(warnings.some((warning) => warning.includes('observer bug'))).toBe(true)
  })
})

describe('events are ordinary cordis events, dispatched without cordis per-call cost', () => {
  it('ctx.on and ctx.tools.on listeners share one list, in registration order, honouring prepend', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    const order: string[] = []
    const plugin = await load(ctx, (pluginCtx) => {
      pluginCtx.on('tools/pre-execute', (_exec, next) => (order.push('ctx.on 1'), next()))
      pluginCtx.tools.on('tools/pre-execute', (_exec, next) => (order.push('tools.on 2'), next()))
      pluginCtx.on('tools/pre-execute', (_exec, next) => (order.push('ctx.on 3'), next()))
      pluginCtx.tools.on('tools/pre-execute', (_exec, next) => (order.push('tools.on prepended'), next()), { prepend: true })
    })
    await tools.execute(call('read'))
    expect(order).toEqual(['tools.on prepended', 'ctx.on 1', 'tools.on 2', 'ctx.on 3'])
    await plugin.dispose()
    order.length = 0
    await tools.execute(call('read'))
    expect(order).toEqual([])
    expect(ctx.events._hooks['tools/pre-execute']).toBeUndefined()
  })

  it('a ctx.tools.on disposer removes exactly its listener', async () => {
    const { tools } = await createHarness()
    tools.register(tool('read'))
    const seen: string[] = []
    const first = tools.on('tools/result', () => void seen.push('first'))
    tools.on('tools/result', () => void seen.push('second'))
    first()
    first()
    await tools.execute(call('read'))
    expect(seen).toEqual(['second'])
  })

  it('listeners added or removed during a call do not change that call', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    const seen: string[] = []
    const disposeSecond = ctx.on('tools/result', () => void seen.push('second'))
    ctx.on(
      'tools/result',
      () => {
        seen.push('first')
        disposeSecond()
        ctx.on('tools/result', () => void seen.push('added'))
      },
      { prepend: true },
    )
    await tools.execute(call('read'))
    expect(seen).toEqual(['first', 'second'])
    seen.length = 0
    await tools.execute(call('read'))
    expect(seen).toEqual(['first', 'added'])
  })

  it('an isolated registry does not see the listeners of another registry, unless they are global', async () => {
    const ctx = new Context()
    await ctx.plugin(ToolRegistry)
    const isolated = ctx.isolate('tools')
    await isolated.plugin(ToolRegistry)
    const inner = await new Promise<ToolRegistry>((resolve) => {
      isolated.plugin({ inject: ['tools'], apply: (pluginCtx) => resolve(pluginCtx.tools) })
    })
    expect(inner).not.toBe(ctx.tools)
    inner.register(tool('read'))
    ctx.tools.register(tool('read'))
    const seen: string[] = []
    ctx.on('tools/result', () => void seen.push('outer listener'))
    ctx.on('tools/result', () => void seen.push('global listener'), { global: true })
    isolated.on('tools/result', () => void seen.push('isolated listener'))
    await inner.execute(call('read'))
    expect(seen).toEqual(['global listener', 'isolated listener'])
    seen.length = 0
    await ctx.tools.execute(call('read'))
    expect(seen).toEqual(['outer listener', 'global listener'])
  })

  it('reports its dispatches to internal/dispatch listeners, as cordis does', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    ctx.on('tools/pre-execute', (_exec, next) => next())
    ctx.on('tools/result', () => undefined)
    const traced: string[] = []
    ctx.on('internal/dispatch', (mode, name) => void traced.push(`${mode} ${String(name)}`))
    await tools.execute(call('read'))
    expect(traced).toEqual(['waterfall tools/pre-execute', 'emit tools/result'])
  })
})

describe('executionMode(call): which calls a loop may run in parallel', () => {
  it('is parallel for concurrencySafe tools and MCP read-only tools, serial otherwise', async () => {
    const { tools } = await createHarness()
    tools.register(tool('safe', { concurrencySafe: true }))
    tools.register(tool('unsafe', { concurrencySafe: false }))
    tools.register(tool('plain'))
    tools.register(tool('mcp_read', { annotations: { readOnlyHint: true } }))
    tools.register(tool('mcp_write', { annotations: { readOnlyHint: false, destructiveHint: true } }))
    tools.register(tool('explicit', { concurrencySafe: false, annotations: { readOnlyHint: true } }))
    const modes = ['safe', 'unsafe', 'plain', 'mcp_read', 'mcp_write', 'explicit', 'unknown'].map((name) => tools.executionMode({ name }))
    expect(modes).toEqual(['parallel', 'serial', 'serial', 'parallel', 'serial', 'serial', 'serial'])
  })

  it('follows the agent scope', async () => {
    const { tools } = await createHarness()
    const alice = agent('alice')
    tools.register(tool('read', { concurrencySafe: true }))
    const scope = tools.scope(alice)
    scope.register(tool('read', { concurrencySafe: false }))
    expect(tools.executionMode({ name: 'read' })).toBe('parallel')
    expect(tools.executionMode({ name: 'read', agent: alice })).toBe('serial')
    expect(scope.executionMode({ name: 'read' })).toBe('serial')
  })
})

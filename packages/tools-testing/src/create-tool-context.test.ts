import { SampleService } from './sample-service.test-kit.js'
import type { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { createToolContext, InvalidTestOptionError, PluginNotActiveError, type ToolTestContext } from './index.js'
import { text, tool } from './test-kit.js'

function rootEffects(t: ToolTestContext): string[] {
  return t.ctx.root.fiber.getEffects().map((effect) => effect.label)
}

describe('createToolContext', () => {
  it('gives a real Context with the registry loaded and active', async () => {
    await using t = await createToolContext()
    expect(t.ctx.get('tools')).toBeDefined()
    expect(t.tools.schemas()).toEqual([])
    t.tools.register(tool('echo', { async execute(args) { return [text(JSON.stringify(args))] } }))
    const result = await t.tools.execute({ callId: 'call_1', name: 'echo', arguments: { a: 1 } })
    expect(result).toEqual({ callId: 'call_1', content: [text('{"a":1}')], isError: false })
  })

  it('disposes everything at the end of an `await using` block: plugins, registrations, root listeners', async () => {
    let observed = 0
    let ctx: Context
    {
      await using t = await createToolContext()
      ctx = t.ctx
      t.tools.register(tool('echo'))
      t.ctx.on('tools/result', () => {
        observed += 1
      })
      await t.load({ name: 'extra', inject: ['tools'], apply: (inner: Context) => void inner.tools.register(tool('more')) })
      await t.tools.execute({ callId: 'call_1', name: 'echo', arguments: {} })
      expect(observed).toBe(1)
      expect(rootEffects(t)).toContain('ctx.on("tools/result")')
    }
    expect(ctx.get('tools')).toBeUndefined()
    expect(ctx.root.fiber.getEffects()).toEqual([])
    expect(Reflect.ownKeys(ctx.root.events._hooks).filter((name) => String(name).startsWith('tools/'))).toEqual([])
    expect([...ctx.root.registry.values()]).toEqual([])
  })

  it('dispose() can be called twice and makes load() reject', async () => {
    const t = await createToolContext()
    await t.dispose()
    await t.dispose()
    expect(t.disposed).toBe(true)
    await expect(t.load({ name: 'late', apply() {} })).rejects.toThrow(InvalidTestOptionError)
  })

  // The registry's own child plugin: it waits for an optional ctx.systemPrompt to feed its tool schemas into.
  const registryFeed = 'system-prompt (the tool schemas of ctx.tools)'

  it('loads extra plugins in order, after the registry, with their configs', async () => {
    const order: string[] = []
    const first = { name: 'first', inject: ['tools'], apply: (_ctx: Context, config: { label: string }) => void order.push(config.label) }
    const second = { name: 'second', apply: () => void order.push('second') }
    await using t = await createToolContext({ plugins: [[first, { label: 'first:configured' }], second] })
    expect(order).toEqual(['first:configured', 'second'])
    expect([...t.ctx.root.registry.values()].map((runtime) => runtime.name)).toEqual(['ToolRegistry', registryFeed, 'first', 'second'])
  })

  it('makes a service (like the bash executor) a one-line opt-in, with its config', async () => {
    await using t = await createToolContext({ plugins: [[SampleService, { limit: 5 }]] })
    expect(t.ctx.sample.limit).toBe(5)
  })

  it('rejects with PluginNotActiveError, naming the missing services, when a plugin waits for one', async () => {
    const needsBash = { name: 'needs-bash', inject: ['tools', 'bash'], apply() {} }
    const error: unknown = await createToolContext({ plugins: [needsBash] }).catch((caught: unknown) => caught)
    expect(PluginNotActiveError.isInstance(error)).toBe(true)
    expect(error).toMatchObject({ code: 'INVALID_CONFIG', plugin: 'needs-bash', missing: ['bash'] })
    expect((error as Error).message).toBe(
      'plugin "needs-bash" did not become active: it waits for the services "bash". Load the plugins that provide them first.',
    )
  })

  it('load() disposes a plugin that did not become active before throwing', async () => {
    await using t = await createToolContext()
    await expect(t.load({ name: 'waiting', inject: ['nobody'], apply() {} })).rejects.toThrow(PluginNotActiveError)
    expect([...t.ctx.root.registry.values()].map((runtime) => runtime.name)).toEqual(['ToolRegistry', registryFeed])
  })

  it("rejects with the plugin's own error when its apply throws", async () => {
    const broken = { name: 'broken', apply() { throw new RangeError('bad config') } }
    await expect(createToolContext({ plugins: [broken] })).rejects.toThrow('bad config')
  })

  it.each([
    [[42], 'plugins[0]'],
    [[[]], 'plugins[0]'],
    [[[{ apply() {} }, {}, 'extra']], 'plugins[0]'],
    [[{ name: 'ok', apply() {} }, { name: 'no apply' }], 'plugins[1]'],
  ])('rejects a malformed plugins option %j', async (plugins, option) => {
    await expect(createToolContext({ plugins: plugins as never })).rejects.toMatchObject({ name: 'InvalidTestOptionError', option })
  })

  it('load() resolves to the active fiber and a disposer that unloads the plugin', async () => {
    await using t = await createToolContext()
    const loaded = await t.load({ name: 'notes', inject: ['tools'], apply: (ctx: Context) => void ctx.tools.register(tool('notes')) })
    expect(loaded.fiber.name).toBe('notes')
    expect(loaded.ctx.fiber).toBe(loaded.fiber)
    expect(t.tools.schemas().map((schema) => schema.name)).toEqual(['notes'])
    await loaded.dispose()
    expect(t.tools.schemas()).toEqual([])
  })

  it('collects log messages, such as the registry warning about an observer that threw', async () => {
    await using t = await createToolContext()
    t.tools.register(tool('echo'))
    t.ctx.on('tools/result', () => {
      throw new Error('observer broke')
    })
    await t.tools.execute({ callId: 'call_1', name: 'echo', arguments: {} })
    expect(t.logs).toEqual([{ name: 'tools', type: 'warn', text: expect.stringContaining('a tools/result observer threw for "echo"') }])
    expect(t.logs[0]?.text).toContain('observer broke')
  })
})

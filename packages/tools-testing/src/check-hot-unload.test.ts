import { SampleService } from './sample-service.test-kit.js'
import { EventEmitter } from 'node:events'
import type { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import {
  checkHotUnload,
  createTestAgent,
  createToolContext,
  expectCleanUnload,
  HotUnloadError,
  PluginNotActiveError,
  type HotUnloadLeakKind,
  type HotUnloadReport,
} from './index.js'
import { text, tool } from './test-kit.js'

function kinds(report: HotUnloadReport): HotUnloadLeakKind[] {
  return report.leaks.map((leak) => leak.kind)
}

function messages(report: HotUnloadReport): string[] {
  return report.leaks.map((leak) => `[${leak.kind}] ${leak.message}`)
}

const reviewer = createTestAgent('reviewer')

/** A well-behaved plugin that uses every registration the registry offers, plus a child plugin and a service. */
const wellBehaved = {
  name: 'well-behaved',
  inject: ['tools'],
  apply(ctx: Context) {
    ctx.tools.register(tool('notes', { concurrencySafe: true }))
    ctx.tools.register(tool('todo'))
    ctx.tools.guard((exec) => (exec.name === 'todo' && JSON.stringify(exec.arguments).includes('rm') ? 'no' : undefined))
    const scope = ctx.tools.scope(reviewer)
    scope.register(tool('submit_review'))
    scope.restrict({ deny: ['todo'] })
    scope.guard(() => undefined)
    ctx.tools.on('tools/pre-execute', (_exec, next) => next())
    ctx.on('tools/result', () => {})
    ctx.plugin({ name: 'well-behaved-child', apply: (child: Context) => void child.on('tools/change', () => {}) })
    ctx.provide('notesIndex', { size: 0 })
    const onExit = (): void => {}
    ctx.effect(() => {
      process.on('exit', onExit)
      return () => void process.off('exit', onExit)
    }, 'exit hook')
  },
}

describe('checkHotUnload', () => {
  it('reports a clean unload and everything the plugin set up', async () => {
    const report = await expectCleanUnload(wellBehaved)
    expect(report.clean).toBe(true)
    expect(report.cycles).toBe(2)
    expect(report.plugin).toBe('well-behaved')
    expect(report.leaks).toEqual([])
    const { footprint } = report
    expect(footprint.tools).toEqual(['notes', 'todo'])
    expect(footprint.scopes).toEqual([
      { type: 'tool', agent: 'reviewer', name: 'submit_review' },
      { type: 'restriction', agent: 'reviewer' },
    ])
    expect(footprint.guards).toBe(2)
    // Grouped by event, in the order cordis's hook lists were created (the check's own tools/change recorder is first).
    expect(footprint.listeners).toEqual([
      { event: 'tools/change', owner: 'well-behaved-child' },
      { event: 'tools/pre-execute', owner: 'well-behaved' },
      { event: 'tools/result', owner: 'well-behaved' },
    ])
    expect(footprint.plugins).toEqual(['well-behaved-child'])
    expect(footprint.services).toEqual(['notesIndex'])
    expect(footprint.emitterListeners).toEqual([{ emitter: 'process', event: 'exit' }])
    expect(footprint.effects.map((effect) => `${effect.label} @ ${effect.owner}`)).toEqual([
      'tools.register("notes") @ well-behaved',
      'tools.register("todo") @ well-behaved',
      'tools.guard() @ well-behaved',
      'tools.scope().register("submit_review") @ well-behaved',
      'tools.scope().restrict() @ well-behaved',
      'tools.scope().guard() @ well-behaved',
      'tools.on("tools/pre-execute") @ well-behaved',
      'ctx.on("tools/result") @ well-behaved',
      'ctx.plugin() @ well-behaved',
      'ctx.provide("notesIndex") @ well-behaved',
      'exit hook @ well-behaved',
      'ctx.on("tools/change") @ well-behaved-child',
    ])
    expect(Object.isFrozen(report.footprint.effects[0])).toBe(true)
  })

  it('catches a tool registered through a saved root context, and expectCleanUnload says so readably', async () => {
    const leaky = {
      name: 'leaky-root-register',
      inject: ['tools'],
      apply(ctx: Context) {
        const rootTools = ctx.root.tools
        const dispose = rootTools.register(tool('echo'))
        void dispose // saved, never called
      },
    }
    const report = await checkHotUnload(leaky)
    expect(report.clean).toBe(false)
    expect(report.cycles).toBe(1)
    expect(report.footprint.tools).toEqual(['echo'])
    expect(messages(report)).toEqual([
      '[tool] tool "echo" is still registered',
      '[effect] effect tools.register("echo") is still active on "root"',
    ])
    const error: unknown = await expectCleanUnload(leaky).catch((caught: unknown) => caught)
    expect(HotUnloadError.isInstance(error)).toBe(true)
    expect((error as HotUnloadError).report.leaks).toHaveLength(2)
    expect((error as Error).message).toBe(
      [
        'plugin "leaky-root-register" left 2 things behind after its fiber was disposed (1 load/dispose cycle):',
        '  - [tool] tool "echo" is still registered',
        '  - [effect] effect tools.register("echo") is still active on "root"',
        'It had set up: global tools echo; effects tools.register("echo") (on "root").',
      ].join('\n'),
    )
  })

  it('catches a listener added through a global emitter: the root context', async () => {
    const report = await checkHotUnload({
      name: 'leaky-root-listener',
      apply(ctx: Context) {
        ctx.root.on('tools/result', () => {})
      },
    })
    expect(messages(report)).toEqual([
      '[listener] a "tools/result" listener added through the context of "root" is still attached',
      '[effect] effect ctx.on("tools/result") is still active on "root"',
    ])
  })

  it('catches a listener left on process, and on any emitter it is told to watch', async () => {
    const bus = new EventEmitter()
    const forgotten = (): void => {}
    try {
      const report = await checkHotUnload(
        {
          name: 'leaky-emitters',
          apply() {
            process.on('beforeExit', forgotten)
            bus.on('message', forgotten)
          },
        },
        { emitters: { process, bus } },
      )
      expect(messages(report)).toEqual([
        '[emitter] a "beforeExit" listener on process is still attached',
        '[emitter] a "message" listener on bus is still attached',
      ])
    } finally {
      process.off('beforeExit', forgotten)
    }
  })

  it('catches a guard and a scope registered through the root context', async () => {
    const agent = createTestAgent('intern')
    const report = await checkHotUnload({
      name: 'leaky-policy',
      inject: ['tools'],
      apply(ctx: Context) {
        ctx.root.tools.guard(() => undefined)
        const scope = ctx.root.tools.scope(agent)
        scope.register(tool('scratch'))
        scope.restrict({ allow: [] })
      },
    })
    expect(report.footprint.guards).toBe(1)
    expect(messages(report)).toEqual([
      '[scope] agent "intern" still has its own tool "scratch"',
      '[scope] agent "intern" still has 1 restriction of its global tools',
      '[effect] effect tools.guard() is still active on "root"',
      '[effect] effect tools.scope().register("scratch") is still active on "root"',
      '[effect] effect tools.scope().restrict() is still active on "root"',
    ])
  })

  it('catches a plugin and a service set up through the root context', async () => {
    const report = await checkHotUnload({
      name: 'leaky-app',
      apply(ctx: Context) {
        ctx.root.plugin({ name: 'stowaway', apply() {} })
        ctx.root.provide('cache', new Map())
      },
    })
    expect(kinds(report).sort()).toEqual(['effect', 'effect', 'plugin', 'service'])
    expect(messages(report)).toContain('[plugin] plugin "stowaway" (loaded through the context of "root") is still loaded')
    expect(messages(report)).toContain('[service] service "cache" (provided through the context of "root") is still provided')
  })

  it('catches a plugin that removes a tool it does not own', async () => {
    await using t = await createToolContext()
    const dispose = t.tools.register(tool('shared'))
    const vandal = await checkHotUnload(
      {
        name: 'vandal',
        apply() {
          dispose()
        },
      },
      { context: t },
    )
    expect(messages(vandal)).toEqual(['[tool] tool "shared", registered before the plugin loaded, is gone'])
  })

  it('catches state that survives the unload and changes the next load', async () => {
    let loadedBefore = false
    const report = await checkHotUnload({
      name: 'once-only',
      inject: ['tools'],
      apply(ctx: Context) {
        if (!loadedBefore) ctx.tools.register(tool('setup'))
        loadedBefore = true
      },
    })
    expect(report.cycles).toBe(2)
    expect(messages(report)).toEqual([
      '[reload] loaded again, it set up different global tools: nothing instead of setup',
      '[reload] loaded again, it set up different effects: nothing instead of tools.register("setup")',
    ])
  })

  it('reports a reload that fails as a leak of the second cycle', async () => {
    let loads = 0
    const report = await checkHotUnload({
      name: 'fails-on-reload',
      apply() {
        loads += 1
        if (loads > 1) throw new Error('already initialised')
      },
    })
    expect(report.leaks).toEqual([{ kind: 'reload', cycle: 2, message: 'loading it again failed: Error: already initialised' }])
  })

  it('catches a disposer that throws', async () => {
    const report = await checkHotUnload({
      name: 'bad-disposer',
      apply(ctx: Context) {
        ctx.effect(() => () => {
          throw new Error('cleanup failed')
        }, 'cache')
      },
    })
    expect(messages(report)).toEqual(['[dispose-error] disposing it logged an error: Error: cleanup failed'])
  })

  it('rejects with PluginNotActiveError instead of passing a plugin whose services are missing', async () => {
    const needsSample = { name: 'needs-sample', inject: ['tools', 'sample'], apply: (ctx: Context) => void ctx.tools.register(tool('x')) }
    await expect(checkHotUnload(needsSample)).rejects.toThrow(PluginNotActiveError)
    const report = await expectCleanUnload(needsSample, { plugins: [SampleService] })
    expect(report.footprint.tools).toEqual(['x'])
  })

  it("rejects with the plugin's own error when it fails to load", async () => {
    await expect(checkHotUnload({ name: 'broken', apply() { throw new TypeError('bad') } })).rejects.toThrow('bad')
  })

  it('names a nameless plugin "(anonymous plugin)", not after its parent', async () => {
    const report = await checkHotUnload({ inject: ['tools'], apply: (ctx: Context) => void ctx.root.tools.register(tool('stray')) })
    expect(report.plugin).toBe('(anonymous plugin)')
    expect(report.footprint.effects).toEqual([{ label: 'tools.register("stray")', owner: 'root' }])
    const clean = await checkHotUnload({ inject: ['tools'], apply: (ctx: Context) => void ctx.tools.register(tool('kept')) })
    expect(clean.footprint.effects).toEqual([{ label: 'tools.register("kept")', owner: '(anonymous plugin)' }])
  })

  it('passes the config to the plugin', async () => {
    const configured = {
      name: 'configured',
      inject: ['tools'],
      apply: (ctx: Context, config: { toolName: string }) => void ctx.tools.register(tool(config.toolName)),
    }
    const report = await expectCleanUnload(configured, { config: { toolName: 'custom' } })
    expect(report.footprint.tools).toEqual(['custom'])
  })

  it('checks a service: its process exit hook comes and goes with it', async () => {
    const report = await expectCleanUnload(SampleService, { config: { limit: 1 } })
    expect(report.footprint.services).toEqual(['sample'])
    expect(report.footprint.emitterListeners).toEqual([{ emitter: 'process', event: 'exit' }])
  })

  it('runs in an existing context, keeps it alive, and counts what was there before as the baseline', async () => {
    await using t = await createToolContext()
    t.tools.register(tool('preexisting'))
    t.ctx.on('tools/result', () => {})
    const report = await expectCleanUnload(wellBehaved, { context: t, cycles: 1 })
    expect(report.cycles).toBe(1)
    expect(report.footprint.tools).toEqual(['notes', 'todo'])
    expect(t.disposed).toBe(false)
    expect(t.tools.schemas().map((schema) => schema.name)).toEqual(['preexisting'])
    const result = await t.tools.execute({ callId: 'c1', name: 'preexisting', arguments: {} })
    expect(result.content).toEqual([text('preexisting')])
  })

  it.each([
    [{ cycles: 0 }, 'cycles'],
    [{ cycles: 1.5 }, 'cycles'],
    [{ emitters: { broken: {} } }, 'emitters.broken'],
  ])('rejects invalid options %j', async (options, option) => {
    await expect(checkHotUnload(wellBehaved, options as never)).rejects.toMatchObject({ name: 'InvalidTestOptionError', option })
  })

  it('rejects a disposed context', async () => {
    const t = await createToolContext()
    await t.dispose()
    await expect(checkHotUnload(wellBehaved, { context: t })).rejects.toMatchObject({ name: 'InvalidTestOptionError', option: 'context' })
  })

  it('rejects both a context and plugins', async () => {
    await using t = await createToolContext()
    await expect(checkHotUnload(wellBehaved, { context: t, plugins: [] } as never)).rejects.toMatchObject({ option: 'plugins' })
  })
})

import type { ToolExecution, ToolExecutionResult } from '@dsh/tools-core'
import type { ToolRegistry } from '@dsh/tools-registry'
import type { SampleService, SampleServiceConfig } from './sample-service.test-kit.js'
import type { Context, Fiber } from 'cordis'
import { describe, expectTypeOf, it } from 'vitest'
import {
  checkHotUnload,
  createToolContext,
  createToolExecution,
  expectCleanUnload,
  runScriptedSession,
  runToolStep,
  type HotUnloadReport,
  type ModelScript,
  type PluginArgs,
  type PluginConfig,
  type ScriptedModel,
  type ScriptedSession,
  type SessionEvent,
  type SessionStep,
  type ToolStepTarget,
  type ToolTestContext,
} from './index.js'

declare const t: ToolTestContext
declare const ctx: Context

const objectPlugin = { name: 'p', apply: (_ctx: Context, _config: { label: string }) => {} }
const optionalPlugin = { name: 'q', apply: (_ctx: Context, _config?: { label: string }) => {} }
const functionPlugin = (_ctx: Context) => {}

describe('createToolContext', () => {
  it('resolves to an async-disposable test context holding the registry', () => {
    expectTypeOf(createToolContext).returns.resolves.toEqualTypeOf<ToolTestContext>()
    expectTypeOf(t.tools).toEqualTypeOf<ToolRegistry>()
    expectTypeOf(t.ctx).toEqualTypeOf<Context>()
    expectTypeOf(t).toMatchTypeOf<AsyncDisposable>()
  })

  it('reads a plugin config the way cordis does', () => {
    expectTypeOf<PluginConfig<typeof objectPlugin>>().toEqualTypeOf<{ label: string }>()
    expectTypeOf<PluginConfig<typeof SampleService>>().toEqualTypeOf<SampleServiceConfig | undefined>()
    expectTypeOf<PluginArgs<typeof objectPlugin>>().toEqualTypeOf<[config: { label: string }]>()
    expectTypeOf<PluginArgs<typeof optionalPlugin>>().toEqualTypeOf<[config?: { label: string } | undefined]>()
    expectTypeOf<PluginArgs<typeof functionPlugin>>().toEqualTypeOf<[config?: undefined]>()
  })

  it('load() checks the config against the plugin', async () => {
    expectTypeOf((await t.load(objectPlugin, { label: 'x' })).fiber).toEqualTypeOf<Fiber>()
    await t.load(optionalPlugin)
    await t.load(functionPlugin)
    // @ts-expect-error: the plugin needs its config
    await t.load(objectPlugin)
    // @ts-expect-error: the config has the wrong shape
    await t.load(objectPlugin, { label: 1 })
  })
})

describe('the scripted loop', () => {
  it('takes the registry, a script or a model, and resolves to a session', () => {
    expectTypeOf(ctx.tools).toMatchTypeOf<ToolStepTarget>()
    expectTypeOf(runScriptedSession).returns.resolves.toEqualTypeOf<ScriptedSession>()
    expectTypeOf(runToolStep).returns.resolves.toEqualTypeOf<SessionStep>()
    const script: ModelScript = [
      [{ id: 'c1', name: 'read', arguments: { path: 'a' } }],
      ({ previous }) => (previous?.results[0]?.isError === true ? [{ id: 'c2', name: 'read', arguments: {} }] : []),
      async () => undefined,
    ]
    void runScriptedSession(ctx.tools, script)
    const model: ScriptedModel = ({ step }) => (step > 2 ? undefined : [{ id: `c${step}`, name: 'read', arguments: {} }])
    void runScriptedSession(ctx.tools, model, { maxSteps: 3 })
    // @ts-expect-error: a call needs an id
    void runScriptedSession(ctx.tools, [[{ name: 'read', arguments: {} }]])
  })

  it('has a discriminated session log', () => {
    const event = {} as SessionEvent
    if (event.type === 'tool/result') expectTypeOf(event.result).toEqualTypeOf<Omit<ToolExecutionResult, 'structuredContent'>>()
    if (event.type === 'tool/call') expectTypeOf(event.mode).toEqualTypeOf<'parallel' | 'serial'>()
  })
})

describe('the hot-unload check', () => {
  it('types the config after the plugin and takes either a context or plugins', () => {
    expectTypeOf(checkHotUnload(objectPlugin, { config: { label: 'x' } })).resolves.toEqualTypeOf<HotUnloadReport>()
    void expectCleanUnload(objectPlugin, { context: t })
    void expectCleanUnload(objectPlugin, { plugins: [[optionalPlugin, { label: 'x' }], functionPlugin] })
    // @ts-expect-error: the config has the wrong shape
    void checkHotUnload(objectPlugin, { config: { label: 1 } })
    // @ts-expect-error: a context and plugins for a fresh one exclude each other
    void checkHotUnload(objectPlugin, { context: t, plugins: [] })
  })
})

describe('createToolExecution', () => {
  it('returns a ToolExecution and needs only a name', () => {
    expectTypeOf(createToolExecution({ name: 'echo' })).toEqualTypeOf<ToolExecution>()
    expectTypeOf(createToolExecution).parameter(0).toHaveProperty('name').toEqualTypeOf<string>()
    // @ts-expect-error the name is required
    createToolExecution({ arguments: {} })
  })
})

import { deepFreeze, type Agent } from '@dsh/tools-core'
import type { ToolChange } from '@dsh/tools-registry'
import { Context, type EffectMeta, type Fiber, type Plugin } from 'cordis'
import {
  effectLabels,
  newEmitterListeners,
  readAppState,
  type AppState,
  type ListenerSource,
} from './app-state.js'
import {
  createToolContext,
  loadActivePlugin,
  pluginName,
  type PluginConfig,
  type ToolContextPlugin,
  type ToolTestContext,
} from './create-tool-context.js'
import { HotUnloadError } from './hot-unload-error.js'
import { InvalidTestOptionError } from './invalid-test-option-error.js'

/** Something a plugin set up in an agent's scope, as `tools/change` reported it. */
export type ScopeEntry =
  | {
      /** A tool of the agent's own. */
      readonly type: 'tool'
      /** The agent's id. */
      readonly agent: string
      /** The tool's name. */
      readonly name: string
    }
  | {
      /** A restriction of the global tools the agent sees. */
      readonly type: 'restriction'
      /** The agent's id. */
      readonly agent: string
    }

/** A listener in cordis's hook lists (`ctx.on`, `ctx.tools.on`). */
export interface ListenerEntry {
  /** The event, for example `tools/pre-execute`. */
  readonly event: string
  /** The name of the plugin whose context it was added through (`root` for the root context). */
  readonly owner: string
}

/** A cordis effect (a registration, a listener, a loaded plugin, a provided service, …). */
export interface EffectEntry {
  /** cordis's label for it, for example `tools.register("echo")`, `tools.guard()` or `ctx.on("tools/result")`. */
  readonly label: string
  /** The name of the plugin whose fiber owns it. */
  readonly owner: string
}

/** A listener on one of the watched emitters (`process` by default). */
export interface EmitterListenerEntry {
  /** The emitter's name in the `emitters` option. */
  readonly emitter: string
  /** The event. */
  readonly event: string
}

/** What loading the plugin added to the app. */
export interface PluginFootprint {
  /** Global tools that became visible (`ctx.tools.schemas()`), in registration order. */
  readonly tools: readonly string[]
  /** Tools and restrictions added to agents' scopes (from `tools/change`). */
  readonly scopes: readonly ScopeEntry[]
  /** Guards added, global or scoped (counted from the registry's effect labels). */
  readonly guards: number
  /** Listeners added to cordis's hook lists. */
  readonly listeners: readonly ListenerEntry[]
  /** Effects added, on any fiber (the plugin's own, its children's, or another's), depth first. */
  readonly effects: readonly EffectEntry[]
  /** Plugins loaded besides the checked one. */
  readonly plugins: readonly string[]
  /** Services provided. */
  readonly services: readonly string[]
  /** Listeners added to the watched emitters. */
  readonly emitterListeners: readonly EmitterListenerEntry[]
}

/** The kinds of things a plugin can leave behind. */
export type HotUnloadLeakKind =
  /** A global tool still registered, or one that existed before and is gone. */
  | 'tool'
  /** A tool or restriction still in an agent's scope. */
  | 'scope'
  /** A listener still in cordis's hook lists. */
  | 'listener'
  /** A cordis effect still active on some fiber (a registration or guard made through another context). */
  | 'effect'
  /** A plugin it loaded through another context, still loaded. */
  | 'plugin'
  /** A service it provided through another context, still provided. */
  | 'service'
  /** A listener still attached to a watched emitter. */
  | 'emitter'
  /** A disposer that threw (cordis logs it and goes on, so part of the cleanup did not happen). */
  | 'dispose-error'
  /** Loaded again, it failed or set up something different (module-level state survived the unload). */
  | 'reload'

/** One thing left behind. */
export interface HotUnloadLeak {
  /** What kind of thing. */
  readonly kind: HotUnloadLeakKind
  /** The load/dispose cycle (1-based) that showed it. */
  readonly cycle: number
  /** A readable description, naming the tool, event, label or plugin. */
  readonly message: string
}

/** The outcome of {@link checkHotUnload}. Deep-frozen. */
export interface HotUnloadReport {
  /** The plugin's name, as cordis reports it. */
  readonly plugin: string
  /** How many load/dispose cycles ran (the check stops after the first cycle that leaks). */
  readonly cycles: number
  /** What the first load added. */
  readonly footprint: PluginFootprint
  /** What was left behind; empty when the unload was clean. */
  readonly leaks: readonly HotUnloadLeak[]
  /** True when nothing was left behind. */
  readonly clean: boolean
}

interface HotUnloadBaseOptions<C> {
  /** The plugin's config. */
  readonly config?: C | undefined
  /**
   * Emitters whose listeners are compared before loading and after disposing, by name (default `{ process }`).
   * Giving this replaces the default; include `process` to keep it.
   */
  readonly emitters?: Readonly<Record<string, ListenerSource>> | undefined
  /** How many times to load and dispose the plugin (default 2: a second load catches state that survived). */
  readonly cycles?: number | undefined
}

/**
 * Options of {@link checkHotUnload}: where to load the plugin (a fresh test context with `plugins`, or an existing
 * `context`), its config, the emitters to watch and the number of cycles.
 */
export type HotUnloadOptions<C = unknown> = HotUnloadBaseOptions<C> &
  (
    | {
        /** Run the check in this context (it stays alive afterwards); the app's state before loading is the baseline. */
        readonly context: ToolTestContext
        readonly plugins?: undefined
      }
    | {
        readonly context?: undefined
        /** Plugins the fresh test context loads first (services the plugin injects); they are part of the baseline. */
        readonly plugins?: readonly ToolContextPlugin[] | undefined
      }
  )

const GUARD_LABEL = /^tools(?:\.scope\(\))?\.guard\(\)$/
const DEFAULT_CYCLES = 2

function loadingEffect(fiber: Fiber): unknown {
  // The `ctx.plugin()` effect on the parent fiber that loaded this plugin: ours, not the plugin's.
  return (fiber.dispose as unknown as Record<symbol, unknown>)[Context.effect]
}

function agentName(agent: Agent): string {
  return typeof agent.id === 'string' ? agent.id : String(agent.id)
}

function footprintOf(before: AppState, after: AppState, fiber: Fiber, changes: readonly ToolChange[]): PluginFootprint {
  const ownLoad = loadingEffect(fiber)
  const known = new Set(before.tools)
  const scopes: ScopeEntry[] = []
  for (const change of changes) {
    if (change.type === 'register' && change.agent !== undefined) {
      scopes.push({ type: 'tool', agent: agentName(change.agent), name: change.name })
    }
    if (change.type === 'restrict') scopes.push({ type: 'restriction', agent: agentName(change.agent) })
  }
  const effects: EffectEntry[] = []
  for (const [meta, owner] of after.effects) {
    if (before.effects.has(meta) || meta === ownLoad) continue
    for (const label of effectLabels(meta)) effects.push({ label, owner: pluginName(owner) })
  }
  const listeners: ListenerEntry[] = []
  for (const [hook, event] of after.hooks) {
    if (!before.hooks.has(hook)) listeners.push({ event, owner: pluginName(hook.ctx.fiber) })
  }
  const plugins: string[] = []
  for (const other of after.fibers) if (!before.fibers.has(other) && other !== fiber) plugins.push(pluginName(other))
  const services: string[] = []
  for (const [impl, entry] of after.services) if (!before.services.has(impl)) services.push(entry.name)
  return {
    tools: after.tools.filter((name) => !known.has(name)),
    scopes,
    guards: effects.filter((effect) => GUARD_LABEL.test(effect.label)).length,
    listeners,
    effects,
    plugins,
    services,
    emitterListeners: newEmitterListeners(before.emitterListeners, after.emitterListeners).map(({ emitter, event }) => ({
      emitter,
      event,
    })),
  }
}

function scopeLeaks(changes: readonly ToolChange[]): string[] {
  const tools = new Map<Agent, Map<string, number>>()
  const restrictions = new Map<Agent, number>()
  for (const change of changes) {
    if ((change.type === 'register' || change.type === 'unregister') && change.agent !== undefined) {
      const counts = tools.get(change.agent) ?? new Map<string, number>()
      tools.set(change.agent, counts)
      counts.set(change.name, (counts.get(change.name) ?? 0) + (change.type === 'register' ? 1 : -1))
    } else if (change.type === 'restrict' || change.type === 'unrestrict') {
      restrictions.set(change.agent, (restrictions.get(change.agent) ?? 0) + (change.type === 'restrict' ? 1 : -1))
    }
  }
  const messages: string[] = []
  for (const [agent, counts] of tools) {
    for (const [name, count] of counts) {
      if (count > 0) messages.push(`agent "${agentName(agent)}" still has its own tool "${name}"`)
    }
  }
  for (const [agent, count] of restrictions) {
    if (count <= 0) continue
    const amount = count === 1 ? '1 restriction' : `${count} restrictions`
    messages.push(`agent "${agentName(agent)}" still has ${amount} of its global tools`)
  }
  return messages
}

function describeLabel(meta: EffectMeta): string {
  const inner = meta.children.flatMap(effectLabels)
  return inner.length === 0 ? meta.label : `${meta.label} (with ${inner.join(', ')})`
}

function leaksOf(before: AppState, after: AppState, changes: readonly ToolChange[], cycle: number): HotUnloadLeak[] {
  const leaks: HotUnloadLeak[] = []
  const leak = (kind: HotUnloadLeakKind, message: string): void => {
    leaks.push({ kind, cycle, message })
  }
  const now = new Set(after.tools)
  const then = new Set(before.tools)
  for (const name of after.tools) if (!then.has(name)) leak('tool', `tool "${name}" is still registered`)
  for (const name of before.tools) {
    if (!now.has(name)) leak('tool', `tool "${name}", registered before the plugin loaded, is gone`)
  }
  for (const message of scopeLeaks(changes)) leak('scope', message)
  for (const [hook, event] of after.hooks) {
    if (before.hooks.has(hook)) continue
    leak('listener', `a "${event}" listener added through the context of "${pluginName(hook.ctx.fiber)}" is still attached`)
  }
  for (const [meta, owner] of after.effects) {
    if (!before.effects.has(meta)) leak('effect', `effect ${describeLabel(meta)} is still active on "${pluginName(owner)}"`)
  }
  for (const fiber of after.fibers) {
    if (before.fibers.has(fiber)) continue
    const parent = pluginName(fiber.parent.fiber)
    leak('plugin', `plugin "${pluginName(fiber)}" (loaded through the context of "${parent}") is still loaded`)
  }
  for (const [impl, entry] of after.services) {
    if (before.services.has(impl)) continue
    const owner = pluginName(entry.owner)
    leak('service', `service "${entry.name}" (provided through the context of "${owner}") is still provided`)
  }
  for (const entry of newEmitterListeners(before.emitterListeners, after.emitterListeners)) {
    leak('emitter', `a "${entry.event}" listener on ${entry.emitter} is still attached`)
  }
  return leaks
}

function sortedSignature(items: readonly unknown[]): string {
  return JSON.stringify(items.map((item) => JSON.stringify(item)).sort())
}

function describeList(items: readonly unknown[]): string {
  if (items.length === 0) return 'nothing'
  return items.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join(', ')
}

function reloadLeaks(first: PluginFootprint, next: PluginFootprint, cycle: number): HotUnloadLeak[] {
  const categories: [string, readonly unknown[], readonly unknown[]][] = [
    ['global tools', first.tools, next.tools],
    ['scope entries', first.scopes, next.scopes],
    ['listeners', first.listeners, next.listeners],
    ['effects', first.effects.map((effect) => effect.label), next.effects.map((effect) => effect.label)],
    ['plugins', first.plugins, next.plugins],
    ['services', first.services, next.services],
    ['emitter listeners', first.emitterListeners, next.emitterListeners],
  ]
  const leaks: HotUnloadLeak[] = []
  for (const [label, before, after] of categories) {
    if (sortedSignature(before) === sortedSignature(after)) continue
    leaks.push({
      kind: 'reload',
      cycle,
      message: `loaded again, it set up different ${label}: ${describeList(after)} instead of ${describeList(before)}`,
    })
  }
  return leaks
}

function firstLine(text: string): string {
  const end = text.indexOf('\n')
  return end < 0 ? text : text.slice(0, end)
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error)
}

interface CheckedOptions {
  readonly cycles: number
  readonly emitters: Readonly<Record<string, ListenerSource>>
}

function checkOptions(options: HotUnloadOptions<unknown>): CheckedOptions {
  if (options.context !== undefined && options.plugins !== undefined) {
    throw new InvalidTestOptionError('plugins', 'give either an existing context or the plugins of a fresh one, not both')
  }
  if (options.context?.disposed === true) throw new InvalidTestOptionError('context', 'the test context is disposed')
  const cycles = options.cycles ?? DEFAULT_CYCLES
  if (typeof cycles !== 'number' || !Number.isSafeInteger(cycles) || cycles < 1) {
    throw new InvalidTestOptionError('cycles', `expected a positive integer, got ${String(cycles)}`)
  }
  const emitters = options.emitters ?? { process }
  for (const [name, source] of Object.entries(emitters)) {
    const usable =
      typeof source === 'object' &&
      source !== null &&
      typeof (source as Partial<ListenerSource>).eventNames === 'function' &&
      typeof (source as Partial<ListenerSource>).listeners === 'function'
    if (!usable) throw new InvalidTestOptionError(`emitters.${name}`, 'expected an object with eventNames() and listeners(name)')
  }
  return { cycles, emitters }
}

/**
 * The hot-unload check every tool package needs: loads `plugin` into a test context with the registry, records
 * what it set up, disposes its fiber, and compares the app with its state before the load. Runs `cycles` times
 * (default 2), so state that survives an unload and changes the next load is caught too.
 *
 * What it can see, all through public surfaces: global tools (`ctx.tools.schemas()`), tools and restrictions of
 * agents' scopes (`tools/change` events), listeners in cordis's hook lists (`ctx.on`, `ctx.tools.on`), every cordis
 * effect on every fiber (registrations, guards and listeners made through *another* context, like a saved root
 * context), plugins and services, listeners on the watched emitters (`process` by default), and disposers that
 * threw. It cannot see timers, sockets or module-level state that never touches these; a second cycle shows the
 * last when it changes what the plugin registers.
 *
 * Resolves to the report; rejects with the plugin's own error when it fails to load, and with
 * {@link PluginNotActiveError} when it waits for services the context does not provide.
 */
export async function checkHotUnload<P extends Plugin>(
  plugin: P,
  options: HotUnloadOptions<PluginConfig<P>> = {},
): Promise<HotUnloadReport> {
  const { cycles, emitters } = checkOptions(options)
  const owned = options.context === undefined
  const t = options.context ?? (await createToolContext({ plugins: options.plugins }))
  let changes: ToolChange[] = []
  const stopRecording = t.ctx.on('tools/change', (change) => {
    changes.push(change)
  })
  try {
    const read = (): AppState =>
      readAppState(
        t.ctx,
        () => t.tools.schemas().map((schema) => schema.name),
        emitters,
      )
    const baseline = read()
    const leaks: HotUnloadLeak[] = []
    let first: PluginFootprint | undefined
    let name = ''
    let ran = 0
    for (let cycle = 1; cycle <= cycles && leaks.length === 0; cycle++) {
      changes = []
      let loaded
      try {
        loaded = await loadActivePlugin(t.ctx, plugin, options.config)
      } catch (error) {
        if (first === undefined) throw error
        leaks.push({ kind: 'reload', cycle, message: `loading it again failed: ${describeError(error)}` })
        break
      }
      ran = cycle
      name = pluginName(loaded.fiber)
      const footprint = footprintOf(baseline, read(), loaded.fiber, changes)
      if (first === undefined) first = footprint
      else leaks.push(...reloadLeaks(first, footprint, cycle))
      const logMark = t.logs.length
      await loaded.dispose()
      leaks.push(...leaksOf(baseline, read(), changes, cycle))
      for (const record of t.logs.slice(logMark)) {
        if (record.type !== 'error') continue
        leaks.push({ kind: 'dispose-error', cycle, message: `disposing it logged an error: ${firstLine(record.text)}` })
      }
    }
    return deepFreeze({ plugin: name, cycles: ran, footprint: first!, leaks, clean: leaks.length === 0 })
  } finally {
    stopRecording()
    if (owned) await t.dispose()
  }
}

/**
 * {@link checkHotUnload}, asserting: resolves to the report when the plugin unloaded cleanly, and throws
 * {@link HotUnloadError} (whose message lists every leak and what the plugin had set up) otherwise.
 *
 * ```ts
 * it('unloads cleanly', async () => {
 *   const report = await expectCleanUnload(myToolPlugin)
 *   expect(report.footprint.tools).toEqual(['my_tool'])
 * })
 * ```
 */
export async function expectCleanUnload<P extends Plugin>(
  plugin: P,
  options: HotUnloadOptions<PluginConfig<P>> = {},
): Promise<HotUnloadReport> {
  const report = await checkHotUnload(plugin, options)
  if (!report.clean) throw new HotUnloadError(report)
  return report
}

import type { Context, EffectMeta, Fiber, Hook } from 'cordis'

/**
 * Something listeners can be attached to, read through the Node.js `EventEmitter` inspection methods: `process`,
 * any `EventEmitter`, or an adapter over another emitter.
 */
export interface ListenerSource {
  /** The names of the events that have listeners. */
  eventNames(): readonly (string | symbol)[]
  /** The listeners of one event. */
  listeners(eventName: string | symbol): readonly unknown[]
}

/** A listener attached to a {@link ListenerSource}. */
export interface EmitterListener {
  readonly emitter: string
  readonly event: string
  readonly listener: unknown
}

/** A provided cordis service. */
export interface ServiceEntry {
  readonly name: string
  readonly owner: Fiber
}

/** What the app holds at one moment, as cordis's public surface shows it. Identities, so diffs are exact. */
export interface AppState {
  /** Every live fiber: the root's and every loaded plugin's. */
  readonly fibers: ReadonlySet<Fiber>
  /** Every active top-level effect of every live fiber, with its fiber. */
  readonly effects: ReadonlyMap<EffectMeta, Fiber>
  /** Every listener in cordis's hook lists, with its event name. */
  readonly hooks: ReadonlyMap<Hook, string>
  /** Every provided service (cordis's reflect store), by its implementation record. */
  readonly services: ReadonlyMap<object, ServiceEntry>
  /** Every listener on the watched emitters. */
  readonly emitterListeners: readonly EmitterListener[]
  /** The names of the global tools, in registration order. */
  readonly tools: readonly string[]
}

function eventName(name: string | symbol): string {
  return typeof name === 'string' ? name : name.toString()
}

/** Reads the app's state through `ctx.root`: fibers, effects, listeners, services, emitter listeners and tools. */
export function readAppState(
  ctx: Context,
  toolNames: () => readonly string[],
  emitters: Readonly<Record<string, ListenerSource>>,
): AppState {
  const root = ctx.root
  const fibers = new Set<Fiber>([root.fiber])
  for (const runtime of root.registry.values()) for (const fiber of runtime.fibers) fibers.add(fiber)

  const effects = new Map<EffectMeta, Fiber>()
  for (const fiber of fibers) for (const meta of fiber.getEffects()) effects.set(meta, fiber)

  const hooks = new Map<Hook, string>()
  const lists = root.events._hooks
  for (const name of Reflect.ownKeys(lists)) {
    for (const hook of lists[name] ?? []) hooks.set(hook, eventName(name))
  }

  const services = new Map<object, ServiceEntry>()
  const store = root.reflect.store
  for (const key of Object.getOwnPropertySymbols(store)) {
    const impl = store[key]
    if (impl !== undefined) services.set(impl, { name: impl.name, owner: impl.fiber })
  }

  const emitterListeners: EmitterListener[] = []
  for (const [emitter, source] of Object.entries(emitters)) {
    for (const name of source.eventNames()) {
      for (const listener of source.listeners(name)) emitterListeners.push({ emitter, event: eventName(name), listener })
    }
  }

  return { fibers, effects, hooks, services, emitterListeners, tools: toolNames() }
}

/** The listeners of `after` that are not in `before` (a multiset difference: a listener attached twice counts twice). */
export function newEmitterListeners(before: readonly EmitterListener[], after: readonly EmitterListener[]): EmitterListener[] {
  const remaining = [...before]
  const added: EmitterListener[] = []
  for (const entry of after) {
    const index = remaining.findIndex(
      (old) => old.emitter === entry.emitter && old.event === entry.event && old.listener === entry.listener,
    )
    if (index >= 0) remaining.splice(index, 1)
    else added.push(entry)
  }
  return added
}

/** An effect's label and its children's, depth first. */
export function effectLabels(meta: EffectMeta): string[] {
  return [meta.label, ...meta.children.flatMap(effectLabels)]
}

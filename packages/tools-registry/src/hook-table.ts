import { Context, type DispatchMode, type Hook } from 'cordis'
import { isThenable, quote } from './describe-value.js'

/** The events the registry dispatches itself. */
export type ToolEventName = 'tools/pre-execute' | 'tools/execute' | 'tools/post-execute' | 'tools/result' | 'tools/change'

/** cordis's hook lists by event name. */
export type HookLists = Record<string | symbol, Hook[] | undefined>

interface Selection {
  /** A copy of cordis's list when the selection was made, to notice any change to it. */
  readonly seen: readonly Hook[]
  /** The listeners that apply to this registry; never mutated after creation. */
  readonly selected: readonly Hook[] | undefined
}

function unchanged(seen: readonly Hook[], hooks: readonly Hook[]): boolean {
  if (seen.length !== hooks.length) return false
  for (let index = 0; index < hooks.length; index++) if (seen[index] !== hooks[index]) return false
  return true
}

/**
 * Reads the listeners of the registry's events straight from cordis's hook lists. A `ctx.waterfall` or `ctx.emit`
 * call costs microseconds on cordis 4.0.0-rc.10 (the property access goes through several proxies, and dispatch
 * filters and copies the list and allocates a closure per listener); here an event without listeners costs one
 * property lookup, and one with listeners a comparison of the list with the last one seen.
 *
 * Like a service's own events, only listeners whose context shares the registry's isolation of its service name
 * (or that were registered with `{ global: true }`) are called, so an isolated registry does not see another's
 * listeners. The selection is cached per event and recomputed when cordis's list changes.
 */
export class HookTable {
  /** cordis's hook lists (`ctx.events._hooks`), shared by every context of the app. */
  readonly lists: HookLists
  private readonly isolationKey: symbol | undefined
  private readonly selections = new Map<ToolEventName, Selection>()

  /**
   * @param warn - where a listener's failure is reported (never throws)
   */
  constructor(
    ctx: Context,
    private readonly serviceName: string,
    private readonly warn: (message: string, cause: unknown) => void,
  ) {
    const events = ctx.events
    this.lists = events._hooks as HookLists
    this.isolationKey = ctx[Context.isolate][serviceName]
  }

  /**
   * The listeners of `name` that apply to this registry, in cordis order; `undefined` when there are none. The
   * returned list is a snapshot: listeners added or removed while it is being walked do not change it.
   */
  select(name: ToolEventName): readonly Hook[] | undefined {
    const hooks = this.lists[name]
    if (hooks === undefined || hooks.length === 0) return undefined
    const cached = this.selections.get(name)
    if (cached !== undefined && unchanged(cached.seen, hooks)) return cached.selected
    let selected: Hook[] | undefined
    for (const hook of hooks) {
      // `global` is an option a plugin passed: its own property only (a polluted prototype must not make it global).
      if ((Object.hasOwn(hook, 'global') && hook.global === true) || hook.ctx[Context.isolate][this.serviceName] === this.isolationKey) {
        ;(selected ??= []).push(hook)
      }
    }
    this.selections.set(name, { seen: hooks.slice(), selected })
    return selected
  }

  /**
   * Calls the observers of `name` synchronously, each once, in order. An observer that throws, or returns a
   * promise that rejects, is reported through `warn` (`a tools/result observer threw for "read": …`) and the
   * others still run.
   */
  notify(name: 'tools/result' | 'tools/change', args: unknown[], toolName?: string): void {
    const warn = this.warn
    const observers = this.select(name)
    if (observers === undefined) return
    if (this.tracing) this.trace('emit', name, args)
    const about = (): string => (toolName === undefined ? '' : ` for ${quote(toolName)}`)
    for (const hook of observers) {
      try {
        const returned: unknown = hook.callback(...args)
        if (isThenable(returned)) {
          Promise.resolve(returned).then(undefined, (error: unknown) => warn(`an async ${name} observer rejected${about()}`, error))
        }
      } catch (error) {
        warn(`a ${name} observer threw${about()}`, error)
      }
    }
  }

  /** True when someone listens to `internal/dispatch` (then dispatches are reported with {@link trace}). */
  get tracing(): boolean {
    const tracers = this.lists['internal/dispatch']
    return tracers !== undefined && tracers.length > 0
  }

  /**
   * Reports a dispatch to `internal/dispatch` listeners (devtools, tracing), with the arguments cordis gives them for
   * its own dispatches (`mode, name, args, thisArg`). Check {@link tracing} first, so the arguments are not even
   * collected when nobody listens. Unlike cordis's `emit`, a listener that throws (or returns a promise that
   * rejects) is reported through `warn` and the others still run: tracing never changes a call's outcome.
   */
  trace(mode: DispatchMode, name: ToolEventName, args: unknown[]): void {
    const tracers = this.lists['internal/dispatch']
    if (tracers === undefined) return
    for (const hook of tracers.slice()) {
      try {
        const returned: unknown = Reflect.apply(hook.callback, null, [mode, name, args, null])
        if (isThenable(returned)) {
          Promise.resolve(returned).then(undefined, (error: unknown) => this.warn(`an async internal/dispatch listener rejected for ${name}`, error))
        }
      } catch (error) {
        this.warn(`an internal/dispatch listener threw for ${name}`, error)
      }
    }
  }
}

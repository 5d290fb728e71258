import type { Agent, ToolGuard } from '@dsh/tools-core'
import { describeValue, quote } from './describe-value.js'
import { DuplicateToolError } from './duplicate-tool-error.js'
import type { ToolChange } from './events.js'
import { readOwn } from './own-field.js'
import { admits, admitsOne, type CompiledRestriction } from './restriction.js'
import type { ToolRecord } from './tool-record.js'

/** One agent's layer: its own tools, its restrictions over the globals, its guards, and its cached view. */
interface Scope {
  readonly tools: Map<string, ToolRecord>
  restrictions: readonly CompiledRestriction[]
  guards: readonly ToolGuard[]
  /** Globals admitted by the restrictions and not shadowed, then the scope's own tools; `undefined` when stale. */
  view: ReadonlyMap<string, ToolRecord> | undefined
  /** The catalog generation the view was computed at. */
  viewGeneration: number
  /** The same for nested calls (without the `appliesTo: 'direct'` restrictions); `undefined` when stale or unused. */
  nestedView: ReadonlyMap<string, ToolRecord> | undefined
  nestedViewGeneration: number
}

/** The agent's own `id`, for messages; never throws. */
function agentId(agent: Agent): string {
  try {
    const id = readOwn(agent, 'id')
    return typeof id === 'string' ? id : describeValue(id)
  } catch {
    return 'an agent whose id cannot be read'
  }
}

const noGuards: readonly ToolGuard[] = Object.freeze([])

function without<T>(list: readonly T[], item: T): readonly T[] {
  const index = list.indexOf(item)
  if (index < 0) return list
  return list.length === 1 ? [] : [...list.slice(0, index), ...list.slice(index + 1)]
}

/**
 * The registry's state: the global tool layer and the agent scopes. Lists are copy-on-write, so a pipeline run
 * that is iterating guards never sees them change under it. Each scope's visible-tool view is cached and
 * recomputed only after a change (a global change bumps the generation, a scope change drops its own view).
 */
export class ToolCatalog {
  private readonly globals = new Map<string, ToolRecord>()
  private globalGuardList: readonly ToolGuard[] = noGuards
  private readonly scopes = new WeakMap<Agent, Scope>()
  private generation = 0
  /** Each global record's registration sequence number, to order a view built from an allow-list. */
  private readonly globalOrder = new WeakMap<ToolRecord, number>()
  private registrations = 0

  constructor(private readonly changed: (change: ToolChange) => void) {}

  /**
   * The tool `name` as `agent` sees it (or as an agent-less call sees it); `nested`: as a call dispatched from inside
   * a running call sees it (the `appliesTo: 'direct'` restrictions do not apply).
   */
  resolve(name: string, agent: Agent | undefined, nested = false): ToolRecord | undefined {
    if (agent !== undefined) {
      const scope = this.scopes.get(agent)
      if (scope !== undefined) return (nested ? this.nestedView(scope) : this.view(scope)).get(name)
    }
    return this.globals.get(name)
  }

  /** Every tool `agent` sees: the admitted, unshadowed globals in registration order, then its own tools. */
  visible(agent: Agent | undefined, nested = false): Iterable<ToolRecord> {
    if (agent !== undefined) {
      const scope = this.scopes.get(agent)
      if (scope !== undefined) return (nested ? this.nestedView(scope) : this.view(scope)).values()
    }
    return this.globals.values()
  }

  /**
   * The hints of the `appliesTo: 'direct'` restrictions that hide `name` from `agent`'s direct calls, when a nested
   * call would reach it (for the `UNKNOWN_TOOL` text).
   */
  directHints(name: string, agent: Agent | undefined): string[] {
    const scope = agent === undefined ? undefined : this.scopes.get(agent)
    if (scope === undefined || this.nestedView(scope).get(name) === undefined) return []
    const hints: string[] = []
    for (const restriction of scope.restrictions) {
      if (restriction.direct && restriction.hint !== undefined && !admitsOne(restriction, name)) hints.push(restriction.hint)
    }
    return hints
  }

  /**
   * Every tool name `agent` would see without its restrictions, in {@link visible}'s order: the globals it does not
   * shadow in registration order, then its own tools. A fresh array.
   */
  knownNames(agent: Agent | undefined): string[] {
    const own = agent === undefined ? undefined : this.scopes.get(agent)?.tools
    const names: string[] = []
    for (const name of this.globals.keys()) if (own === undefined || !own.has(name)) names.push(name)
    if (own !== undefined) for (const name of own.keys()) names.push(name)
    return names
  }

  /** The guards that apply to every call. */
  get globalGuards(): readonly ToolGuard[] {
    return this.globalGuardList
  }

  /** The guards of `agent`'s scope. */
  scopeGuards(agent: Agent | undefined): readonly ToolGuard[] {
    if (agent === undefined) return noGuards
    return this.scopes.get(agent)?.guards ?? noGuards
  }

  /** Throws {@link DuplicateToolError} when `name` is taken in the layer `agent` names (global when undefined). */
  assertFree(name: string, agent: Agent | undefined): void {
    const taken = agent === undefined ? this.globals.has(name) : this.scopes.get(agent)?.tools.has(name) === true
    if (!taken) return
    const where = agent === undefined ? 'as a global tool' : `in the scope of agent ${quote(agentId(agent))}`
    throw new DuplicateToolError(
      name,
      `Tool ${quote(name)} is already registered ${where}. Dispose the other registration first` +
        (agent === undefined ? '.' : ', or register under another name.'),
    )
  }

  /** Adds a tool to a layer; returns its removal. Call {@link assertFree} first. */
  addTool(record: ToolRecord, agent: Agent | undefined): () => void {
    this.assertFree(record.name, agent)
    if (agent === undefined) {
      this.globals.set(record.name, record)
      this.globalOrder.set(record, this.registrations++)
      this.generation++
    } else {
      const scope = this.scopeOf(agent)
      scope.tools.set(record.name, record)
      scope.view = undefined
      scope.nestedView = undefined
    }
    this.changed(Object.freeze({ type: 'register', name: record.name, agent }))
    return () => {
      if (agent === undefined) {
        if (this.globals.get(record.name) !== record) return
        this.globals.delete(record.name)
        this.generation++
      } else {
        const scope = this.scopes.get(agent)
        if (scope?.tools.get(record.name) !== record) return
        scope.tools.delete(record.name)
        scope.view = undefined
        scope.nestedView = undefined
        this.release(agent, scope)
      }
      this.changed(Object.freeze({ type: 'unregister', name: record.name, agent }))
    }
  }

  /** Adds a restriction to `agent`'s scope; returns its removal. */
  addRestriction(restriction: CompiledRestriction, agent: Agent): () => void {
    const scope = this.scopeOf(agent)
    scope.restrictions = [...scope.restrictions, restriction]
    scope.view = undefined
    scope.nestedView = undefined
    this.changed(Object.freeze({ type: 'restrict', agent }))
    return () => {
      const current = this.scopes.get(agent)
      if (current === undefined || !current.restrictions.includes(restriction)) return
      current.restrictions = without(current.restrictions, restriction)
      current.view = undefined
      current.nestedView = undefined
      this.release(agent, current)
      this.changed(Object.freeze({ type: 'unrestrict', agent }))
    }
  }

  /** Adds a guard to `agent`'s scope, or a global guard when `agent` is undefined; returns its removal. */
  addGuard(guard: ToolGuard, agent: Agent | undefined): () => void {
    // A wrapper gives every registration its own identity, so the same function can be added twice.
    const entry: ToolGuard = (execution) => guard(execution)
    if (agent === undefined) {
      this.globalGuardList = [...this.globalGuardList, entry]
      return () => {
        this.globalGuardList = without(this.globalGuardList, entry)
      }
    }
    const scope = this.scopeOf(agent)
    scope.guards = [...scope.guards, entry]
    return () => {
      const current = this.scopes.get(agent)
      if (current === undefined) return
      current.guards = without(current.guards, entry)
      this.release(agent, current)
    }
  }

  private scopeOf(agent: Agent): Scope {
    let scope = this.scopes.get(agent)
    if (scope === undefined) {
      scope = { tools: new Map(), restrictions: [], guards: noGuards, view: undefined, viewGeneration: -1, nestedView: undefined, nestedViewGeneration: -1 }
      this.scopes.set(agent, scope)
    }
    return scope
  }

  /** Forgets an empty scope, so calls for that agent take the global fast path again. */
  private release(agent: Agent, scope: Scope): void {
    if (scope.tools.size === 0 && scope.restrictions.length === 0 && scope.guards.length === 0) {
      this.scopes.delete(agent)
    }
  }

  /**
   * The globals a scope's view is built from, in registration order: all of them, or, when a restriction allows
   * fewer names than there are globals, only those names. A registry behind MCP bridges holds a thousand tools
   * while an agent is allowed a handful; after every global change each scope's view is rebuilt, and walking the
   * whole registry for each of them made a `tools/change` burst grow with the registry's size.
   */
  private inheritable(scope: Scope, nested = false): Iterable<ToolRecord> {
    let allow: ReadonlySet<string> | undefined
    for (const restriction of scope.restrictions) {
      if (nested && restriction.direct) continue
      if (restriction.allow !== undefined && (allow === undefined || restriction.allow.size < allow.size)) allow = restriction.allow
    }
    if (allow === undefined || allow.size >= this.globals.size) return this.globals.values()
    const records: ToolRecord[] = []
    for (const name of allow) {
      const record = this.globals.get(name)
      if (record !== undefined) records.push(record)
    }
    const order = this.globalOrder
    return records.sort((a, b) => order.get(a)! - order.get(b)!)
  }

  private view(scope: Scope): ReadonlyMap<string, ToolRecord> {
    if (scope.view !== undefined && scope.viewGeneration === this.generation) return scope.view
    const view = new Map<string, ToolRecord>()
    for (const record of this.inheritable(scope)) {
      const { name } = record
      if (!scope.tools.has(name) && admits(scope.restrictions, name)) view.set(name, record)
    }
    for (const [name, record] of scope.tools) view.set(name, record)
    scope.view = view
    scope.viewGeneration = this.generation
    return view
  }

  /** {@link view} for nested calls; the same map when the scope has no `appliesTo: 'direct'` restriction. */
  private nestedView(scope: Scope): ReadonlyMap<string, ToolRecord> {
    if (!scope.restrictions.some((restriction) => restriction.direct)) return this.view(scope)
    if (scope.nestedView !== undefined && scope.nestedViewGeneration === this.generation) return scope.nestedView
    const view = new Map<string, ToolRecord>()
    for (const record of this.inheritable(scope, true)) {
      const { name } = record
      if (!scope.tools.has(name) && admits(scope.restrictions, name, true)) view.set(name, record)
    }
    for (const [name, record] of scope.tools) view.set(name, record)
    scope.nestedView = view
    scope.nestedViewGeneration = this.generation
    return view
  }
}

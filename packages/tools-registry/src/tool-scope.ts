import type {
  Agent,
  ToolDefinition,
  ToolExecutionInput,
  ToolExecutionResult,
  ToolGuard,
  ToolRestriction,
  ToolOutputSchema,
  ToolSchema,
} from '@dsh/tools-core'
import { Context, type Fiber } from 'cordis'
import { describeValue, quote } from './describe-value.js'
import { InvalidToolPolicyError } from './invalid-tool-policy-error.js'
import type { ToolExecuteOptions } from './execute-options.js'
import type { StepRunner } from './execute-step.js'
import type { ExecutionPipeline } from './pipeline.js'
import type { ScopedExecuteStepOptions, StepCall, ToolStepResult } from './step-types.js'
import { compileRestriction } from './restriction.js'
import type { ToolCatalog } from './tool-catalog.js'
import { createToolRecord, type ToolExecutionMode, type ToolRecord, type ToolRegistration } from './tool-record.js'

/** A call as a scope runs it: the agent is the scope's. */
export type ScopedToolExecutionInput = Omit<ToolExecutionInput, 'agent'>

/** The part of a call that decides which tool it reaches. */
export interface ToolCallTarget {
  /** The tool's name. */
  readonly name: string
  /** The agent whose view of the tools applies (the global view when absent). */
  readonly agent?: Agent | undefined
}

/**
 * One agent's view of the registry, from `ctx.tools.scope(agent)`. Tools registered here are the agent's own (they
 * shadow a global tool of the same name and are exempt from the agent's restrictions); restrictions filter the
 * global tools the agent inherits; guards run for every call of the agent after the global guards.
 *
 * The scope belongs to the fiber that created it: everything registered through it is an effect of that fiber
 * and is undone when the fiber is disposed (hot unload), or earlier by the returned disposers or {@link dispose}.
 */
export interface ToolScope {
  /** The agent this scope is for. Scopes are keyed by the agent object's identity, not by its `id`. */
  readonly agent: Agent
  /**
   * Registers a tool of this agent only. Throws `InvalidToolDefinitionError`, or `DuplicateToolError` when the
   * agent already has a tool of that name. Returns the disposer.
   */
  register(definition: ToolRegistration): () => void
  /**
   * Restricts which global tools the agent sees (and can call): with `allow`, only the listed ones; with `deny`,
   * all but the listed ones, including globals registered later. Several restrictions intersect. The agent's own
   * tools are exempt. Returns the disposer.
   */
  restrict(restriction: ToolRestriction): () => void
  /** Adds a deny-only guard for the agent's calls, run after the global guards. Returns the disposer. */
  guard(guard: ToolGuard): () => void
  /** The tool `name` as the agent sees it, or `undefined`. */
  get(name: string): ToolDefinition | undefined
  /** The model-facing schemas of every tool the agent sees, as fresh copies. */
  schemas(): ToolSchema[]
  /** The output schema of tool `name` as the agent sees it (a fresh copy), or `undefined`; see `ToolRegistry.outputSchema`. */
  outputSchema(name: string): ToolOutputSchema | undefined
  /** Runs a call for this agent, with the same `options` as `ctx.tools.execute` (a per-call approver). Never rejects. */
  execute(input: ScopedToolExecutionInput, options?: ToolExecuteOptions): Promise<ToolExecutionResult>
  /**
   * Runs one model step's calls for this agent, as `ctx.tools.executeStep(calls, { ...options, agent })` does
   * (an `agent` option must be absent or this scope's agent). Never rejects.
   */
  executeStep(calls: readonly StepCall[], options?: ScopedExecuteStepOptions): Promise<ToolStepResult>
  /** Whether a call of this agent may run in parallel with other parallel-safe calls. */
  executionMode(call: Pick<ToolCallTarget, 'name'>): ToolExecutionMode
  /** Undoes everything registered through this scope so far. The scope stays usable. */
  dispose(): void
}

/** The registry internals a scope (and the registry itself) works with. */
export interface RegistryInternals {
  readonly catalog: ToolCatalog
  readonly pipeline: ExecutionPipeline
  readonly runStep: StepRunner
}

/** The part of cordis 4.0.0-rc.10's `Fiber#_disposables` (a `DisposableList`) the fast path below uses. */
interface FiberDisposables {
  push(dispose: () => unknown): () => unknown
}

function disposablesOf(fiber: Fiber): FiberDisposables | undefined {
  const list: unknown = (fiber as unknown as { _disposables?: unknown })._disposables
  return typeof list === 'object' && list !== null && typeof (list as Partial<FiberDisposables>).push === 'function'
    ? (list as FiberDisposables)
    : undefined
}

/**
 * Runs `apply` as an effect of `ctx`'s fiber and returns a plain disposer (idempotent).
 *
 * `ctx.effect` costs tens of microseconds on cordis 4.0.0-rc.10: it captures two stack traces (for error messages
 * of asynchronous effects) on every call, which made registering 1,000 tools take over 50 ms. Our effects are
 * synchronous and cannot fail after the checks done before `apply`, so the registry records them in the fiber's
 * effect list itself, exactly as `ctx.effect` does for a synchronous effect (the same `Context.effect` metadata, so
 * `fiber.getEffects()` and hot-unload checks see the same labels), after the same `assertActive()` check. A cordis
 * whose fiber has no such list gets `ctx.effect`.
 */
export function fiberEffect(ctx: Context, label: string, apply: () => () => void): () => void {
  const fiber = ctx.fiber
  const list = disposablesOf(fiber)
  if (list === undefined) {
    const dispose = ctx.effect(apply, label)
    return () => {
      void dispose()
    }
  }
  fiber.assertActive()
  const undo = apply()
  let active = true
  let remove: (() => unknown) | undefined
  const dispose = (): void => {
    if (!active) return
    active = false
    remove?.()
    undo()
  }
  Object.defineProperty(dispose, Context.effect, { value: { label, children: [] } })
  remove = list.push(dispose)
  return dispose
}

/**
 * A fresh, mutable, ordinary copy of a frozen snapshot (what `schemas()` hands out: the caller may change it). Faster
 * than a JSON round trip; a `"__proto__"` key stays data. Recursion is bounded by the snapshot's depth limit.
 */
function freshCopy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) return value.map(freshCopy)
  const copy: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    const child = freshCopy((value as Record<string, unknown>)[key])
    if (key === '__proto__') Object.defineProperty(copy, key, { value: child, enumerable: true, writable: true, configurable: true })
    else copy[key] = child
  }
  return copy
}

/** The record's output schema as a fresh copy, or `undefined` (no record, or none declared). */
export function projectOutputSchema(record: ToolRecord | undefined): ToolOutputSchema | undefined {
  const schema = record?.outputSchema
  return schema === undefined ? undefined : (freshCopy(schema) as ToolOutputSchema)
}

/** The model-facing projection of each listed record (`listed: false` ones are left out), as fresh copies (never the registered objects). */
export function projectSchemas(records: Iterable<ToolRecord>): ToolSchema[] {
  const schemas: ToolSchema[] = []
  for (const record of records) {
    if (!record.listed) continue
    schemas.push({
      name: record.name,
      description: record.schema.description,
      parameters: freshCopy(record.schema.parameters) as ToolSchema['parameters'],
    })
  }
  return schemas
}

/** Checks that a guard is a function. Throws {@link InvalidToolPolicyError}. */
export function checkGuard(guard: unknown): ToolGuard {
  if (typeof guard !== 'function') {
    throw new InvalidToolPolicyError(`A guard must be a function (execution) => reason | undefined, got ${describeValue(guard)}`)
  }
  return guard as ToolGuard
}

/** Checks that an agent is an object with an id. Throws {@link InvalidToolPolicyError}. */
export function checkAgent(agent: unknown): Agent {
  if (typeof agent !== 'object' || agent === null) {
    throw new InvalidToolPolicyError(`A scope needs an agent object, got ${describeValue(agent)}`)
  }
  return agent as Agent
}

/** The {@link ToolScope} implementation. */
export class AgentToolScope implements ToolScope {
  private readonly disposers = new Set<() => void>()

  constructor(
    private readonly ctx: Context,
    private readonly internals: RegistryInternals,
    readonly agent: Agent,
  ) {}

  register(definition: ToolRegistration): () => void {
    const record = createToolRecord(definition)
    const { catalog } = this.internals
    catalog.assertFree(record.name, this.agent)
    return this.track(`tools.scope().register(${quote(record.name)})`, () => catalog.addTool(record, this.agent))
  }

  restrict(restriction: ToolRestriction): () => void {
    const compiled = compileRestriction(restriction)
    const { catalog } = this.internals
    return this.track('tools.scope().restrict()', () => catalog.addRestriction(compiled, this.agent))
  }

  guard(guard: ToolGuard): () => void {
    const checked = checkGuard(guard)
    const { catalog } = this.internals
    return this.track('tools.scope().guard()', () => catalog.addGuard(checked, this.agent))
  }

  get(name: string): ToolDefinition | undefined {
    return this.internals.catalog.resolve(name, this.agent)?.definition
  }

  schemas(): ToolSchema[] {
    return projectSchemas(this.internals.catalog.visible(this.agent))
  }

  outputSchema(name: string): ToolOutputSchema | undefined {
    return projectOutputSchema(this.internals.catalog.resolve(name, this.agent))
  }

  execute(input: ScopedToolExecutionInput, options?: ToolExecuteOptions): Promise<ToolExecutionResult> {
    return this.internals.pipeline.run(input, this.agent, options)
  }

  executeStep(calls: readonly StepCall[], options?: ScopedExecuteStepOptions): Promise<ToolStepResult> {
    return this.internals.runStep(calls, options, this.agent)
  }

  executionMode(call: Pick<ToolCallTarget, 'name'>): ToolExecutionMode {
    return this.internals.catalog.resolve(call.name, this.agent)?.mode ?? 'serial'
  }

  dispose(): void {
    for (const dispose of [...this.disposers].reverse()) dispose()
  }

  private track(label: string, apply: () => () => void): () => void {
    const dispose = fiberEffect(this.ctx, label, apply)
    const tracked = (): void => {
      this.disposers.delete(tracked)
      dispose()
    }
    this.disposers.add(tracked)
    return tracked
  }
}

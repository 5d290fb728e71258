import type {
  Agent,
  ToolApprovalService,
  ToolDefinition,
  ToolExecution,
  ToolExecutionInput,
  ToolExecutionResult,
  ToolGuard,
  ToolOutputSchema,
  ToolSchema,
} from '@dsh/tools-core'
import { Service, type Context, type EventOptions, type Events, type Hook, type Logger, type Tracker } from 'cordis'
import { checkCordisHost } from './cordis-host.js'
import { describeThrown, describeValue, quote } from './describe-value.js'
import { HookTable, type ToolEventName } from './hook-table.js'
import { InvalidToolPolicyError } from './invalid-tool-policy-error.js'
import { FieldReadError, readOwn } from './own-field.js'
import { PipelineExecution } from './execution.js'
import { ExecutionPipeline } from './pipeline.js'
import { createStepRunner } from './execute-step.js'
import type { ToolExecuteOptions } from './execute-options.js'
import type { ExecuteStepOptions, StepCall, ToolStepResult } from './step-types.js'
import { feedSystemPrompt } from './system-prompt-feed.js'
import { ToolCatalog } from './tool-catalog.js'
import { createToolRecord, type ToolExecutionMode, type ToolRegistration } from './tool-record.js'
import {
  AgentToolScope,
  checkAgent,
  checkGuard,
  fiberEffect,
  projectOutputSchema,
  projectSchemas,
  type RegistryInternals,
  type ToolCallTarget,
  type ToolScope,
} from './tool-scope.js'

/** The registry's configuration: `ctx.plugin(ToolRegistry, { abortGraceMs: 2_000 })`. */
export interface ToolRegistryConfig {
  /**
   * How long, in milliseconds, the dispatch of a call (its `tools/execute` wrappers and its body) may still take
   * after the caller's signal fired before the call is abandoned: it then resolves as `ABORTED`, with a text saying
   * that the tool did not stop and may still be running. An integer from 0 to 2,147,483,647; default
   * {@link TOOL_REGISTRY_DEFAULTS | 5,000}.
   */
  readonly abortGraceMs?: number | undefined
}

/** The defaults of {@link ToolRegistryConfig}. */
export const TOOL_REGISTRY_DEFAULTS: { readonly abortGraceMs: number } = Object.freeze({ abortGraceMs: 5_000 })

const maxDelayMs = 2_147_483_647

/** Reads and checks the configuration (own fields only). Throws {@link InvalidToolPolicyError}. */
function resolveConfig(config: unknown): { readonly abortGraceMs: number } {
  if (config === undefined || config === null) return TOOL_REGISTRY_DEFAULTS
  if (typeof config !== 'object') {
    throw new InvalidToolPolicyError(`The ToolRegistry configuration must be an object { abortGraceMs? }, got ${describeValue(config)}`)
  }
  let abortGraceMs: unknown
  try {
    abortGraceMs = readOwn(config, 'abortGraceMs')
  } catch (error) {
    const cause = error instanceof FieldReadError ? error.cause : error
    throw new InvalidToolPolicyError(`Reading the ToolRegistry configuration's abortGraceMs threw: ${describeThrown(cause)}`, { cause })
  }
  if (abortGraceMs === undefined) return TOOL_REGISTRY_DEFAULTS
  if (typeof abortGraceMs !== 'number' || !Number.isInteger(abortGraceMs) || abortGraceMs < 0 || abortGraceMs > maxDelayMs) {
    throw new InvalidToolPolicyError(
      `The ToolRegistry configuration's abortGraceMs must be an integer from 0 to ${maxDelayMs} milliseconds, got ${describeValue(abortGraceMs)}`,
    )
  }
  return Object.freeze({ abortGraceMs })
}

/**
 * The tool registry and execution pipeline, provided as the cordis service `ctx.tools`
 * (`ctx.plugin(ToolRegistry)`).
 *
 * - `register`, `guard`, `on` and what is registered through `scope(agent)` are effects of the calling plugin's
 *   fiber: they return disposers and are undone when that fiber is disposed.
 * - `execute`, `executeStep`, `get`, `schemas`, `outputSchema`, `executionMode` and `definitionOf` are bound functions
 *   (own properties): a loop
 *   may hold them (`const { execute } = ctx.tools`) and call them without going through cordis's service proxy
 *   again.
 * - The pipeline's events (`tools/pre-execute`, `tools/execute`, `tools/post-execute`, `tools/result`,
 *   `tools/change`) are ordinary cordis events: listen with `ctx.on`, or with `ctx.tools.on` for hot listeners.
 */
export class ToolRegistry extends Service {
  /**
   * Runs one tool call through the pipeline and resolves to its frozen, JSON-safe result. Never rejects: every
   * failure is an `isError` result with a model-readable text and `error: { name, code }`. `options.approval` answers
   * an `ask` of this call in place of the `toolApproval` service (see {@link ToolExecuteOptions}); malformed options
   * are an `INVALID_CALL` result.
   */
  readonly execute: (input: ToolExecutionInput, options?: ToolExecuteOptions) => Promise<ToolExecutionResult>
  /**
   * Runs the tool calls of one model step through the pipeline, in the model's order: a maximal run of consecutive
   * parallel-safe calls ({@link ToolRegistry.executionMode}, read once before anything runs) runs together, within
   * `options.concurrency`; every other call runs alone, after everything before it and before everything after it.
   * Resolves to one frozen result per call in model order, and every result's `additionalContext` separately, to
   * append after all of them. A malformed call is its own error result; after `options.signal` fires, calls not
   * started yet end as `ABORTED_BEFORE_DISPATCH` with no policy asked; siblings never cancel each other unless
   * `options.failFast` is set.
   *
   * Never rejects. Throws `InvalidStepOptionsError` (`INVALID_CONFIG`) synchronously, before anything runs, when
   * `calls` is not an array or an option is invalid.
   */
  readonly executeStep: (calls: readonly StepCall[], options?: ExecuteStepOptions) => Promise<ToolStepResult>
  /**
   * The tool `name` as `agent` sees it (the global layer when `agent` is absent), or `undefined`. With
   * `{ nested: true }`: as a call dispatched from inside a running call sees it (see {@link ToolViewOptions}).
   */
  readonly get: (name: string, agent?: Agent, options?: ToolViewOptions) => ToolDefinition | undefined
  /**
   * The model-facing schemas (`{ name, description, parameters }` only) of every tool `agent` sees: the inherited
   * globals its restrictions admit and it does not shadow, in registration order, then its own tools. Fresh copies
   * on every call. With `{ nested: true }`: the tools a call dispatched from inside a running call reaches (the
   * agent's `appliesTo: 'direct'` restrictions do not apply), for a tool that offers them to a program (Code Mode).
   */
  readonly schemas: (agent?: Agent, options?: ToolViewOptions) => ToolSchema[]
  /**
   * The JSON Schema of the `structuredContent` of tool `name` as `agent` sees it (the global layer when `agent` is
   * absent): the `outputSchema` the definition declared (`defineTool` sets it for an object `output.schema`),
   * checked at registration. A fresh copy on every call; `undefined` for an unknown tool and for a tool that
   * declares none. Kept apart from {@link ToolRegistry.schemas}, whose objects a provider request carries as they
   * are; an MCP server lists it as the tool's `outputSchema`.
   */
  readonly outputSchema: (name: string, agent?: Agent, options?: ToolViewOptions) => ToolOutputSchema | undefined
  /**
   * `'parallel'` when the call's tool declared `concurrencySafe: true` (or MCP `annotations.readOnlyHint: true`
   * without `concurrencySafe: false`), so a loop may run it together with other parallel-safe calls of the same
   * step; `'serial'` otherwise, and for unknown tools.
   */
  readonly executionMode: (call: ToolCallTarget) => ToolExecutionMode
  /**
   * The definition the pipeline resolved for `execution` (stage 2), which is the tool that runs for it whatever is
   * registered, disposed or shadowed later: the registered object itself, as {@link ToolRegistry.get} returns it.
   * Listeners of `tools/pre-execute`, `tools/execute`, `tools/post-execute` and `tools/result` use it to read what
   * the call's tool declares (`timeoutMs`, `concurrencySafe`, presenters). `undefined` for a call that ended before
   * resolution (a malformed call, non-JSON arguments, an unknown tool) and for any object that is not an execution
   * the pipeline created.
   */
  readonly definitionOf: (execution: Readonly<ToolExecution>) => ToolDefinition | undefined

  private readonly internals: RegistryInternals
  private readonly hooks: HookTable

  /**
   * @param ctx - the context the service is provided in
   * @param config - see {@link ToolRegistryConfig}; throws `InvalidToolPolicyError` (`INVALID_CONFIG`) when invalid
   */
  constructor(ctx: Context, config?: ToolRegistryConfig) {
    checkCordisHost(ctx, '@dsh/tools-registry', { service: 'tools' })
    const { abortGraceMs } = resolveConfig(config)
    super(ctx, 'tools')
    // Methods read the caller's context from `this.ctx` (to make registrations effects of the caller's fiber), as
    // cordis's own core services do; the registry never resolves other services through the caller's context, so
    // it needs no shadow context (`noShadow`), and it has no `tools.*` sub-services (no `associate`). With both, a
    // member access on `ctx.tools` costs ~50 ns on cordis 4.0.0-rc.10 instead of several microseconds.
    const tracker = (this as unknown as Record<symbol, Tracker>)[Service.tracker]!
    tracker.noShadow = true
    delete tracker.associate

    let logger: Logger | undefined
    const warn = (message: string, cause?: unknown): void => {
      try {
        logger ??= ctx.logger('tools')
        if (cause === undefined) logger.warn(message)
        else logger.warn(`${message}: ${describeThrown(cause)}`)
      } catch {
        // A logger exporter that throws must not turn a warning into a failed call.
      }
    }
    const hooks = new HookTable(ctx, 'tools', warn)
    const catalog = new ToolCatalog((change) => hooks.notify('tools/change', [change]))
    const pipeline = new ExecutionPipeline({
      catalog,
      hooks,
      approvalService: () => ctx.get('toolApproval') as ToolApprovalService | undefined,
      warn,
      abortGraceMs,
    })
    const runStep = createStepRunner({ catalog, pipeline, warn })
    this.internals = { catalog, pipeline, runStep }
    this.hooks = hooks
    this.execute = (input, options) => pipeline.run(input, undefined, options)
    this.executeStep = (calls, options) => runStep(calls, options)
    this.get = (name, agent, options) => catalog.resolve(name, agent, nestedView(options))?.definition
    this.schemas = (agent, options) => projectSchemas(catalog.visible(agent, nestedView(options)))
    this.outputSchema = (name, agent, options) => projectOutputSchema(catalog.resolve(name, agent, nestedView(options)))
    this.executionMode = (call) => catalog.resolve(call.name, call.agent)?.mode ?? 'serial'
    this.definitionOf = (execution) => PipelineExecution.definitionOf(execution)
    // An optional dependency: while a `systemPrompt` service is present, it gets a provider of this registry's
    // schemas, removed with the registry (or the service).
    feedSystemPrompt(ctx, catalog, (message) => warn(message))
  }

  /**
   * Registers a global tool, visible to every agent whose restrictions admit it. Checks the definition first
   * (throws `InvalidToolDefinitionError`) and throws `DuplicateToolError` when the name is taken globally. The
   * registration is an effect of the calling fiber; the returned disposer undoes it earlier.
   */
  register(definition: ToolRegistration): () => void {
    const record = createToolRecord(definition)
    const { catalog } = this.internals
    catalog.assertFree(record.name, undefined)
    return fiberEffect(this.ctx, `tools.register(${quote(record.name)})`, () => catalog.addTool(record, undefined))
  }

  /**
   * Adds a global deny-only guard, run for every call after the `tools/pre-execute` waterfall, before any approval
   * request (nobody is asked about a call a guard denies), and once more after an approval is granted.
   * Return a reason to deny (`GUARD_DENIED`); `undefined` keeps the decision. A guard that throws or returns
   * anything else denies with `INVALID_DECISION`. An effect of the calling fiber; returns the disposer.
   */
  guard(guard: ToolGuard): () => void {
    const checked = checkGuard(guard)
    const { catalog } = this.internals
    return fiberEffect(this.ctx, 'tools.guard()', () => catalog.addGuard(checked, undefined))
  }

  /**
   * Listens to one of the registry's events, exactly like `ctx.on(name, listener, options)` (same list, same order,
   * an effect of the calling fiber, `prepend` and `global` honoured), but without cordis's per-call argument
   * tracing: cordis 4.0.0-rc.10 wraps every `ctx.on` listener in a proxy that costs about half a microsecond per
   * call. The registry's event arguments are never services, so tracing them changes nothing; use this for hot
   * policy listeners. Returns the disposer.
   */
  on<K extends ToolEventName>(name: K, listener: Events[K], options?: EventOptions): () => void {
    const ctx = this.ctx
    const { lists } = this.hooks
    const hook: Hook = { ctx, callback: listener, ...options }
    return fiberEffect(ctx, `tools.on(${JSON.stringify(name)})`, () => {
      const hooks: Hook[] = (lists[name as string] ??= [])
      if (options?.prepend === true) hooks.unshift(hook)
      else hooks.push(hook)
      return () => {
        const current = lists[name as string]
        const index = current?.indexOf(hook) ?? -1
        if (current === undefined || index < 0) return
        current.splice(index, 1)
        if (current.length === 0) delete lists[name as string]
      }
    })
  }

  /**
   * The scope of `agent`: its own tools, restrictions and guards. What is registered through the returned
   * {@link ToolScope} is an effect of the fiber that called `scope()`. Scopes are keyed by the agent object's
   * identity; calls reach a scope when their `agent` is that same object.
   */
  scope(agent: Agent): ToolScope {
    return new AgentToolScope(this.ctx, this.internals, checkAgent(agent))
  }
}

/**
 * Which view of an agent's tools a listing gives: the model's (the default), or, with `nested: true`, the one calls
 * dispatched from inside a running call get (with `parent`): the agent's `appliesTo: 'direct'` restrictions do not
 * apply to it.
 */
export interface ToolViewOptions {
  readonly nested?: boolean | undefined
}

/** `options.nested`, read as an own property (an inherited one, from a polluted prototype, is not asked for). */
function nestedView(options: ToolViewOptions | undefined): boolean {
  return typeof options === 'object' && options !== null && Object.hasOwn(options, 'nested') && options.nested === true
}

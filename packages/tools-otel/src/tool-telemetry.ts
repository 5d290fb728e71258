import { checkCordisHost } from '@dsh/tools-registry'
import { createNoopMeter, metrics, ProxyTracerProvider, trace, type Meter, type TracerProvider } from '@opentelemetry/api'
import type { Context } from 'cordis'
import { INSTRUMENTATION_SCOPE, METRIC } from './attributes.js'
import { CallObserver } from './call-observer.js'
import { resolveOtelConfig, type OtelConfig } from './config.js'

/** The plugin's name, as cordis shows it. */
export const name = 'tools-otel'

/** The services the plugin needs: the tool registry (`@dsh/tools-registry`). */
export const inject: string[] = ['tools']

/** This copy of the API's no-op provider: what a proxy delegates to while no SDK is registered. */
const NOOP_TRACER_PROVIDER: TracerProvider = new ProxyTracerProvider().getDelegate()
const NOOP_METER_CLASS: unknown = createNoopMeter().constructor

/**
 * True when `provider` records nothing: the API's no-op provider, or the global proxy while it delegates to it.
 * A provider of another copy of `@opentelemetry/api` counts as recording (the plugin then listens, to be safe).
 */
export function isNoopTracerProvider(provider: TracerProvider): boolean {
  const delegate = provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider
  return delegate === NOOP_TRACER_PROVIDER
}

function isNoopMeter(meter: Meter): boolean {
  return meter.constructor === NOOP_METER_CLASS
}

/** What {@link apply} found when the plugin loaded. */
export interface ToolTelemetryState {
  /** A tracer provider that records was found: every call gets a span. */
  readonly tracing: boolean
  /** A meter provider that records was found: durations and denials are counted. */
  readonly metering: boolean
}

const states = new WeakMap<object, ToolTelemetryState>()

/**
 * What the plugin loaded in `ctx`'s app (its root context) found (`undefined` before it loaded). With neither `tracing` nor
 * `metering`, it registered no listener at all: the pipeline runs exactly as without it.
 */
export function toolTelemetryState(ctx: Context): ToolTelemetryState | undefined {
  return states.get(ctx.root)
}

/**
 * Observes every tool call of `ctx.tools` and reports it through `@opentelemetry/api`: a span per call in the
 * GenAI conventions (`execute_tool {gen_ai.tool.name}`), approval and body child spans, policy and review events,
 * sub-calls as children of their parent's span, tasks linked to their call, MCP tools' `mcp.*` attributes; the
 * `gen_ai.execute_tool.duration` histogram and the `dsh.tool.denials` counter. It never changes a decision or a
 * result. The providers are read once, now: with no SDK registered (the API's no-op) nothing is registered at all.
 *
 * @param ctx - the plugin's context; needs `ctx.tools`
 * @param config - see {@link OtelConfig}; throws `OtelConfigError` when it is invalid
 */
export function apply(ctx: Context, config?: OtelConfig): void {
  checkCordisHost(ctx, '@dsh/tools-otel')
  const resolved = resolveOtelConfig(config)
  const tools = ctx.tools
  const tracerProvider = resolved.tracerProvider ?? trace.getTracerProvider()
  const meter = (resolved.meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION_SCOPE)
  const state: ToolTelemetryState = Object.freeze({ tracing: !isNoopTracerProvider(tracerProvider), metering: !isNoopMeter(meter) })
  states.set(ctx.root, state)
  ctx.effect(() => () => states.delete(ctx.root), 'tools-otel: state')
  if (!state.tracing && !state.metering) return

  const duration = meter.createHistogram(METRIC.EXECUTE_TOOL_DURATION, {
    description: 'Duration of tool executions, from the first policy stage to the result.',
    unit: 's',
    advice: { explicitBucketBoundaries: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300] },
  })
  const denials = meter.createCounter(METRIC.TOOL_DENIALS, { description: 'Tool calls denied by policy, by code.', unit: '{call}' })
  const logger = ctx.logger('tools-otel')
  const observer = new CallObserver(tracerProvider.getTracer(INSTRUMENTATION_SCOPE), duration, denials, tools, resolved, (message, error) =>
    logger.warn(`${message}:`, error),
  )
  tools.on('tools/pre-execute', observer.preExecute as never, { prepend: true })
  tools.on('tools/execute', observer.dispatch, { prepend: true })
  tools.on('tools/execute', observer.body)
  tools.on('tools/post-execute', observer.review as never, { prepend: true })
  tools.on('tools/result', observer.result)
  // Events of optional packages (@dsh/tool-tasks, @dsh/tools-mcp), typed here structurally: no dependency on them.
  const on = ctx.on as unknown as (this: Context, event: string, listener: (value: unknown) => void) => () => void
  on.call(ctx, 'tasks/settled', observer.taskSettled)
  on.call(ctx, 'mcp/status', observer.mcpStatus)
}

/** The shape of {@link ToolTelemetry}: a cordis plugin object. */
export interface ToolTelemetryPlugin {
  /** `'tools-otel'`. */
  readonly name: string
  /** `['tools']`. */
  readonly inject: string[]
  /** See {@link apply}. */
  apply(ctx: Context, config?: OtelConfig): void
}

/** The plugin as one object (also the package's default export): `await ctx.plugin(ToolTelemetry, config)`. */
export const ToolTelemetry: ToolTelemetryPlugin = { name, inject, apply }

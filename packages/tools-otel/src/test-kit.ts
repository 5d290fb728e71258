// Shared by the tests; not exported (tsup bundles src/index.ts only).
import { ToolRegistry } from '@dsh/tools-registry'
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { Context } from 'cordis'
import { ToolTelemetry, type OtelConfig } from './index.js'

/** A registry with the plugin wired to a real SDK (in-memory span and metric exporters). */
export interface Traced {
  readonly ctx: Context
  readonly spans: InMemorySpanExporter
  /** Collects the metrics now. */
  readonly collect: () => Promise<MetricPoints>
  readonly dispose: () => Promise<void>
}

/** Every data point by metric name. */
export type MetricPoints = Map<string, DataPoint<number | Histogram>[]>

/** Loads the registry, then `before` (policies, tools, other plugins), then the plugin with the SDK. */
export async function traced(before: (ctx: Context) => Promise<void> | void = () => {}, config: OtelConfig = {}): Promise<Traced> {
  const ctx = new Context()
  await ctx.plugin(ToolRegistry)
  await before(ctx)
  const spans = new InMemorySpanExporter()
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] })
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
  const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 })
  const meterProvider = new MeterProvider({ readers: [reader] })
  await ctx.plugin(ToolTelemetry, { tracerProvider, meterProvider, ...config })
  return {
    ctx,
    spans,
    async collect() {
      await reader.forceFlush()
      const points: MetricPoints = new Map()
      for (const resource of metricExporter.getMetrics().slice(-1)) {
        for (const scope of resource.scopeMetrics) {
          for (const metric of scope.metrics) points.set(metric.descriptor.name, metric.dataPoints as DataPoint<number | Histogram>[])
        }
      }
      return points
    },
    async dispose() {
      await ctx.root.fiber.dispose()
      await tracerProvider.shutdown()
      await meterProvider.shutdown()
    },
  }
}

/** The finished spans, by name (the first of each name). */
export function byName(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const span = spans.find((candidate) => candidate.name === name)
  if (span === undefined) throw new Error(`no span "${name}" among: ${spans.map((candidate) => candidate.name).join(', ')}`)
  return span
}

/** The children of `parent` among `spans`, by name. */
export function childrenOf(spans: readonly ReadableSpan[], parent: ReadableSpan): string[] {
  return spans.filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId).map((span) => span.name)
}

/** The span tree as indented lines: `name [outcome]`. */
export function tree(spans: readonly ReadableSpan[]): string[] {
  const ids = new Set(spans.map((span) => span.spanContext().spanId))
  const lines: string[] = []
  const walk = (span: ReadableSpan, depth: number): void => {
    const outcome = span.attributes['dsh.tool.outcome'] ?? span.attributes['error.type']
    lines.push(`${'  '.repeat(depth)}${span.name}${outcome === undefined ? '' : ` [${String(outcome)}]`}`)
    for (const child of spans.filter((candidate) => candidate.parentSpanContext?.spanId === span.spanContext().spanId)) walk(child, depth + 1)
  }
  const roots = spans.filter((span) => span.parentSpanContext === undefined || !ids.has(span.parentSpanContext.spanId))
  for (const root of [...roots].sort((a, b) => (a.startTime[0] - b.startTime[0]) * 1e9 + (a.startTime[1] - b.startTime[1]))) walk(root, 0)
  return lines
}

// @dsh/tools-otel (issue 39): what observing every call costs. The same trivial defineTool call through a registry
// without the plugin, with the plugin and no SDK registered (the API's no-op: the plugin registers no listener), with
// a real SDK whose sampler drops every span (the listeners run, nothing is recorded), and with a real SDK recording
// every span to an in-memory exporter and the metrics to a meter provider.
import { readFileSync } from 'node:fs'
import { ToolTelemetry, toolTelemetryState } from '@dsh/tools-otel'
import { ToolRegistry } from '@dsh/tools-registry'
import { defineTool } from '@dsh/tools-schema'
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics'
import { AlwaysOffSampler, BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { Context } from 'cordis'
import { defineSuite } from '../harness.js'

const lookup = defineTool({
  name: 'lookup',
  description: 'Look a word up.',
  parameters: { word: { type: 'string', required: true } },
  execute: ({ word }) => `${word}: found`,
})

const contexts: Context[] = []
const spans = new InMemorySpanExporter()

async function registry(telemetry?: Parameters<typeof ToolTelemetry.apply>[1] | 'no-sdk'): Promise<Context> {
  const ctx = new Context()
  await ctx.plugin(ToolRegistry)
  ctx.tools.register(lookup)
  if (telemetry === 'no-sdk') await ctx.plugin(ToolTelemetry)
  else if (telemetry !== undefined) await ctx.plugin(ToolTelemetry, telemetry)
  contexts.push(ctx)
  return ctx
}

/** Calls per measured iteration: one await of a microsecond call is too short to time on its own. */
const CALLS = 20
let serial = 0
function caseOf(ctx: Context, after?: () => void): () => Promise<void> {
  const { execute } = ctx.tools
  return async () => {
    for (let index = 0; index < CALLS; index++) {
      const result = await execute({ callId: `call_${++serial}`, name: 'lookup', arguments: { word: 'tide' } })
      if (result.isError) throw new Error('lookup failed')
      after?.()
    }
  }
}

export default defineSuite({
  name: 'otel',
  description:
    '`@dsh/tools-otel`: 20 sequential `execute` calls (per row) of a trivial `defineTool` tool (one string argument, a text result) through a registry without the plugin; with the plugin and no SDK registered (the API\'s no-op, target: within 5% of the registry alone); with a `BasicTracerProvider` whose `AlwaysOffSampler` records nothing (every listener runs); and with a `BasicTracerProvider` + `SimpleSpanProcessor` + `InMemorySpanExporter` (two spans per call: the call and its body; the exporter is emptied every 1,000 calls) and a `MeterProvider` (the duration histogram).',
  versions: {
    '@dsh/tools-otel': JSON.parse(readFileSync(new URL('../../packages/tools-otel/package.json', import.meta.url), 'utf8')).version,
    '@opentelemetry/sdk-trace-base': '2.12.1',
  },
  async groups() {
    const bare = await registry()
    const noop = await registry('no-sdk')
    if (toolTelemetryState(noop)?.tracing !== false) throw new Error('a tracer provider is registered globally: the no-op case would not be one')
    const sampledOut = await registry({ tracerProvider: new BasicTracerProvider({ sampler: new AlwaysOffSampler() }) })
    const reader = new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), exportIntervalMillis: 3_600_000 })
    const recording = await registry({
      tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }),
      meterProvider: new MeterProvider({ readers: [reader] }),
    })
    let recorded = 0
    // Every registry runs before anything is measured: the case measured first would otherwise run on code that has
    // seen one registry only (about 15% faster in a trial), whichever case that is.
    for (let warm = 0; warm < 200; warm++) for (const ctx of [bare, noop, sampledOut, recording]) await caseOf(ctx)()
    spans.reset()
    // The no-op comparison runs first and alone: registries that have listeners make the pipeline's shared code
    // polymorphic, which would slow whichever registry is measured after them, with or without the plugin.
    return [
      {
        title: '20 calls of a trivial tool: the registry alone against the plugin with no SDK',
        baseline: 'registry alone',
        rounds: 5,
        target: { case: 'plugin, no SDK (no-op)', maxRatio: 1.05, label: 'no-op within 5%' },
        cases: {
          'registry alone': caseOf(bare),
          'plugin, no SDK (no-op)': caseOf(noop),
        },
      },
      {
        title: '20 calls of a trivial tool: the registry alone against the plugin with a real SDK',
        baseline: 'registry alone',
        rounds: 3,
        cases: {
          'registry alone': caseOf(bare),
          'plugin, SDK sampling nothing': caseOf(sampledOut),
          'plugin, SDK + in-memory exporter + metrics': caseOf(recording, () => {
            if (++recorded % 1_000 === 0) spans.reset()
          }),
        },
      },
    ]
  },
  async dispose() {
    for (const ctx of contexts) await ctx.root.fiber.dispose()
  },
})

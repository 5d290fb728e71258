import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { CodeMode } from '@dsh/code-mode'
import { TaskService } from '@dsh/tool-tasks'
import type { Agent } from '@dsh/tools-core'
import { ToolRegistry } from '@dsh/tools-registry'
import { defineTool } from '@dsh/tools-schema'
import { expectCleanUnload } from '@dsh/tools-testing'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { byName, childrenOf, traced, type Traced } from './test-kit.js'
import { OtelConfigError, ToolTelemetry, toolTelemetryState } from './index.js'

const SECRET = 'sk-live-0b1c2d3e4f5a6b7c'
const agent: Agent = { id: 'agent-1', inject() {} }

const count = defineTool({
  name: 'count',
  description: 'Count words.',
  parameters: { text: { type: 'string', required: true } },
  concurrencySafe: true,
  output: {
    schema: { type: 'object', properties: { words: { type: 'integer', required: true } }, additionalProperties: false },
    render: (_args, value) => `${value.words} words`,
  },
  execute: ({ text }) => ({ words: text.split(/\s+/).filter(Boolean).length }),
})

let harness: Traced | undefined
afterEach(async () => {
  await harness?.dispose()
  harness = undefined
})

describe('nesting', () => {
  it('makes a Code Mode sub-call a child of its run_code span', async () => {
    harness = await traced(async (ctx) => {
      ctx.tools.register(count)
      await ctx.plugin(CodeMode)
    })
    const result = await harness.ctx.tools.execute({
      callId: 'outer',
      name: 'run_code',
      agent,
      arguments: { code: "const a = await tools.count({ text: 'one two' })\nconst b = await tools.count({ text: 'three' })\nreturn a.words + b.words" },
    })
    expect(result.isError).toBe(false)
    const spans = harness.spans.getFinishedSpans()
    const program = byName(spans, 'execute_tool run_code')
    expect(childrenOf(spans, program).sort()).toEqual(['body run_code', 'execute_tool count', 'execute_tool count'])
    const subCalls = spans.filter((span) => span.name === 'execute_tool count')
    expect(subCalls.map((span) => span.attributes['gen_ai.tool.call.id'])).toEqual(['outer:code:1', 'outer:code:2'])
    expect(subCalls.every((span) => span.attributes['dsh.tool.parent.call.id'] === 'outer')).toBe(true)
    expect(subCalls.every((span) => span.spanContext().traceId === program.spanContext().traceId)).toBe(true)
  })

  it('links a background task to the call that started it', async () => {
    let finish: () => void = () => {}
    const released = new Promise<void>((resolve) => (finish = resolve))
    harness = await traced(async (ctx) => {
      await ctx.plugin(TaskService)
      ctx.tools.register(
        defineTool({
          name: 'build',
          description: 'Build.',
          parameters: {},
          execution: { background: 'optional' },
          async execute() {
            await released
            return 'built'
          },
        }),
      )
    })
    const settled = new Promise<void>((resolve) => harness!.ctx.on('tasks/settled', () => resolve()))
    const started = await harness.ctx.tools.execute({ callId: 'c1', name: 'build', agent, arguments: { run_in_background: true } })
    expect(started.isError).toBe(false)
    finish()
    await settled
    const spans = harness.spans.getFinishedSpans()
    const call = byName(spans, 'execute_tool build')
    const task = byName(spans, 'task build')
    expect(task.links.map((link) => link.context.spanId)).toEqual([call.spanContext().spanId])
    expect(task.attributes).toMatchObject({ 'gen_ai.tool.name': 'build', 'gen_ai.tool.call.id': 'c1', 'dsh.task.status': 'completed' })
    expect(task.attributes['dsh.task.id']).toMatch(/^task_/)
  })

  it('marks the tools of an MCP server with mcp.* attributes (from mcp/status)', async () => {
    harness = await traced((ctx) => {
      ctx.tools.register({
        name: 'mcp__files__read',
        description: 'Read.',
        parameters: { type: 'object' },
        execute: async () => [{ type: 'text', text: 'ok' }],
      })
    })
    harness.ctx.emit('mcp/status' as never, { server: 'files', state: 'ready', era: 'modern', tools: [{ name: 'mcp__files__read', wireName: 'read' }], restarts: 0 } as never)
    await harness.ctx.tools.execute({ callId: 'c1', name: 'mcp__files__read', arguments: {} })
    expect(byName(harness.spans.getFinishedSpans(), 'execute_tool mcp__files__read').attributes).toMatchObject({
      'gen_ai.tool.type': 'extension',
      'mcp.method.name': 'tools/call',
      'mcp.protocol.version': '2026-07-28',
      'dsh.mcp.server': 'files',
      'dsh.mcp.tool.wire_name': 'read',
    })
  })
})

describe('loading', () => {
  it('registers nothing when no SDK is registered (the API no-op)', async () => {
    const ctx = new Context()
    await ctx.plugin(ToolRegistry)
    ctx.tools.register(count)
    await ctx.plugin(ToolTelemetry)
    expect(toolTelemetryState(ctx)).toEqual({ tracing: false, metering: false })
    const result = await ctx.tools.execute({ callId: 'c1', name: 'count', arguments: { text: 'a b' } })
    expect(result.structuredContent).toEqual({ words: 2 })
    await ctx.root.fiber.dispose()
  })

  it('refuses an invalid configuration, and arguments without a redaction', async () => {
    const ctx = new Context()
    await ctx.plugin(ToolRegistry)
    await expect(ctx.plugin(ToolTelemetry, { content: { arguments: true } })).rejects.toSatisfy((error) => OtelConfigError.isInstance(error))
    await expect(ctx.plugin(ToolTelemetry, { content: { maxLength: 3 } })).rejects.toThrow(/content.maxLength/)
    await ctx.root.fiber.dispose()
  })

  it('leaves nothing behind when unloaded', async () => {
    const tracerProvider = new BasicTracerProvider()
    await expectCleanUnload(ToolTelemetry, { config: { tracerProvider } })
  })
})

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = ''
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
    request.on('end', () => resolve(body)).on('error', reject)
  })
}

interface OtlpSpan {
  readonly name: string
  readonly attributes: readonly { readonly key: string; readonly value: Record<string, unknown> }[]
}

describe('OTLP/HTTP', () => {
  it('exports the spans to a collector, with no secret in them', async () => {
    const received: { path: string; type: string | undefined; body: string }[] = []
    const server = createServer((request, response) => {
      void readBody(request).then((body) => {
        received.push({ path: request.url ?? '', type: request.headers['content-type'], body })
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    const exporter = new OTLPTraceExporter({ url: `http://127.0.0.1:${port}/v1/traces` })
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
    const ctx = new Context()
    try {
      await ctx.plugin(ToolRegistry)
      ctx.tools.register(count)
      await ctx.plugin(ToolTelemetry, { tracerProvider })
      await ctx.tools.execute({ callId: 'c1', name: 'count', agent, arguments: { text: `token ${SECRET}` } })
      await tracerProvider.forceFlush()
    } finally {
      await ctx.root.fiber.dispose()
      await tracerProvider.shutdown()
      await new Promise((resolve) => server.close(resolve))
    }
    expect(received.length).toBeGreaterThan(0)
    expect(received.every((request) => request.path === '/v1/traces' && request.type === 'application/json')).toBe(true)
    const spans = received.flatMap(
      (request) =>
        (JSON.parse(request.body) as { resourceSpans: { scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[] }[] }).resourceSpans.flatMap((resource) =>
          resource.scopeSpans.flatMap((scope) => scope.spans.map((span) => ({ scope: scope.scope.name, ...span }))),
        ),
    )
    expect(spans.map((span) => span.name).sort()).toEqual(['body count', 'execute_tool count'])
    const call = spans.find((span) => span.name === 'execute_tool count')!
    expect(call.scope).toBe('@dsh/tools-otel')
    const attributes = Object.fromEntries(call.attributes.map((attribute) => [attribute.key, Object.values(attribute.value)[0]]))
    expect(attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'count',
      'gen_ai.tool.call.id': 'c1',
      'dsh.tool.outcome': 'ok',
    })
    expect(received.map((request) => request.body).join('')).not.toContain(SECRET)
  })
})

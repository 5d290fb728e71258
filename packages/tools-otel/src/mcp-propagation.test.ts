// Trace context across MCP, with real parts in one process: a registry served over HTTP on 127.0.0.1
// (`serveToolsHttp`) and our MCP client plugin calling it, each side with the plugin and a tracer provider of its
// own, the W3C propagator and an AsyncLocalStorage context manager registered (as a host's SDK set-up does).
import { mcpServer, whenMcpServerReady } from '@dsh/tools-mcp'
import { serveToolsHttp } from '@dsh/tools-mcp/server'
import { ToolRegistry } from '@dsh/tools-registry'
import { defineTool } from '@dsh/tools-schema'
import { context, propagation, SpanKind } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { Context } from 'cordis'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ToolTelemetry } from './index.js'
import { byName } from './test-kit.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  propagation.setGlobalPropagator(new W3CTraceContextPropagator())
})
afterAll(() => {
  context.disable()
  propagation.disable()
})

/** A registry with the plugin on a provider of its own; its spans in `spans`. */
async function side(): Promise<{ ctx: Context; spans: InMemorySpanExporter }> {
  const spans = new InMemorySpanExporter()
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] })
  const ctx = new Context()
  await ctx.plugin(ToolRegistry)
  await ctx.plugin(ToolTelemetry, { tracerProvider })
  cleanups.push(async () => {
    await ctx.root.fiber.dispose()
    await tracerProvider.shutdown()
  })
  return { ctx, spans }
}

describe('an MCP call between two traced registries', () => {
  it.each(['legacy', 'modern'] as const)('%s: the served call is a SERVER span, child of the client span that sent tools/call, with mcp.* attributes', async (protocol) => {
    const server = await side()
    server.ctx.tools.register(defineTool({ name: 'lookup', description: 'Look a word up.', parameters: { word: { type: 'string', required: true } }, execute: ({ word }) => `found ${word}` }))
    const http = await serveToolsHttp(server.ctx, {})
    cleanups.push(() => http.close())

    const client = await side()
    await client.ctx.plugin(mcpServer, { id: 'remote', url: http.url, protocol, tools: { lookup: { approval: 'allow' } } })
    expect((await whenMcpServerReady(client.ctx, 'remote')).state).toBe('ready')
    const result = await client.ctx.tools.execute({ callId: 'call_1', name: 'mcp__remote__lookup', arguments: { word: 'otel' } })
    expect(result.isError).toBe(false)

    const clientSpans = client.spans.getFinishedSpans()
    const call = byName(clientSpans, 'execute_tool mcp__remote__lookup')
    const body = byName(clientSpans, 'body mcp__remote__lookup')
    expect(body.parentSpanContext?.spanId).toBe(call.spanContext().spanId)
    expect(body.kind).toBe(SpanKind.CLIENT)
    expect(body.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'lookup' })

    const served = byName(server.spans.getFinishedSpans(), 'execute_tool lookup')
    expect(served.kind).toBe(SpanKind.SERVER)
    expect(served.spanContext().traceId).toBe(call.spanContext().traceId)
    expect(served.parentSpanContext).toMatchObject({ traceId: body.spanContext().traceId, spanId: body.spanContext().spanId, isRemote: true })
    expect(served.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup',
      'mcp.method.name': 'tools/call',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'mcp.protocol.version': protocol === 'legacy' ? '2025-11-25' : '2026-07-28',
      'dsh.tool.outcome': 'ok',
    })
    expect(served.attributes['jsonrpc.request.id']).toMatch(/^\d+$/)
    if (protocol === 'legacy') expect(served.attributes['mcp.session.id']).toMatch(/^[0-9a-f-]{36}$/)
    else expect(served.attributes['mcp.session.id']).toBeUndefined()
    // The served side's body span is its own child, and the client's call span is not a SERVER span.
    expect(byName(server.spans.getFinishedSpans(), 'body lookup').parentSpanContext?.spanId).toBe(served.spanContext().spanId)
    expect(call.kind).toBe(SpanKind.INTERNAL)
  })

  it('a call of the served registry that did not come over MCP stays an INTERNAL span without mcp.* attributes', async () => {
    const server = await side()
    server.ctx.tools.register(defineTool({ name: 'lookup', description: 'Look a word up.', parameters: {}, execute: () => 'found' }))
    const http = await serveToolsHttp(server.ctx, {})
    cleanups.push(() => http.close())
    await server.ctx.tools.execute({ callId: 'mcp_1', name: 'lookup', arguments: {} })
    const span = byName(server.spans.getFinishedSpans(), 'execute_tool lookup')
    expect(span.kind).toBe(SpanKind.INTERNAL)
    expect(Object.keys(span.attributes).filter((key) => key.startsWith('mcp.') || key.startsWith('network.'))).toEqual([])
  })
})

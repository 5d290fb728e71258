// Trace context over MCP `params._meta`, with real parts: a served registry (the serving endpoint mounted on a
// 127.0.0.1 server of the test's own, which records every request body as it arrived) and our client plugin, in
// both protocol eras; first with nothing of OpenTelemetry registered, then with the real SDK (W3C propagator,
// AsyncLocalStorage context manager, an in-memory exporter).
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { PreToolDecision, ToolExecution } from '@dsh/tools-core'
import { createToolContext, type ToolTestContext } from '@dsh/tools-testing'
import { context, propagation, trace, type SpanContext } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { mcpServer, whenMcpServerReady } from '../index.js'
import { plain } from '../test-support/fixtures.js'
import { traceMeta } from '../trace-context.js'
import { createToolsHttpHandler, servedCallInfo, type ServedCallInfo } from './index.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

interface WireCall {
  readonly id: unknown
  readonly meta: Record<string, unknown> | undefined
}

/** What the served side saw of one call, read in a `tools/pre-execute` listener. */
interface Seen {
  readonly info: ServedCallInfo | undefined
  readonly parent: SpanContext | undefined
}

interface Served {
  readonly url: string
  /** The `tools/call` requests as they arrived on the wire. */
  readonly calls: WireCall[]
  readonly seen: Seen[]
}

async function body(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  return text === '' ? undefined : JSON.parse(text)
}

async function served(): Promise<Served> {
  const t = await createToolContext()
  cleanups.push(() => t.dispose())
  t.tools.register(plain('probe'))
  const seen: Seen[] = []
  t.tools.on(
    'tools/pre-execute',
    (exec: Readonly<ToolExecution>, next: () => Promise<PreToolDecision>) => {
      seen.push({ info: servedCallInfo(exec), parent: trace.getSpanContext(context.active()) })
      return next()
    },
    { prepend: true },
  )
  const mcp = createToolsHttpHandler(t.ctx, {})
  const calls: WireCall[] = []
  const server: Server = createServer((request, response) => {
    void body(request).then((parsed) => {
      const message = parsed as { method?: unknown; id?: unknown; params?: { _meta?: Record<string, unknown> } } | undefined
      if (message?.method === 'tools/call') calls.push({ id: message.id, meta: message.params?._meta })
      // As after a body parser: the handler takes the parsed body (see the reference, createToolsHttpHandler).
      ;(request as IncomingMessage & { body?: unknown }).body = parsed
      mcp.handle(request, response)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(async () => {
    await mcp.close()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, calls, seen }
}

async function client(url: string, protocol: 'legacy' | 'modern'): Promise<ToolTestContext> {
  const t = await createToolContext()
  cleanups.push(() => t.dispose())
  await t.load(mcpServer, { id: 'remote', url, protocol, tools: { probe: { approval: 'allow' } } })
  expect((await whenMcpServerReady(t.ctx, 'remote')).state).toBe('ready')
  return t
}

describe('with no OpenTelemetry registered (the API installed, nothing set up)', () => {
  it.each(['legacy', 'modern'] as const)('%s: no trace key is added to _meta; the served call still knows its request', async (protocol) => {
    const remote = await served()
    const t = await client(remote.url, protocol)
    const result = await t.tools.execute({ callId: 'c1', name: 'mcp__remote__probe', arguments: {} })
    expect(result.isError, JSON.stringify(result)).toBe(false)
    expect(remote.calls).toHaveLength(1)
    const wire = remote.calls[0]!
    expect(Object.keys(wire.meta ?? {}).filter((key) => ['traceparent', 'tracestate', 'baggage'].includes(key))).toEqual([])
    const { info, parent } = remote.seen[0]!
    expect(parent).toBeUndefined()
    expect(info).toMatchObject({ method: 'tools/call', requestId: wire.id, transport: 'http' })
    expect(info?.callId).toMatch(/^mcp_\d+$/)
    if (protocol === 'legacy') {
      expect(info?.sessionId).toMatch(/^[0-9a-f-]{36}$/)
      expect(info?.protocolVersion).toBe('2025-11-25')
    } else {
      expect(info?.sessionId).toBeUndefined()
      expect(info?.protocolVersion).toBe('2026-07-28')
    }
  })

  it('servedCallInfo is undefined for a call the server did not start, even one whose callId looks like a served one', async () => {
    const t = await createToolContext()
    cleanups.push(() => t.dispose())
    const infos: (ServedCallInfo | undefined)[] = []
    t.tools.on('tools/pre-execute', (exec: Readonly<ToolExecution>, next: () => Promise<PreToolDecision>) => (infos.push(servedCallInfo(exec)), next()), { prepend: true })
    t.tools.register(plain('local'))
    await t.tools.execute({ callId: 'mcp_1', name: 'local', arguments: {} })
    expect(infos).toEqual([undefined])
  })
})

describe('with the OpenTelemetry SDK registered (W3C propagator, AsyncLocalStorage context manager)', () => {
  const spans = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] })
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
    propagation.setGlobalPropagator(new W3CTraceContextPropagator())
  })
  afterAll(async () => {
    await provider.shutdown()
    context.disable()
    propagation.disable()
  })

  it.each(['legacy', 'modern'] as const)('%s: tools/call carries the active span as traceparent, and the served call runs with it as remote parent', async (protocol) => {
    const remote = await served()
    const t = await client(remote.url, protocol)
    const tracer = provider.getTracer('test')
    const turn = await tracer.startActiveSpan('turn', async (span) => {
      const result = await t.tools.execute({ callId: 'c1', name: 'mcp__remote__probe', arguments: {} })
      expect(result.isError).toBe(false)
      span.end()
      return span.spanContext()
    })
    const traceparent = remote.calls[0]?.meta?.traceparent
    expect(traceparent).toBe(`00-${turn.traceId}-${turn.spanId}-01`)
    const { parent, info } = remote.seen[0]!
    expect(parent).toMatchObject({ traceId: turn.traceId, spanId: turn.spanId, isRemote: true })
    expect(info?.requestId).toBe(remote.calls[0]?.id)
  })

  it('a call outside any span sends no traceparent (nothing to propagate)', async () => {
    const remote = await served()
    const t = await client(remote.url, 'modern')
    await t.tools.execute({ callId: 'c1', name: 'mcp__remote__probe', arguments: {} })
    expect(remote.calls[0]?.meta?.traceparent).toBeUndefined()
    expect(remote.seen[0]?.parent).toBeUndefined()
  })

  it('traceMeta never overwrites a _meta key the request already has', async () => {
    const span = provider.getTracer('test').startSpan('outer')
    const meta = await context.with(trace.setSpan(context.active(), span), () => traceMeta({ traceparent: 'kept' }))
    span.end()
    expect(meta).toEqual({})
    const fresh = await context.with(trace.setSpan(context.active(), span), () => traceMeta({ other: 1 }))
    expect(fresh.traceparent).toMatch(new RegExp(`^00-${span.spanContext().traceId}-`))
  })
})

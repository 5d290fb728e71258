// The client's trace context without @opentelemetry/api installed: the optional peer's absence costs nothing.
import { afterEach, describe, expect, it, vi } from 'vitest'

afterEach(() => {
  vi.doUnmock('@opentelemetry/api')
  vi.resetModules()
})

describe('without @opentelemetry/api installed', () => {
  it('adds no _meta key and runs a served call as it is', async () => {
    vi.resetModules()
    vi.doMock('@opentelemetry/api', () => {
      throw new Error("Cannot find package '@opentelemetry/api'")
    })
    const { loadOtelApi, traceMeta, withServedContext } = await import('./trace-context.js')
    expect(await loadOtelApi()).toBeUndefined()
    expect(await traceMeta()).toEqual({})
    const info = { callId: 'mcp_1', method: 'tools/call', requestId: 1, sessionId: undefined, protocolVersion: undefined, transport: undefined } as const
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
    await expect(withServedContext({ traceparent }, info, async () => 'ran')).resolves.toBe('ran')
  })

  it('with it installed (the control): the API loads', async () => {
    const { loadOtelApi } = await import('./trace-context.js')
    expect(await loadOtelApi()).toBeDefined()
  })
})

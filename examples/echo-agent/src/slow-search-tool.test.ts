import { TimeoutPolicy } from '@dsh/timeout-policy'
import { createToolContext, expectCleanUnload } from '@dsh/tools-testing'
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as slowSearchPlugin from './slow-search-tool.js'

afterEach(() => {
  vi.useRealTimers()
})

describe('search_archive', () => {
  it('declares its budget, which the model never sees', async () => {
    await using t = await createToolContext({ plugins: [[slowSearchPlugin, { timeoutMs: 300 }]] })
    expect(t.tools.get('search_archive')?.timeoutMs).toBe(300)
    expect(Object.keys(t.tools.schemas()[0] ?? {})).toEqual(['name', 'description', 'parameters'])
  })

  it('is cancelled at its deadline under the timeout policy: TOOL_TIMEOUT', async () => {
    vi.useFakeTimers()
    await using t = await createToolContext({ plugins: [[TimeoutPolicy, { graceMs: 1_000 }], [slowSearchPlugin, { timeoutMs: 250 }]] })
    const pending = t.tools.execute({ callId: 'c1', name: 'search_archive', arguments: { query: 'x' } })
    await vi.advanceTimersByTimeAsync(250)
    const result = await pending
    expect(result.error).toEqual({ name: 'ToolTimeoutError', code: 'TOOL_TIMEOUT' })
    expect(result.content).toEqual([
      { type: 'text', text: 'Tool call timed out after 250ms: "search_archive" was cancelled at its deadline.' },
    ])
  })

  it('answers when the archive is faster than the budget', async () => {
    vi.useFakeTimers()
    await using t = await createToolContext({
      plugins: [TimeoutPolicy, [slowSearchPlugin, { timeoutMs: 250, latencyMs: 100 }]],
    })
    const pending = t.tools.execute({ callId: 'c1', name: 'search_archive', arguments: { query: 'release' } })
    await vi.advanceTimersByTimeAsync(100)
    expect(await pending).toEqual({ callId: 'c1', isError: false, content: [{ type: 'text', text: 'No document mentions "release".' }] })
  })

  it('stops when the caller cancels', async () => {
    await using t = await createToolContext({ plugins: [slowSearchPlugin] })
    const controller = new AbortController()
    const pending = t.tools.execute({ callId: 'c1', name: 'search_archive', arguments: { query: 'x' }, signal: controller.signal })
    controller.abort()
    expect((await pending).error?.code).toBe('ABORTED')
  })

  it('leaves nothing behind when the plugin is unloaded', async () => {
    await expectCleanUnload(slowSearchPlugin)
  })
})

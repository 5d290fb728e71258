// Stage 8: tools/post-execute inspects the dispatch result; accept may replace content (see execute-projections.test.ts for
// meta and structuredContent), block turns it into an error.
import type { ToolExecutionResult } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import { call, createHarness, isDeepFrozen, textOf, tool } from './test-kit.js'

describe('tools/post-execute', () => {
  it('next() delegates to the default: accept unchanged', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read', { execute: async () => ({ content: [{ type: 'text', text: 'data' }], meta: { lines: 1 } }) }))
    ctx.on('tools/post-execute', (_exec, _result, next) => next())
    const result = await tools.execute(call('read', {}, { callId: 'c1' }))
    expect(result).toEqual({ callId: 'c1', content: [{ type: 'text', text: 'data' }], isError: false, meta: { lines: 1 } })
  })

  it('receives the materialized, deep-frozen result of the dispatch', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    let seen: ToolExecutionResult | undefined
    ctx.on('tools/post-execute', (_exec, result, next) => ((seen = result), next()))
    await tools.execute(call('read'))
    expect(seen?.content).toEqual([{ type: 'text', text: 'read' }])
    expect(isDeepFrozen(seen)).toBe(true)
  })

  it('accept may replace the model-facing content and keeps the rest', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read', { execute: async () => ({ content: [{ type: 'text', text: 'secret=hunter2' }], meta: { bytes: 14 } }) }))
    ctx.on('tools/post-execute', () => ({ kind: 'accept', content: [{ type: 'text', text: 'secret=[redacted]' }] }))
    const result = await tools.execute(call('read'))
    expect(result.content).toEqual([{ type: 'text', text: 'secret=[redacted]' }])
    expect(result.isError).toBe(false)
    expect(result.meta).toEqual({ bytes: 14 })
  })

  it('accept may attach additionalContext for the next request, outside the content', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('write'))
    const additionalContext = { content: [{ type: 'text' as const, text: 'Run the tests after editing.' }], source: 'lint-hook' }
    ctx.on('tools/post-execute', () => ({ kind: 'accept', additionalContext }))
    const result = await tools.execute(call('write'))
    expect(result.content).toEqual([{ type: 'text', text: 'write' }])
    expect(result.additionalContext).toEqual(additionalContext)
    expect(result.additionalContext).not.toBe(additionalContext)
  })

  it('block turns the call into an error whose content is the feedback (POST_EXECUTE_BLOCKED)', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('write', { execute: async () => ({ content: [{ type: 'text', text: 'wrote 3 files' }], meta: { files: 3 } }) }))
    ctx.on('tools/post-execute', () => ({
      kind: 'block',
      feedback: [{ type: 'text', text: 'The edit broke the build; fix src/a.ts first.' }],
      additionalContext: { content: [{ type: 'text', text: 'build log attached' }] },
    }))
    const result = await tools.execute(call('write', {}, { callId: 'c9' }))
    expect(result).toEqual({
      callId: 'c9',
      content: [{ type: 'text', text: 'The edit broke the build; fix src/a.ts first.' }],
      isError: true,
      error: { name: 'PostExecuteBlockedError', code: 'POST_EXECUTE_BLOCKED' },
      additionalContext: { content: [{ type: 'text', text: 'build log attached' }] },
    })
  })

  it('runs on error results of the dispatch too, and cannot clear isError', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read', { execute: async () => Promise.reject(new Error('ENOENT')) }))
    ctx.on('tools/post-execute', (_exec, result) => ({ kind: 'accept', content: [{ type: 'text', text: `hint: ${textOf(result)}` }] }))
    const result = await tools.execute(call('read'))
    expect(result.isError).toBe(true)
    expect(result.error?.code).toBe('TOOL_FAILED')
    expect(textOf(result)).toBe('hint: Tool "read" failed: Error: ENOENT')
  })

  it('does not run for calls that policy stopped', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    let reviewed = 0
    ctx.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'no' }))
    ctx.on('tools/post-execute', (_exec, _result, next) => (reviewed++, next()))
    await tools.execute(call('read'))
    await tools.execute(call('missing'))
    expect(reviewed).toBe(0)
  })

  it('an outer listener decides over what next() returned', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    ctx.on('tools/post-execute', async (_exec, _result, next) => {
      const inner = await next()
      return inner.kind === 'block' ? { kind: 'accept' } : inner
    })
    ctx.on('tools/post-execute', () => ({ kind: 'block', feedback: [{ type: 'text', text: 'no' }] }))
    expect((await tools.execute(call('read'))).isError).toBe(false)
  })

  it.each([
    ['returns nothing', () => undefined],
    ['returns an unknown kind', () => ({ kind: 'reject' })],
    ['blocks without feedback', () => ({ kind: 'block' })],
    ['blocks with feedback that is not content', () => ({ kind: 'block', feedback: 'no' })],
    ['accepts with malformed content', () => ({ kind: 'accept', content: [{ type: 'text' }] })],
    ['attaches a malformed additionalContext', () => ({ kind: 'accept', additionalContext: { content: [], source: 3 } })],
    ['throws', () => {
      throw new Error('hook crashed')
    }],
  ])('a listener that %s withholds the result with INVALID_DECISION', async (_label, listener) => {
    const { ctx, tools, warnings } = await createHarness()
    tools.register(tool('read'))
    ctx.on('tools/post-execute', listener as never)
    const result = await tools.execute(call('read'))
    expect(result.error).toEqual({ name: 'InvalidDecisionError', code: 'INVALID_DECISION' })
    expect(textOf(result)).toMatch(
      /^The call to "read" ran, but its result was withheld: the harness's policy failed to review it \(a tools\/post-execute listener of plugin "root" .*\)\. This is a fault in the harness, not in your arguments; calling again would run the tool again and fail the same way until it is fixed\.$/,
    )
    expect(warnings).toHaveLength(1)
  })

  it('accepted content that is not lossless JSON becomes INVALID_RESULT', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    ctx.on('tools/post-execute', () => ({ kind: 'accept', content: [{ type: 'text', text: 'x', annotations: { priority: Number.NaN } }] }))
    const result = await tools.execute(call('read'))
    expect(result.error?.code).toBe('INVALID_RESULT')
    expect(textOf(result)).toContain('content[0].annotations.priority')
  })
})

// A body that fails with content of its own (ToolContentError): the error result carries that content, checked,
// materialized and bounded exactly as a success's content, and routed by the error's { name, code }.
import { DshError, ToolContentError, defineToolErrorCodes, type ContentBlock, type ToolExecutionResult } from '@dsh/tools-core'
import { describe, expect, it, vi } from 'vitest'
import { call, createHarness, isDeepFrozen, textOf, tool } from './test-kit.js'

const image: ContentBlock = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }
const BROWSER = defineToolErrorCodes('BROWSER', ['NAVIGATION_FAILED'])
const browserErrorBrand = Symbol.for('dsh.error.BrowserError')

class BrowserError extends ToolContentError {
  static override readonly brand: symbol = browserErrorBrand
  static override isInstance(value: unknown): value is BrowserError {
    return DshError.hasBrand(value, browserErrorBrand)
  }
  override readonly name: string = 'BrowserError'
}

describe('a body that throws ToolContentError', () => {
  it('fails with its content (an image kept), its { name, code }, and neither meta nor structuredContent', async () => {
    const { tools } = await createHarness()
    const content: ContentBlock[] = [{ type: 'text', text: 'The page did not load:' }, image]
    tools.register(tool('browse', { execute: async () => Promise.reject(new BrowserError(BROWSER.NAVIGATION_FAILED, 'navigation failed', { content })) }))
    const result = await tools.execute(call('browse', {}, { callId: 'c1' }))
    expect(result).toEqual({ callId: 'c1', content, isError: true, error: { name: 'BrowserError', code: 'BROWSER_NAVIGATION_FAILED' } })
    expect(isDeepFrozen(result)).toBe(true)
  })

  it('shows its message when it carries no content', async () => {
    const { tools } = await createHarness()
    tools.register(tool('browse', { execute: async () => Promise.reject(new ToolContentError('TOOL_FAILED', 'nothing to show')) }))
    const result = await tools.execute(call('browse'))
    expect(result.content).toEqual([{ type: 'text', text: 'nothing to show' }])
    expect(result.error).toEqual({ name: 'ToolContentError', code: 'TOOL_FAILED' })
  })

  it('is recognised by its brand when it comes from another installed copy of tools-core', async () => {
    vi.resetModules()
    const otherCopy = await import('@dsh/tools-core')
    expect(otherCopy.ToolContentError).not.toBe(ToolContentError)
    const { tools } = await createHarness()
    tools.register(tool('browse', { execute: async () => Promise.reject(new otherCopy.ToolContentError('TOOL_FAILED', 'x', { content: [image] })) }))
    const result = await tools.execute(call('browse'))
    expect(result.content).toEqual([image])
    expect(result.error).toEqual({ name: 'ToolContentError', code: 'TOOL_FAILED' })
  })

  it('an unbranded look-alike with content is TOOL_FAILED: its content is not trusted', async () => {
    const { tools } = await createHarness()
    const lookAlike = Object.assign(new Error('fake'), { code: 'TOOL_FAILED', content: [image] })
    tools.register(tool('browse', { execute: async () => Promise.reject(lookAlike) }))
    const result = await tools.execute(call('browse'))
    expect(result.error).toEqual({ name: 'ToolFailedError', code: 'TOOL_FAILED' })
    expect(result.content.some((block) => block.type === 'image')).toBe(false)
  })

  it.each([
    ['a block without its fields', [{ type: 'image', data: 'AAAA' }]],
    ['a block of an unknown type', [{ type: 'video', data: 'AAAA' }]],
    ['content that is not an array', 'just a string'],
  ])('malformed content (%s) is INVALID_RESULT, naming the failure it carried', async (_label, content) => {
    const { tools } = await createHarness()
    tools.register(tool('browse', { execute: async () => Promise.reject(new BrowserError(BROWSER.NAVIGATION_FAILED, 'navigation failed', { content: content as never })) }))
    const result = await tools.execute(call('browse'))
    expect(result.error).toEqual({ name: 'InvalidToolResultError', code: 'INVALID_RESULT' })
    expect(textOf(result)).toContain('BrowserError BROWSER_NAVIGATION_FAILED: navigation failed')
    expect(textOf(result)).toContain('This is a fault in the tool')
  })

  it('content that is not lossless JSON is INVALID_RESULT naming the thrown error, the reason and the place', async () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    // A DAG that would expand past MAX_JSON_SIZE (2^40 leaves), found in linear time.
    let huge: Record<string, unknown> = { leaf: 'x' }
    for (let level = 0; level < 40; level += 1) huge = { a: huge, b: huge }
    const hostile: [unknown[], string][] = [
      [[{ type: 'text', text: 'x', annotations: cyclic }], 'a cycle (the value contains itself) is not JSON (at "content[0].annotations.self")'],
      [[{ type: 'text', text: 'x', annotations: { when: new Date(0) } }], 'a Date is not JSON (only plain objects and arrays are) (at "content[0].annotations.when")'],
      [[{ type: 'text', text: 'x', annotations: { big: 1n } }], 'the BigInt 1n is not a JSON number (at "content[0].annotations.big")'],
      [[{ type: 'text', text: 'x', annotations: huge }], 'the size limit, MAX_JSON_SIZE'],
    ]
    for (const [content, reason] of hostile) {
      const { tools } = await createHarness()
      tools.register(
        tool('browse', { execute: async () => Promise.reject(new BrowserError(BROWSER.NAVIGATION_FAILED, 'navigation failed', { content: content as never })) }),
      )
      const failed = await tools.execute(call('browse'))
      expect(failed.error).toEqual({ name: 'InvalidToolResultError', code: 'INVALID_RESULT' })
      const text = textOf(failed)
      expect(text).toContain('(BrowserError BROWSER_NAVIGATION_FAILED: navigation failed), and the content it failed with is not lossless JSON')
      expect(text).toContain(reason)
    }
  })

  it('the content is a deep copy taken at the throw: changing a block afterwards changes nothing the model reads', async () => {
    const { tools } = await createHarness()
    const block = { type: 'text' as const, text: 'The page did not load' }
    let thrown: ToolContentError | undefined
    tools.register(
      tool('browse', {
        execute: async () => {
          thrown = new ToolContentError('TOOL_FAILED', 'failed', { content: [block] })
          block.text = 'changed after the throw'
          throw thrown
        },
      }),
    )
    const result = await tools.execute(call('browse'))
    expect(textOf(result)).toBe('The page did not load')
    expect(thrown?.content).toEqual([{ type: 'text', text: 'The page did not load' }])
    expect(isDeepFrozen(thrown?.content)).toBe(true)
  })

  it('a tools/post-execute listener sees the error with its content, and may replace it', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('browse', { execute: async () => Promise.reject(new ToolContentError('TOOL_FAILED', 'x', { content: [image] })) }))
    let seen: ToolExecutionResult | undefined
    ctx.on('tools/post-execute', (_exec, result) => {
      seen = result
      return { kind: 'accept', content: [{ type: 'text', text: '[screenshot withheld]' }] }
    })
    const result = await tools.execute(call('browse'))
    expect(seen).toMatchObject({ isError: true, content: [image], error: { code: 'TOOL_FAILED' } })
    expect(isDeepFrozen(seen)).toBe(true)
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: '[screenshot withheld]' }], error: { name: 'ToolContentError', code: 'TOOL_FAILED' } })
  })

  it('thrown by a tools/execute wrapper, it fails the call with its content', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('browse'))
    ctx.on('tools/execute', () => {
      throw new ToolContentError('DENIED', 'not now', { content: [{ type: 'text', text: 'Blocked by the wrapper.' }, image] })
    })
    const result = await tools.execute(call('browse'))
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Blocked by the wrapper.' }, image], error: { name: 'ToolContentError', code: 'DENIED' } })
  })
})

import { describe, expect, it, vi } from 'vitest'
import type { ContentBlock } from './content.js'
import { DshError } from './dsh-error.js'
import { defineToolErrorCodes } from './tool-error-codes.js'
import { ToolContentError } from './tool-content-error.js'

const image: ContentBlock = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }

describe('ToolContentError', () => {
  it('carries the content a body fails with, its code, message and cause', () => {
    const cause = new Error('root')
    const content: ContentBlock[] = [{ type: 'text', text: 'The page did not load:' }, image]
    const error = new ToolContentError('TOOL_FAILED', 'the page did not load', { content, cause })
    expect(error.content).toEqual(content)
    expect(error.code).toBe('TOOL_FAILED')
    expect(error.message).toBe('the page did not load')
    expect(error.cause).toBe(cause)
    expect(error.toInfo()).toEqual({ name: 'ToolContentError', code: 'TOOL_FAILED' })
    expect(DshError.isInstance(error)).toBe(true)
    expect(ToolContentError.isInstance(error)).toBe(true)
  })

  it('keeps a frozen copy of the content, so the caller mutating its array later changes nothing', () => {
    const content: ContentBlock[] = [image]
    const error = new ToolContentError('TOOL_FAILED', 'x', { content })
    content.push({ type: 'text', text: 'added later' })
    expect(error.content).toEqual([image])
    expect(Object.isFrozen(error.content)).toBe(true)
  })

  it('keeps a deep-frozen copy: changing a block after construction changes nothing the model reads', () => {
    const block = { type: 'text' as const, text: 'before', annotations: { audience: ['user' as const] } }
    const error = new ToolContentError('TOOL_FAILED', 'x', { content: [block] })
    block.text = 'after'
    block.annotations.audience.push('assistant' as never)
    expect(error.content).toEqual([{ type: 'text', text: 'before', annotations: { audience: ['user'] } }])
    expect(Object.isFrozen(error.content[0])).toBe(true)
    expect(Object.isFrozen((error.content[0] as { annotations: { audience: unknown[] } }).annotations.audience)).toBe(true)
  })

  it('never throws for content that is not JSON: it keeps it as given, for the registry to report', () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const content = [{ type: 'text', text: 'x', annotations: cyclic }] as never
    const error = new ToolContentError('TOOL_FAILED', 'x', { content })
    expect((error.content[0] as { annotations: unknown }).annotations).toBe(cyclic)
    expect(Object.isFrozen(error.content)).toBe(true)
  })

  it('has empty content and no cause when none is given (the registry then shows the message)', () => {
    const error = new ToolContentError('TOOL_FAILED', 'just text')
    expect(error.content).toEqual([])
    expect('cause' in error).toBe(false)
  })

  it('keeps content that is not an array as given, so the registry can report it instead of hiding it', () => {
    const error = new ToolContentError('TOOL_FAILED', 'x', { content: 'not blocks' as never })
    expect(error.content).toBe('not blocks')
  })

  it('takes tool-owned codes and is recognised through a subclass', () => {
    const codes = defineToolErrorCodes('BROWSER', ['NAVIGATION_FAILED'])
    const brand = Symbol.for('dsh.error.BrowserError')
    class BrowserError extends ToolContentError {
      static override readonly brand: symbol = brand
      static override isInstance(value: unknown): value is BrowserError {
        return DshError.hasBrand(value, brand)
      }
      override readonly name: string = 'BrowserError'
    }
    const error = new BrowserError(codes.NAVIGATION_FAILED, 'no', { content: [image] })
    expect(ToolContentError.isInstance(error)).toBe(true)
    expect(BrowserError.isInstance(error)).toBe(true)
    expect(ToolContentError.isInstance(new DshError('TOOL_FAILED', 'plain'))).toBe(false)
    expect(error.toInfo()).toEqual({ name: 'BrowserError', code: 'BROWSER_NAVIGATION_FAILED' })
  })

  it('isInstance holds across two installed copies of the package (not instanceof)', async () => {
    vi.resetModules()
    const copyA = await import('./index.js')
    vi.resetModules()
    const copyB = await import('./index.js')
    const fromA = new copyA.ToolContentError('TOOL_FAILED', 'x', { content: [image] })
    expect(fromA instanceof copyB.ToolContentError).toBe(false)
    expect(copyB.ToolContentError.isInstance(fromA)).toBe(true)
    expect(copyB.ToolContentError.isInstance({ content: [image], code: 'TOOL_FAILED' })).toBe(false)
  })
})

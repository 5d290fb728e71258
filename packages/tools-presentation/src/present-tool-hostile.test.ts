import type { ToolResult } from '@dsh/tools-core'
import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { genericCall, terminalCall, terminalResult } from './card-builders.js'
import { genericCallFallback, genericResultFallback, presentToolCall, presentToolResult, type PresenterFailure } from './present-tool.js'
import { renderToolCall, renderToolResult } from './render-card.js'
import { anyValue, hostileObject, materialize, Recipe, revokedProxy, sparseArray, throwingGetter, throwingProxy } from './test-kit.js'
import { isToolCallView, isToolResultView } from './validate-card.js'

const ok: ToolResult = { content: [{ type: 'text', text: 'fine' }], isError: false }

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen)
}

function failures(): { onError: (failure: PresenterFailure) => void; seen: PresenterFailure[] } {
  const seen: PresenterFailure[] = []
  return { onError: (failure) => seen.push(failure), seen }
}

describe('presentToolCall detaches the presenter card once', () => {
  it('mutating the presenter object after presentToolCall returns does not change the returned view', () => {
    const live = { card: 'generic' as const, title: 'read a', content: [{ type: 'text' as const, text: 'x' }], rawInput: { a: [1] } }
    const view = presentToolCall({ name: 'read', presentCall: () => live }, {})
    expect(view).not.toBe(live)
    live.title = 'changed'
    live.content[0]!.text = 'changed'
    live.content.push({ type: 'text', text: 'more' })
    live.rawInput.a.push(2)
    ;(live as { card: string }).card = 'chart'
    expect(view).toEqual({ card: 'generic', title: 'read a', content: [{ type: 'text', text: 'x' }], rawInput: { a: [1] } })
    expect(isDeepFrozen(view)).toBe(true)
    expect(renderToolCall(view, { color: false })[0]).toBe('• read a  [running]')
  })

  it('reads a getter once: a card cannot pass the check and then turn into something renderToolCall throws on', () => {
    let reads = 0
    const shifty = {
      card: 'terminal',
      get title(): unknown {
        reads += 1
        return reads === 1 ? 'ls' : { evil: true }
      },
    }
    const view = presentToolCall({ name: 'bash', presentCall: () => shifty as never }, {})
    expect(view).toEqual({ card: 'terminal', title: 'ls' })
    expect(reads).toBe(1)
    expect(() => renderToolCall(view, { color: false })).not.toThrow()
    expect(renderToolCall(view, { color: false })).toEqual(['$ ls  [running]'])
  })

  it('keeps only the fields of the vocabulary, and rawInput only when it is lossless JSON', () => {
    const view = presentToolCall(
      { name: 't', presentCall: () => ({ ...genericCall({ title: 't' }), rawInput: { when: new Date(0) }, extra: 1 }) as never },
      {},
    )
    expect(view).toEqual({ card: 'generic', title: 't' })
  })

  it('returns a frozen, detached fallback card too, arguments included', () => {
    const args = { path: ['a'] }
    const view = presentToolCall({ name: 'read' }, args)
    args.path.push('b')
    expect(view).toEqual({ card: 'generic', title: 'read', rawInput: { path: ['a'] } })
    expect(isDeepFrozen(view)).toBe(true)
  })
})

describe('a detached card is only trusted in its own phase', () => {
  it('a detached result card given to renderToolCall is checked as a call card', () => {
    const result = presentToolResult({ name: 'r', presentResult: () => ({ card: 'generic' }) }, {}, ok)
    expect(() => renderToolCall(result as never, { color: false })).toThrow(expect.objectContaining({ code: 'INVALID_CARD', path: 'title' }))
  })
})

describe('presenting never throws: every hostile shape falls back to the generic card', () => {
  it.each([
    ['a revoked proxy', () => revokedProxy()],
    ['a proxy whose every trap throws', () => throwingProxy()],
    ['a card whose title getter throws', () => throwingGetter('title', { card: 'terminal' })],
    ['a card whose card getter throws', () => throwingGetter('card')],
    ['a card whose content is a revoked proxy', () => ({ card: 'generic', title: 't', content: revokedProxy([]) })],
    ['a card whose content is an array proxy that throws', () => ({ card: 'generic', title: 't', content: throwingProxy([]) })],
    ['a card whose diffs hold a throwing getter', () => ({ card: 'diff', title: 't', diffs: [throwingGetter('newText', { path: '/a', oldText: null })] })],
    ['a card with a huge sparse list', () => ({ card: 'generic', title: 't', locations: sparseArray(2 ** 32 - 1) })],
    ['a card with more items than any UI shows', () => ({ card: 'generic', title: 't', content: Array.from({ length: 100_001 }, () => ({ type: 'text', text: '' })) })],
    ['an array', () => []],
  ])('presentCall returning %s', (_name, make) => {
    const { onError, seen } = failures()
    const view = presentToolCall({ name: 'tool', presentCall: () => make() as never }, { a: 1 }, { onError })
    expect(view).toEqual({ card: 'generic', title: 'tool', rawInput: { a: 1 } })
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ tool: 'tool', phase: 'call', error: { code: expect.stringMatching(/^(UNKNOWN|INVALID)_CARD$/) } })
    // The failure is described safely: our words, sanitized, one line.
    // oxlint-disable-next-line no-control-regex
    expect((seen[0]!.error as Error).message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
  })

  it('a presenter returning a Promise is a failure, and its rejection is not left unhandled', async () => {
    const { onError, seen } = failures()
    const view = presentToolCall({ name: 'async', presentCall: () => Promise.reject(new Error('late')) as never }, 1, { onError })
    expect(view).toEqual({ card: 'generic', title: 'async', rawInput: 1 })
    expect(seen[0]!.error).toMatchObject({ code: 'UNKNOWN_CARD', reason: expect.stringContaining('Promise') })
    await new Promise((resolve) => setTimeout(resolve, 10))
  })

  it('a hostile tool: revoked proxy, throwing name, symbol name, presenter that throws a revoked proxy', () => {
    expect(presentToolCall(revokedProxy() as never, 1)).toEqual({ card: 'generic', title: 'tool', rawInput: 1 })
    expect(presentToolCall(throwingGetter('name') as never, 1)).toEqual({ card: 'generic', title: 'tool', rawInput: 1 })
    expect(presentToolCall({ name: Symbol('s') } as never, 1)).toEqual({ card: 'generic', title: 'Symbol(s)', rawInput: 1 })
    const rethrow = { name: 'x', presentCall: (): never => { throw revokedProxy() } }
    const onError = vi.fn()
    expect(presentToolCall(rethrow, 1, { onError })).toEqual({ card: 'generic', title: 'x', rawInput: 1 })
    expect(onError).toHaveBeenCalledOnce()
    expect(presentToolCall(null as never, 1)).toEqual({ card: 'generic', title: 'tool', rawInput: 1 })
  })

  it('hostile arguments leave rawInput out with a note instead of throwing', () => {
    for (const args of [revokedProxy(), throwingGetter('command'), { big: 1n }]) {
      const view = presentToolCall({ name: 'bash' }, args)
      expect(view).toMatchObject({ card: 'generic', title: 'bash', content: [{ type: 'text', text: expect.stringMatching(/^\[The arguments cannot be shown: /) }] })
      expect(view).not.toHaveProperty('rawInput')
      expect(genericCallFallback('bash', args)).toEqual(view)
    }
  })
})

describe('presentToolResult never throws on a hostile result', () => {
  it.each([
    ['content that is a revoked proxy', { content: revokedProxy([]), isError: false }],
    ['content that is an array proxy that throws', { content: throwingProxy([]), isError: false }],
    ['content that is not an array', { content: 'text', isError: false }],
    ['content behind a throwing getter', throwingGetter('content', { isError: false })],
    ['a revoked proxy', revokedProxy()],
    ['a proxy whose every trap throws', throwingProxy()],
    ['a string', 'oops'],
  ])('without a presenter: %s gives a generic card with a note', (_name, result) => {
    const { onError, seen } = failures()
    const view = presentToolResult({ name: 'r' }, {}, result as never, { onError })
    expect(view).toEqual({ card: 'generic', content: [{ type: 'text', text: expect.stringMatching(/^\[the .*cannot|^\[the .*not/) }] })
    expect(isDeepFrozen(view)).toBe(true)
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ tool: 'r', phase: 'result', error: { code: 'INVALID_CARD', path: 'content' } })
    expect(genericResultFallback(result as never)).toEqual(view)
  })

  it('keeps the good blocks of a result and puts a note in place of each malformed one', () => {
    const result = { content: [{ type: 'text', text: 'a' }, { type: 'text', text: 5 }, throwingGetter('text', { type: 'text' })], isError: false }
    const view = presentToolResult({ name: 'r' }, {}, result as never)
    expect(view).toEqual({
      card: 'generic',
      content: [
        { type: 'text', text: 'a' },
        { type: 'text', text: '[content block 1 cannot be shown: text: expected a string, got 5]' },
        { type: 'text', text: '[content block 2 cannot be shown: text: reading it threw: getter text]' },
      ],
    })
  })

  it('a presenter given a hostile result falls back instead of throwing', () => {
    const { onError, seen } = failures()
    const tool = { name: 'bash', presentResult: (_args: unknown, result: ToolResult) => terminalResult({ output: String(result.content.length) }) }
    const view = presentToolResult(tool, {}, { content: revokedProxy([]) } as never, { onError })
    expect(view).toMatchObject({ card: 'generic' })
    expect(seen.map((failure) => failure.phase)).toEqual(['result', 'result'])
    expect(() => renderToolResult(view, { color: false })).not.toThrow()
  })

  it('detaches the presenter result card like the call card', () => {
    const live = terminalResult({ output: 'ok', exitCode: 0 })
    const view = presentToolResult({ name: 'bash', presentResult: () => live }, {}, ok)
    live.exitCode = 1
    live.output = 'changed'
    expect(view).toEqual({ card: 'terminal', output: 'ok', exitCode: 0 })
    expect(isDeepFrozen(view)).toBe(true)
  })
})

describe('presenting never throws (property)', () => {
  const presenter = fc.oneof(
    anyValue,
    fc.oneof(anyValue, hostileObject).map((value) => new Recipe(() => () => materialize(value))),
    fc.constant(
      new Recipe(() => () => {
        throw revokedProxy()
      }),
    ),
  )
  const tool = fc.oneof(
    anyValue,
    fc.record({ name: anyValue, presentCall: presenter, presentResult: presenter }, { requiredKeys: [] }),
  )

  it('presentToolCall returns a frozen, well-formed card that renders, whatever the tool and args', () => {
    fc.assert(
      fc.property(tool, anyValue, (candidate, args) => {
        const view = presentToolCall(materialize(candidate) as never, materialize(args), { onError: () => { throw new Error('logger down') } })
        expect(isToolCallView(view)).toBe(true)
        expect(isDeepFrozen(view)).toBe(true)
        renderToolCall(view, { color: true })
      }),
      { numRuns: 400 },
    )
  })

  it('presentToolResult returns a frozen, well-formed card that renders, whatever the tool, args and result', () => {
    fc.assert(
      fc.property(tool, anyValue, anyValue, (candidate, args, result) => {
        const view = presentToolResult(materialize(candidate) as never, materialize(args), materialize(result) as never)
        expect(isToolResultView(view)).toBe(true)
        expect(isDeepFrozen(view)).toBe(true)
        renderToolResult(view, { color: false, call: terminalCall({ title: 't' }) })
      }),
      { numRuns: 400 },
    )
  })
})

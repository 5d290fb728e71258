import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { sanitizedLines, sanitizeLine } from './sanitize-text.js'
import { hostileString } from './test-kit.js'

describe('sanitizeLine', () => {
  it('removes escape sequences of every family', () => {
    expect(sanitizeLine('\u001b[1;31mred\u001b[0m')).toBe('red')
    expect(sanitizeLine('\u009b31mred')).toBe('red')
    expect(sanitizeLine('a\u001b]8;;https://x\u001b\\link\u001b]8;;\u001b\\b')).toBe('alinkb')
    expect(sanitizeLine('\u001b]0;title\u0007text')).toBe('text')
    expect(sanitizeLine('\u001b]52;c;Y2xpcA==\u009cafter')).toBe('after')
    expect(sanitizeLine('\u001bPq#0;2;0;0;0\u001b\\x')).toBe('x')
    expect(sanitizeLine('\u001b(Bplain\u001b7\u001b8')).toBe('plain')
    expect(sanitizeLine('\u001b[2J\u001b[Hclear')).toBe('clear')
  })

  it('applies carriage returns like a terminal', () => {
    expect(sanitizeLine('progress 10%\rprogress 100%')).toBe('progress 100%')
    expect(sanitizeLine('abcdef\rXY')).toBe('XYcdef')
    expect(sanitizeLine('done\r')).toBe('done')
  })

  it('applies carriage returns exactly like replaying the writes, without the quadratic replay (property)', () => {
    const replay = (text: string): string => {
      let screen = ''
      for (const segment of text.split('\r')) screen = segment + screen.slice(segment.length)
      return screen
    }
    const piece = fc.oneof(fc.string({ maxLength: 8 }), fc.constant('\r'))
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('')
        expect(sanitizeLine(text)).toBe(sanitizeLine(replay(text)))
      }),
      { numRuns: 500 },
    )
    expect(sanitizeLine(`${'x'.repeat(50_000)}${'\r'.repeat(50_000)}ab`)).toBe(`ab${'x'.repeat(49_998)}`)
  })

  it('shows other control characters and bidi overrides as replacement characters, keeps tabs', () => {
    expect(sanitizeLine('a\u0000b\u0007c\u007fd\u0085e')).toBe('a\uFFFDb\uFFFDc\uFFFDd\uFFFDe')
    expect(sanitizeLine('x\u202Ey\u2066z')).toBe('x\uFFFDy\uFFFDz')
    expect(sanitizeLine('lone \u001b')).toBe('lone \uFFFD')
    expect(sanitizeLine('a\tb')).toBe('a\tb')
  })

  it('replaces bidi marks, isolates and line/paragraph separators too (Trojan Source)', () => {
    expect(sanitizeLine('a\u200fb\u061cc\u2028d\u2029e\u2067f')).toBe('a\uFFFDb\uFFFDc\uFFFDd\uFFFDe\uFFFDf')
    expect(sanitizeLine('\u0080\u0081\u001f')).toBe('\uFFFD\uFFFD\uFFFD')
  })

  it('keeps unicode text as it is', () => {
    expect(sanitizeLine('héllo 😀 שלום 👍🏽')).toBe('héllo 😀 שלום 👍🏽')
  })

  it('never lets an escape or control character through (property)', () => {
    const piece = fc.oneof(
      fc.string(),
      hostileString,
      fc.constantFrom('\u001b', '\u009b', '\u009d', '\u0007', '\r', '[', ']', ';', '0', 'm', '\\', '(', 'P'),
    )
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        expect(sanitizeLine(pieces.join(''))).not.toMatch(/[^\P{Cc}\t]|[\p{Bidi_Control}\p{Zl}\p{Zp}]/u)
      }),
      { numRuns: 500 },
    )
  })
})

describe('sanitizedLines', () => {
  it('splits on LF and CRLF without a trailing empty line', () => {
    expect(sanitizedLines('a\r\nb\nc\n')).toEqual(['a', 'b', 'c'])
    expect(sanitizedLines('a\n\nb')).toEqual(['a', '', 'b'])
    expect(sanitizedLines('')).toEqual([])
    expect(sanitizedLines('\n')).toEqual([''])
  })
})

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MAX_ARGUMENT_DEPTH, parseArgumentsJson } from './lossless-json.js'

const problemOf = (text: string): string => {
  const parsed = parseArgumentsJson(text)
  if (parsed.ok) throw new Error(`expected a problem for ${text}`)
  return parsed.problem
}

describe('parseArgumentsJson', () => {
  it('reads every JSON text JSON.stringify writes as JSON.parse does (no -0)', () => {
    fc.assert(
      fc.property(fc.jsonValue().filter((value) => !JSON.stringify(value).includes('-0')), fc.constantFrom(undefined, 2), (value, indent) => {
        const text = JSON.stringify(value, null, indent)
        expect(parseArgumentsJson(text)).toEqual({ ok: true, value: JSON.parse(text) })
      }),
      { numRuns: 500 },
    )
  })

  it('never throws, and rejects every text JSON.parse rejects', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.jsonValue().map((value) => JSON.stringify(value).slice(1))), (text) => {
        const parsed = parseArgumentsJson(text)
        let accepted = true
        try {
          JSON.parse(text)
        } catch {
          accepted = false
        }
        if (!accepted) expect(parsed.ok).toBe(false)
      }),
      { numRuns: 1000 },
    )
  })

  it('keeps "__proto__" as an own key instead of setting the prototype', () => {
    const parsed = parseArgumentsJson('{"__proto__": {"polluted": true}}')
    expect(parsed.ok).toBe(true)
    const value = (parsed as { value: Record<string, unknown> }).value
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(Object.keys(value)).toEqual(['__proto__'])
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
  })

  it('rejects a key that appears twice (JSON.parse would silently keep the last)', () => {
    expect(problemOf('{"path": "/etc/passwd", "path": "/tmp/x"}')).toBe('the key "path" appears twice in one object')
  })

  it('rejects numbers that a 64-bit float cannot hold exactly, and says what they would become', () => {
    expect(problemOf('{"id": 12345678901234567891}')).toContain('the number 12345678901234567891 has more precision than a 64-bit number holds (it would become 12345678901234567000)')
    expect(problemOf('{"x": 0.1000000000000000000001}')).toContain('more precision')
    expect(problemOf('{"x": 1e400}')).toBe('the number 1e400 is too large to represent')
    expect(problemOf('{"x": -0}')).toContain('negative zero')
    expect(problemOf('{"x": 1e-400}')).toContain('more precision')
  })

  it('accepts the same number written differently (exponents, trailing zeros)', () => {
    expect(parseArgumentsJson('[1.50, 1e2, 100E-2, 0.0, 9007199254740991, 5e-324]')).toEqual({ ok: true, value: [1.5, 100, 1, 0, 9007199254740991, 5e-324] })
  })

  it('rejects deeper nesting than MAX_ARGUMENT_DEPTH without overflowing the stack', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`
    expect(problemOf(deep)).toBe(`the value nests deeper than ${MAX_ARGUMENT_DEPTH} levels`)
    const fine = `${'['.repeat(MAX_ARGUMENT_DEPTH)}${']'.repeat(MAX_ARGUMENT_DEPTH)}`
    expect(parseArgumentsJson(fine).ok).toBe(true)
  })

  it('names the place of a syntax error', () => {
    expect(problemOf('{"a": 1,}')).toBe('expected a key in double quotes, got character "}" at position 8')
    expect(problemOf('{"a": 1')).toBe('expected "," or "}" in an object, got end of text')
    expect(problemOf('')).toBe('unexpected end of text')
    expect(problemOf('{"a": "b\u0001"}')).toContain('control character (U+0001)')
    expect(problemOf('{"a": 1} trailing')).toBe('unexpected character "t" at position 9 after the value')
    expect(problemOf("{'a': 1}")).toContain('expected a key in double quotes')
  })
})

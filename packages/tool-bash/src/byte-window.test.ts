import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ByteWindow } from './byte-window.js'
import { completePrefixLength, continuationPrefixLength } from './utf8-boundary.js'

const replacement = '\uFFFD'

/** Characters of every UTF-8 length, so cuts land inside 2-, 3- and 4-byte sequences. */
const character = fc.oneof(
  fc.constantFrom('a', 'Z', '\n', ' ', 'é', 'ß', '€', '中', '😀', '𝄞'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }).filter((value) => !value.includes(replacement)),
)
const text = fc.array(character, { maxLength: 120 }).map((characters) => characters.join(''))

/** Splits `bytes` at the given (sorted, deduplicated) offsets. */
function chunksOf(bytes: Buffer, cuts: number[]): Buffer[] {
  const offsets = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b)
  const chunks: Buffer[] = []
  let start = 0
  for (const offset of offsets) {
    chunks.push(bytes.subarray(start, offset))
    start = offset
  }
  chunks.push(bytes.subarray(start))
  return chunks
}

describe('utf8 boundaries', () => {
  it('completePrefixLength leaves out only an unfinished trailing character', () => {
    const euro = Buffer.from('a€', 'utf8') // 61 e2 82 ac
    expect(completePrefixLength(euro)).toBe(4)
    expect(completePrefixLength(euro, 3)).toBe(1)
    expect(completePrefixLength(euro, 2)).toBe(1)
    expect(completePrefixLength(euro, 1)).toBe(1)
    expect(completePrefixLength(Buffer.from([0xe2, 0x41]))).toBe(2) // already invalid: nothing to wait for
    expect(completePrefixLength(Buffer.from([0x80, 0x80, 0x80, 0x80]))).toBe(4)
  })

  it('continuationPrefixLength skips at most three continuation bytes', () => {
    expect(continuationPrefixLength(Buffer.from('€', 'utf8'), 1)).toBe(2)
    expect(continuationPrefixLength(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x41]))).toBe(3)
    expect(continuationPrefixLength(Buffer.from('abc'))).toBe(0)
  })
})

describe('ByteWindow', () => {
  it('keeps everything that fits', () => {
    const window = new ByteWindow(16)
    window.push(Buffer.from('hello '))
    window.push(Buffer.from('world'))
    expect(window.truncated).toBe(false)
    expect(window.take(true)).toMatchObject({ head: 'hello world', tail: '', omittedBytes: 0, totalBytes: 11 })
  })

  it('keeps head and tail of what does not fit and counts the middle', () => {
    const window = new ByteWindow(8)
    for (const chunk of ['0123', '4567', '89ab', 'cdef']) window.push(Buffer.from(chunk))
    expect(window.truncated).toBe(true)
    expect(window.take(true)).toMatchObject({ head: '0123', tail: 'cdef', omittedBytes: 8, totalBytes: 16 })
  })

  it('stays bounded by the window plus one chunk whatever it is fed', () => {
    const window = new ByteWindow(1024)
    const chunk = Buffer.alloc(700, 0x61)
    for (let index = 0; index < 10_000; index += 1) window.push(chunk)
    const held = (window as unknown as { tail: Buffer[] }).tail.reduce((sum, piece) => sum + piece.length, 0)
    expect(held).toBeLessThanOrEqual(512 + chunk.length)
    expect(window.take(true).omittedBytes).toBe(7_000_000 - 1024)
  })

  it('never cuts a character into replacement characters, and accounts for every byte', () => {
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 8 }), fc.integer({ min: 8, max: 48 }), (input, cuts, limit) => {
        const bytes = Buffer.from(input, 'utf8')
        const window = new ByteWindow(limit)
        for (const chunk of chunksOf(bytes, cuts)) window.push(chunk)
        const taken = window.take(true)
        expect(taken.head.includes(replacement)).toBe(false)
        expect(taken.tail.includes(replacement)).toBe(false)
        expect(taken.totalBytes).toBe(bytes.length)
        const headBytes = Buffer.byteLength(taken.head)
        const tailBytes = Buffer.byteLength(taken.tail)
        expect(headBytes + taken.omittedBytes + tailBytes).toBe(bytes.length)
        expect(input.startsWith(taken.head)).toBe(true)
        expect(input.endsWith(taken.tail)).toBe(true)
        if (bytes.length <= limit) {
          expect(taken).toMatchObject({ head: input, tail: '', omittedBytes: 0 })
        } else {
          const headLimit = Math.floor(limit / 2)
          expect(headBytes).toBeLessThanOrEqual(headLimit)
          expect(headBytes).toBeGreaterThan(headLimit - 4)
          expect(tailBytes).toBeLessThanOrEqual(limit - headLimit)
          expect(tailBytes).toBeGreaterThan(limit - headLimit - 4)
        }
      }),
      { numRuns: 500 },
    )
  })

  it('incremental takes hold back split characters and lose nothing when the window is large enough', () => {
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 10 }), fc.array(fc.boolean(), { maxLength: 12 }), (input, cuts, reads) => {
        const bytes = Buffer.from(input, 'utf8')
        let window = new ByteWindow(4096)
        const pieces: string[] = []
        const takeNow = (final: boolean): void => {
          const taken = window.take(final)
          expect(taken.head.includes(replacement)).toBe(false)
          pieces.push(taken.head)
          window = new ByteWindow(4096)
          window.push(taken.carry)
        }
        chunksOf(bytes, cuts).forEach((chunk, index) => {
          window.push(chunk)
          if (reads[index] === true) takeNow(false)
        })
        takeNow(true)
        expect(pieces.join('')).toBe(input)
      }),
      { numRuns: 500 },
    )
  })

  it('incremental takes through a small window stay free of replacement characters and account for every byte', () => {
    fc.assert(
      fc.property(
        text,
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.array(fc.boolean(), { maxLength: 12 }),
        fc.integer({ min: 8, max: 24 }),
        (input, cuts, reads, limit) => {
          const bytes = Buffer.from(input, 'utf8')
          let window = new ByteWindow(limit)
          let accounted = 0
          const takeNow = (final: boolean): void => {
            const taken = window.take(final)
            for (const part of [taken.head, taken.tail]) expect(part.includes(replacement)).toBe(false)
            expect(Buffer.byteLength(taken.head) + taken.omittedBytes + Buffer.byteLength(taken.tail)).toBe(taken.totalBytes)
            accounted += taken.totalBytes
            window = new ByteWindow(limit)
            window.push(taken.carry)
          }
          chunksOf(bytes, cuts).forEach((chunk, index) => {
            window.push(chunk)
            if (reads[index] === true) takeNow(false)
          })
          takeNow(true)
          expect(accounted).toBe(bytes.length)
        },
      ),
      { numRuns: 500 },
    )
  })

  it('decodes genuinely invalid bytes as replacement characters instead of dropping them', () => {
    const window = new ByteWindow(64)
    window.push(Buffer.from([0x61, 0xff, 0x62, 0xe2, 0x82]))
    expect(window.take(true).head).toBe(`a${replacement}b${replacement}`)
  })
})

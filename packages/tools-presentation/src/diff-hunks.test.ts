import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { computeDiffHunks, fileDiffHunks, firstChangedLine, type DiffHunk } from './diff-hunks.js'

/** Unified-diff text of hunks, the way `diff -u` prints them (for readable expectations). */
function unified(hunks: DiffHunk[]): string {
  const out: string[] = []
  for (const hunk of hunks) {
    out.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`)
    for (const line of hunk.lines) {
      out.push(`${line.kind === 'add' ? '+' : line.kind === 'remove' ? '-' : ' '}${line.text}${line.eol === '\r\n' ? '␍' : ''}`)
      if (line.eol === '') out.push('\\ No newline at end of file')
    }
  }
  return out.join('\n')
}

/** Applies hunks to the old text: the new text must come out, byte for byte. */
function apply(oldText: string | null, hunks: DiffHunk[]): string {
  const oldLines = oldText === null ? [] : (oldText.match(/[^\n]*\n|[^\n]+$/g) ?? [])
  let result = ''
  let next = 0
  for (const hunk of hunks) {
    const start = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1
    result += oldLines.slice(next, start).join('')
    next = start
    for (const line of hunk.lines) {
      if (line.kind === 'add') result += line.text + line.eol
      else {
        expect(oldLines[next]).toBe(line.text + line.eol)
        if (line.kind === 'context') result += line.text + line.eol
        next += 1
      }
    }
  }
  return result + oldLines.slice(next).join('')
}

const lines = (count: number, prefix = 'line'): string =>
  Array.from({ length: count }, (_, index) => `${prefix} ${index + 1}\n`).join('')

describe('computeDiffHunks', () => {
  it('gives no hunks for equal texts', () => {
    expect(computeDiffHunks('a\nb\n', 'a\nb\n')).toEqual([])
    expect(computeDiffHunks('', '')).toEqual([])
  })

  it('numbers lines and keeps 3 lines of context by default', () => {
    const before = lines(10)
    const after = before.replace('line 5\n', 'line five\n')
    const [hunk, ...rest] = computeDiffHunks(before, after)
    expect(rest).toEqual([])
    expect(hunk).toMatchObject({ oldStart: 2, oldLines: 7, newStart: 2, newLines: 7 })
    expect(hunk!.lines.filter((line) => line.kind !== 'context')).toEqual([
      { kind: 'remove', text: 'line 5', eol: '\n', oldLine: 5 },
      { kind: 'add', text: 'line five', eol: '\n', newLine: 5 },
    ])
    expect(hunk!.lines[0]).toEqual({ kind: 'context', text: 'line 2', eol: '\n', oldLine: 2, newLine: 2 })
  })

  it('splits distant changes into several hunks and merges close ones', () => {
    const before = lines(30)
    const after = before.replace('line 3\n', 'line three\n').replace('line 25\n', '').replace('line 10\n', 'line 10\nextra\n')
    expect(unified(computeDiffHunks(before, after))).toBe(
      [
        '@@ -1,6 +1,6 @@',
        ' line 1',
        ' line 2',
        '-line 3',
        '+line three',
        ' line 4',
        ' line 5',
        ' line 6',
        '@@ -8,6 +8,7 @@',
        ' line 8',
        ' line 9',
        ' line 10',
        '+extra',
        ' line 11',
        ' line 12',
        ' line 13',
        '@@ -22,7 +23,6 @@',
        ' line 22',
        ' line 23',
        ' line 24',
        '-line 25',
        ' line 26',
        ' line 27',
        ' line 28',
      ].join('\n'),
    )
    // Six unchanged lines between two changes (= 2 × context) still make one hunk.
    const close = lines(20).replace('line 3\n', 'x\n').replace('line 10\n', 'y\n')
    expect(computeDiffHunks(lines(20), close)).toHaveLength(1)
    expect(computeDiffHunks(lines(20), lines(20).replace('line 3\n', 'x\n').replace('line 11\n', 'y\n'))).toHaveLength(2)
  })

  it('honours the context option, including 0 and Infinity', () => {
    const before = lines(10)
    const after = before.replace('line 5\n', 'five\n')
    expect(unified(computeDiffHunks(before, after, { context: 0 }))).toBe('@@ -5,1 +5,1 @@\n-line 5\n+five')
    const whole = computeDiffHunks(before, after, { context: Number.POSITIVE_INFINITY })
    expect(whole).toHaveLength(1)
    expect(whole[0]).toMatchObject({ oldStart: 1, oldLines: 10, newStart: 1, newLines: 10 })
    expect(() => computeDiffHunks('a', 'b', { context: -1 })).toThrow(RangeError)
  })

  it('shows a new file (old text null) as one hunk of added lines', () => {
    expect(unified(computeDiffHunks(null, 'one\ntwo\n'))).toBe('@@ -0,0 +1,2 @@\n+one\n+two')
    expect(computeDiffHunks(null, '')).toEqual([])
  })

  it('shows a deleted-to-empty file as removed lines against an empty range', () => {
    expect(unified(computeDiffHunks('one\ntwo\n', ''))).toBe('@@ -1,2 +0,0 @@\n-one\n-two')
  })

  it('marks a missing trailing newline and treats adding one as a change', () => {
    const hunks = computeDiffHunks('a\nb', 'a\nb\nc')
    expect(unified(hunks)).toBe('@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+c\n\\ No newline at end of file')
    expect(unified(computeDiffHunks('a\nb\n', 'a\nb'))).toBe('@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file')
  })

  it('keeps CRLF line endings out of the text and reports them in eol', () => {
    const hunks = computeDiffHunks('one\r\ntwo\r\nthree\r\n', 'one\r\n2\r\nthree\r\n')
    expect(hunks[0]!.lines).toEqual([
      { kind: 'context', text: 'one', eol: '\r\n', oldLine: 1, newLine: 1 },
      { kind: 'remove', text: 'two', eol: '\r\n', oldLine: 2 },
      { kind: 'add', text: '2', eol: '\r\n', newLine: 2 },
      { kind: 'context', text: 'three', eol: '\r\n', oldLine: 3, newLine: 3 },
    ])
  })

  it('shows a LF → CRLF conversion as changed lines with the same text', () => {
    expect(unified(computeDiffHunks('a\nb\n', 'a\r\nb\r\n'))).toBe('@@ -1,2 +1,2 @@\n-a\n-b\n+a␍\n+b␍')
  })

  it('keeps unicode text intact (astral characters, combining marks, RTL)', () => {
    const before = 'héllo\n😀 smile\nשלום\n'
    const after = 'héllo\n😀 grin 👍🏽\nשלום\n'
    const [hunk] = computeDiffHunks(before, after)
    expect(hunk!.lines.map((line) => `${line.kind}:${line.text}`)).toEqual([
      'context:héllo',
      'remove:😀 smile',
      'add:😀 grin 👍🏽',
      'context:שלום',
    ])
  })

  it('falls back to one replace block past maxEditLength, still correct', () => {
    const before = lines(50, 'old')
    const after = `keep\n${lines(50, 'new')}`
    const hunks = computeDiffHunks(`keep\n${before}`, after, { maxEditLength: 5 })
    expect(hunks).toHaveLength(1)
    expect(hunks[0]!.lines.filter((line) => line.kind === 'remove')).toHaveLength(50)
    expect(apply(`keep\n${before}`, hunks)).toBe(after)
  })

  it('applying the hunks to the old text gives the new text (property)', () => {
    const line = fc.constantFrom('a', 'b', 'c', '', 'é', '😀', 'a b')
    const eol = fc.constantFrom('\n', '\r\n')
    const text = fc
      .tuple(fc.array(fc.tuple(line, eol), { maxLength: 25 }), fc.constantFrom('', 'z', 'a'))
      .map(([body, last]) => body.map(([content, ending]) => content + ending).join('') + last)
    fc.assert(
      fc.property(fc.option(text, { nil: null }), text, fc.integer({ min: 0, max: 4 }), (before, after, context) => {
        const hunks = computeDiffHunks(before, after, { context })
        expect(apply(before, hunks)).toBe(after)
        for (const hunk of hunks) {
          const oldCount = hunk.lines.filter((entry) => entry.kind !== 'add').length
          const newCount = hunk.lines.filter((entry) => entry.kind !== 'remove').length
          expect([hunk.oldLines, hunk.newLines]).toEqual([oldCount, newCount])
          expect(hunk.lines.some((entry) => entry.kind !== 'context')).toBe(true)
        }
      }),
      { numRuns: 400 },
    )
  })
})

describe('fileDiffHunks', () => {
  it('counts additions and deletions and names the status', () => {
    expect(fileDiffHunks({ path: '/p/a.ts', oldText: 'a\nb\n', newText: 'a\nc\nd\n' })).toMatchObject({
      path: '/p/a.ts',
      status: 'modified',
      additions: 2,
      deletions: 1,
    })
    expect(fileDiffHunks({ path: '/p/new.ts', oldText: null, newText: 'x\n' })).toMatchObject({ status: 'created', additions: 1 })
    expect(fileDiffHunks({ path: '/p/same.ts', oldText: 'x', newText: 'x' })).toMatchObject({ status: 'unchanged', hunks: [] })
  })
})

describe('firstChangedLine', () => {
  it('finds the first differing line of the new text', () => {
    expect(firstChangedLine(null, '')).toBe(1)
    expect(firstChangedLine('a\nb\nc\n', 'a\nb\nc\n')).toBeUndefined()
    expect(firstChangedLine('a\nb\nc\n', 'a\nB\nc\n')).toBe(2)
    expect(firstChangedLine('a\nb\n', 'a\r\nb\n')).toBe(1)
    expect(firstChangedLine('a\nb\nc\n', 'a\n')).toBe(1)
    expect(firstChangedLine('a\nb\n', 'a\nb\nc\n')).toBe(3)
  })
})

import type { FileDiff } from '@dsh/tools-core'
import { diffArrays } from 'diff'

/** How a line ends: a newline, a CRLF, or nothing (the last line of a file without a trailing newline). */
export type LineEnding = '\n' | '\r\n' | ''

/** One line of a hunk. */
export interface DiffLine {
  /** `context` lines are unchanged; `remove` lines are only in the old text, `add` lines only in the new. */
  kind: 'context' | 'add' | 'remove'
  /** The line's text, without its line ending. */
  text: string
  /** How the line ends. `''` marks the last line of a file without a trailing newline. */
  eol: LineEnding
  /** 1-based line number in the old text (`context` and `remove` lines). */
  oldLine?: number
  /** 1-based line number in the new text (`context` and `add` lines). */
  newLine?: number
}

/** One hunk, numbered like a unified diff's `@@ -oldStart,oldLines +newStart,newLines @@`. */
export interface DiffHunk {
  /** First old line of the hunk (1-based); when `oldLines` is 0, the line after which the lines were added. */
  oldStart: number
  /** How many old lines the hunk covers (context plus removed). */
  oldLines: number
  /** First new line of the hunk (1-based); when `newLines` is 0, the line after which the lines were removed. */
  newStart: number
  /** How many new lines the hunk covers (context plus added). */
  newLines: number
  /** The lines: context, then each change's removed lines before its added lines. */
  lines: DiffLine[]
}

/** Options of {@link computeDiffHunks}. */
export interface DiffHunkOptions {
  /** Unchanged lines shown around each change (default 3). Hunks closer than twice this merge into one. */
  context?: number
  /**
   * The largest edit distance (in lines) worth a minimal diff (default 1000). Beyond it the changed middle, between
   * the common head and tail, is shown as one block of removed then added lines, so a huge rewrite stays cheap.
   */
  maxEditLength?: number
}

/** A {@link FileDiff} as hunks, with counts a UI shows next to the path. */
export interface FileDiffHunks {
  /** The file's path, as in the {@link FileDiff}. */
  path: string
  /** `created` when there was no old text; `unchanged` when old and new text are equal. */
  status: 'created' | 'modified' | 'unchanged'
  /** The hunks. */
  hunks: DiffHunk[]
  /** Lines added. */
  additions: number
  /** Lines removed. */
  deletions: number
}

interface SourceLine {
  readonly text: string
  readonly eol: LineEnding
}

function splitLines(text: string): SourceLine[] {
  const lines: SourceLine[] = []
  let start = 0
  while (start < text.length) {
    const newline = text.indexOf('\n', start)
    if (newline === -1) {
      lines.push({ text: text.slice(start), eol: '' })
      break
    }
    const crlf = newline > start && text.charCodeAt(newline - 1) === 13
    lines.push({ text: text.slice(start, crlf ? newline - 1 : newline), eol: crlf ? '\r\n' : '\n' })
    start = newline + 1
  }
  return lines
}

/** A run of changed lines: old `[oldStart, oldEnd)` became new `[newStart, newEnd)`. */
interface ChangeBlock {
  oldStart: number
  oldEnd: number
  newStart: number
  newEnd: number
}

function changeBlocks(oldKeys: readonly string[], newKeys: readonly string[], maxEditLength: number): ChangeBlock[] {
  let head = 0
  const shorter = Math.min(oldKeys.length, newKeys.length)
  while (head < shorter && oldKeys[head] === newKeys[head]) head += 1
  let tail = 0
  while (
    tail < shorter - head &&
    oldKeys[oldKeys.length - 1 - tail] === newKeys[newKeys.length - 1 - tail]
  ) {
    tail += 1
  }
  const oldEnd = oldKeys.length - tail
  const newEnd = newKeys.length - tail
  if (head === oldEnd && head === newEnd) return []
  if (head === oldEnd || head === newEnd) return [{ oldStart: head, oldEnd, newStart: head, newEnd }]

  const changes = diffArrays(oldKeys.slice(head, oldEnd), newKeys.slice(head, newEnd), { maxEditLength })
  if (changes === undefined) return [{ oldStart: head, oldEnd, newStart: head, newEnd }]

  const blocks: ChangeBlock[] = []
  let oldIndex = head
  let newIndex = head
  let pending: ChangeBlock | undefined
  for (const change of changes) {
    if (!change.added && !change.removed) {
      if (pending !== undefined) blocks.push(pending)
      pending = undefined
      oldIndex += change.count
      newIndex += change.count
      continue
    }
    pending ??= { oldStart: oldIndex, oldEnd: oldIndex, newStart: newIndex, newEnd: newIndex }
    if (change.removed) {
      oldIndex += change.count
      pending.oldEnd = oldIndex
    } else {
      newIndex += change.count
      pending.newEnd = newIndex
    }
  }
  if (pending !== undefined) blocks.push(pending)
  return blocks
}

function validCount(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback
  if (value === Number.POSITIVE_INFINITY || (Number.isInteger(value) && value >= 0)) return value
  throw new RangeError(`${name} must be a non-negative integer or Infinity, got ${String(value)}`)
}

/**
 * The hunks that turn `oldText` into `newText`, with `context` unchanged lines around each change, ready for a UI.
 * `oldText` `null` (a new file) gives one hunk of added lines. Lines are compared with their endings, so a CRLF
 * ↔ LF change and a missing final newline show up as changed lines (see {@link DiffLine.eol}).
 */
export function computeDiffHunks(oldText: string | null, newText: string, options: DiffHunkOptions = {}): DiffHunk[] {
  const context = validCount(options.context, 3, 'context')
  const maxEditLength = validCount(options.maxEditLength, 1000, 'maxEditLength')
  const oldLines = oldText === null ? [] : splitLines(oldText)
  const newLines = splitLines(newText)
  const blocks = changeBlocks(
    oldLines.map((line) => line.text + line.eol),
    newLines.map((line) => line.text + line.eol),
    maxEditLength,
  )

  const hunks: DiffHunk[] = []
  let index = 0
  while (index < blocks.length) {
    let last = index
    while (last + 1 < blocks.length && blocks[last + 1]!.oldStart - blocks[last]!.oldEnd <= 2 * context) last += 1
    const first = blocks[index]!
    const final = blocks[last]!
    const oldFrom = Math.max(0, first.oldStart - context)
    const oldTo = Math.min(oldLines.length, final.oldEnd + context)
    const newFrom = first.newStart - (first.oldStart - oldFrom)
    const newTo = final.newEnd + (oldTo - final.oldEnd)

    const lines: DiffLine[] = []
    let oldIndex = oldFrom
    let newIndex = newFrom
    const pushContext = (until: number): void => {
      while (oldIndex < until) {
        const line = oldLines[oldIndex]!
        lines.push({ kind: 'context', text: line.text, eol: line.eol, oldLine: oldIndex + 1, newLine: newIndex + 1 })
        oldIndex += 1
        newIndex += 1
      }
    }
    for (let blockIndex = index; blockIndex <= last; blockIndex += 1) {
      const block = blocks[blockIndex]!
      pushContext(block.oldStart)
      for (; oldIndex < block.oldEnd; oldIndex += 1) {
        const line = oldLines[oldIndex]!
        lines.push({ kind: 'remove', text: line.text, eol: line.eol, oldLine: oldIndex + 1 })
      }
      for (; newIndex < block.newEnd; newIndex += 1) {
        const line = newLines[newIndex]!
        lines.push({ kind: 'add', text: line.text, eol: line.eol, newLine: newIndex + 1 })
      }
    }
    pushContext(oldTo)

    const oldCount = oldTo - oldFrom
    const newCount = newTo - newFrom
    hunks.push({
      oldStart: oldCount === 0 ? oldFrom : oldFrom + 1,
      oldLines: oldCount,
      newStart: newCount === 0 ? newFrom : newFrom + 1,
      newLines: newCount,
      lines,
    })
    index = last + 1
  }
  return hunks
}

/** The hunks of one {@link FileDiff}, with its status and added/removed line counts. */
export function fileDiffHunks(diff: FileDiff, options: DiffHunkOptions = {}): FileDiffHunks {
  const hunks = computeDiffHunks(diff.oldText, diff.newText, options)
  let additions = 0
  let deletions = 0
  for (const hunk of hunks) {
    for (const line of hunk.lines) {
      if (line.kind === 'add') additions += 1
      else if (line.kind === 'remove') deletions += 1
    }
  }
  const status = diff.oldText === null ? 'created' : hunks.length === 0 ? 'unchanged' : 'modified'
  return { path: diff.path, status, hunks, additions, deletions }
}

/**
 * The 1-based line of the new text where it first differs from the old text (line 1 for a new file), or
 * `undefined` when they are equal. Cheap: one scan, no diff.
 */
export function firstChangedLine(oldText: string | null, newText: string): number | undefined {
  if (oldText === null) return 1
  if (oldText === newText) return undefined
  const shorter = Math.min(oldText.length, newText.length)
  let at = 0
  while (at < shorter && oldText.charCodeAt(at) === newText.charCodeAt(at)) at += 1
  let before = 0
  let total = 0
  for (let index = newText.indexOf('\n'); index !== -1; index = newText.indexOf('\n', index + 1)) {
    total += 1
    if (index < at) before += 1
  }
  const lineCount = total + (newText.length > 0 && !newText.endsWith('\n') ? 1 : 0)
  return Math.max(1, Math.min(before + 1, lineCount))
}

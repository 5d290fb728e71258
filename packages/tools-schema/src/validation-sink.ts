// What a validation records: violations with their paths, built as the walk unwinds. Shared by both backends.
import { formatJsonPath, type JsonPathSegment } from '@dsh/tools-core'
import { describeValue, errorText } from './describe-value.js'
import type { ViolationKeyword, Violation } from './violation.js'

interface PendingViolation {
  /** The path, innermost segment first (segments are added as the walk unwinds). */
  readonly reversed: JsonPathSegment[]
  /** The formatted path so far, each segment as its piece (`.name`, `[3]`, `["odd key"]`). */
  text: string
  readonly keyword: ViolationKeyword
  readonly message: string
}

/**
 * How one segment looks inside a formatted path: `.name`, `[3]`, `["odd key"]`. Built with tools-core's
 * `formatJsonPath`, so composing pieces gives exactly its output (a leading `.` is dropped at the end).
 */
export function pathPiece(segment: JsonPathSegment): string {
  return typeof segment === 'number' ? `[${segment}]` : formatJsonPath(['_', segment]).slice(1)
}

/**
 * Collects violations during one validation. `keep` of them are stored; all are counted; the walk stops once
 * `stopAt` have been counted.
 */
export class Sink {
  readonly list: PendingViolation[] = []
  count = 0

  constructor(
    readonly keep: number,
    readonly stopAt: number,
  ) {}

  get stopped(): boolean {
    return this.count >= this.stopAt
  }

  add(keyword: ViolationKeyword, message: string, reversed: JsonPathSegment[] = [], text = ''): void {
    this.count++
    if (this.list.length < this.keep) this.list.push({ reversed, text, keyword, message })
  }

  /** Adds a segment to the paths of every violation stored since `mark` (they happened one level down). */
  prefix(mark: number, segment: JsonPathSegment, piece: string): void {
    const list = this.list
    for (let index = mark; index < list.length; index++) {
      const violation = list[index] as PendingViolation
      violation.reversed.push(segment)
      violation.text = piece + violation.text
    }
  }

  /** The stored violations, finished. Call it once, at the end: it reuses the stored segment arrays. */
  violations(): Violation[] {
    return this.list.map(({ reversed, text, keyword, message }) => ({
      path: text.charCodeAt(0) === 46 ? text.slice(1) : text,
      segments: reversed.reverse(),
      keyword,
      message,
    }))
  }
}

/**
 * A compiled check. With `sink === null` it answers as fast as it can and stops at the first problem; with a sink
 * it records violations (paths are completed by the callers as the walk unwinds) until the sink says stop.
 * Object and array checks catch what reading the value throws, so a check never throws.
 */
export type Check = (value: unknown, sink: Sink | null) => boolean

/** Records `expected <what>, got <value>` (with a sink) and answers `false`. */
export function mismatch(sink: Sink | null, expected: string, value: unknown): false {
  if (sink !== null) sink.add('type', `expected ${expected}, got ${describeValue(value)}`)
  return false
}

/** Records that reading the value threw (with a sink) and answers `false`. */
export function unreadable(sink: Sink | null, error: unknown): false {
  if (sink !== null) sink.add('unreadable', `reading the value threw: ${errorText(error)}`)
  return false
}

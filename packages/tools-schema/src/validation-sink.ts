// What a validation records: violations with their paths, built as the walk unwinds. Shared by both backends.
import { formatJsonPath, type JsonPathSegment, type JsonPrimitive } from '@dsh/tools-core'
import { describeValue, errorText, literal } from './describe-value.js'
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

/**
 * What a node expects, for its type messages: `expected <text>, got <value>`, with the beginnings of the two
 * commonest messages built once (so that a message about a string or a number is two concatenations, which V8
 * keeps as a rope until the text is read).
 */
export interface Expectation {
  /** `an integer`, `an object`, … */
  readonly text: string
  /** `expected an integer, got ` */
  readonly other: string
  /** `expected an integer, got the string "` */
  readonly string: string
  /** `expected an integer, got the number ` */
  readonly number: string
}

/** The {@link Expectation} of a type named `text` (`an integer`). */
export function expectation(text: string): Expectation {
  return { text, other: `expected ${text}, got `, string: `expected ${text}, got the string "`, number: `expected ${text}, got the number ` }
}

/** The longest string `describeValue` quotes whole (see describe-value.ts: longer ones are shortened). */
const wholeLiteral = 38

/** Whether `describeValue` quotes `text` as it is (`"text"`): short, printable ASCII, no quote or backslash. */
function quotesAsIs(text: string): boolean {
  if (text.length > wholeLiteral) return false
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (code < 0x20 || code === 0x22 || code === 0x5c || code > 0x7e) return false
  }
  return true
}

/**
 * `expected <what>, got <value>`: the message of a value of the wrong type (both backends build it here). The
 * same text as `expected ${text}, got ${describeValue(value)}`, without building the description apart.
 */
export function typeMessage(expected: Expectation, value: unknown): string {
  if (typeof value === 'string') {
    if (quotesAsIs(value)) return expected.string + value + '"'
  } else if (typeof value === 'number') {
    if (value - value === 0 && (value !== 0 || 1 / value > 0)) return expected.number + value
  }
  return expected.other + describeValue(value)
}

/** Records `expected <what>, got <value>` (with a sink) and answers `false`. */
export function mismatch(sink: Sink | null, expected: Expectation, value: unknown): false {
  if (sink !== null) sink.add('type', typeMessage(expected, value))
  return false
}

/** The message of a value that is not a scalar node's `const` (a value of the node's type). */
export function constMessage(wanted: JsonPrimitive, value: unknown): string {
  return `expected ${literal(wanted)}, got ${literal(value as JsonPrimitive)}`
}

/** The message of a value outside a scalar node's `enum` (a value of the node's type); `list` names the members. */
export function enumMessage(list: string, value: unknown): string {
  return `expected one of ${list}, got ${literal(value as JsonPrimitive)}`
}

/** The message of a value whose reading threw. */
export function unreadableMessage(error: unknown): string {
  return `reading the value threw: ${errorText(error)}`
}

/** Records that reading the value threw (with a sink) and answers `false`. */
export function unreadable(sink: Sink | null, error: unknown): false {
  if (sink !== null) sink.add('unreadable', unreadableMessage(error))
  return false
}

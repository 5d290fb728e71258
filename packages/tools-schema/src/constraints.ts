// Value constraints (minLength … uniqueItems): which node types take them, how they are read and checked at
// definition time, and the rules and messages of their checks. One place for both validator backends: the closure
// backend calls these functions, the generated code inlines the same comparisons and calls the same helpers.
import type { JsonPathSegment } from '@dsh/tools-core'
import { describeValue, literal } from './describe-value.js'

/** The value constraints of one node, as written (the emitted JSON Schema carries them unchanged). */
export interface Constraints {
  readonly minLength?: number
  readonly maxLength?: number
  readonly pattern?: string
  readonly minimum?: number
  readonly maximum?: number
  readonly exclusiveMinimum?: number
  readonly exclusiveMaximum?: number
  readonly multipleOf?: number
  readonly minItems?: number
  readonly maxItems?: number
  readonly uniqueItems?: boolean
}

/** The keyword of a value constraint. */
export type ConstraintKeyword = keyof Constraints

type ConstraintTarget = 'string' | 'number' | 'array'

/** Keyword → the node types it applies to (`number` stands for number and integer). */
const targets: Readonly<Record<ConstraintKeyword, ConstraintTarget>> = {
  minLength: 'string',
  maxLength: 'string',
  pattern: 'string',
  minimum: 'number',
  maximum: 'number',
  exclusiveMinimum: 'number',
  exclusiveMaximum: 'number',
  multipleOf: 'number',
  minItems: 'array',
  maxItems: 'array',
  uniqueItems: 'array',
}

/** Constraint keywords in the order they are checked, read and emitted. */
export const constraintKeywords = Object.keys(targets) as readonly ConstraintKeyword[]

/** Whether `key` is a value-constraint keyword. */
export function isConstraintKeyword(key: string): key is ConstraintKeyword {
  return Object.hasOwn(targets, key)
}

const targetText: Readonly<Record<ConstraintTarget, string>> = {
  string: 'type "string"',
  number: 'types "number" and "integer"',
  array: 'type "array"',
}

/** Why a constraint keyword may not appear on a node of `kind`, or `undefined` when it may. */
export function constraintPlacementProblem(keyword: ConstraintKeyword, kind: string | undefined): string | undefined {
  const target = targets[keyword]
  if (kind === undefined || kind === target || (target === 'number' && kind === 'integer')) return undefined
  return `"${keyword}" only applies to ${targetText[target]}`
}

/** A compiled `pattern`: ECMA-262 with the `u` flag, as JSON Schema (and ajv) read it. */
const patterns = new Map<string, RegExp>()

/** The RegExp of a pattern source (compiled once per source); throws when it does not compile. */
export function patternRegExp(source: string): RegExp {
  let regexp = patterns.get(source)
  if (regexp === undefined) {
    regexp = new RegExp(source, 'u')
    if (patterns.size < 1000) patterns.set(source, regexp)
  }
  return regexp
}

type Report = (message: string, ...extra: JsonPathSegment[]) => void

/**
 * Reads the constraint keywords that apply to a node of `kind`, reporting every
 * problem with its keyword as the path: counts must be non-negative integers, bounds finite numbers,
 * `multipleOf` positive, `uniqueItems` a boolean, `pattern` a regular expression that compiles with the `u` flag;
 * bounds that leave nothing to match are reported too. `undefined` when the node has none.
 */
export function readConstraints(entries: ReadonlyMap<string, unknown>, kind: string, report: Report): Constraints | undefined {
  const read: Record<string, number | string | boolean> = {}
  let any = false
  for (const keyword of constraintKeywords) {
    // A misplaced keyword is reported where keys are checked.
    if (!entries.has(keyword) || constraintPlacementProblem(keyword, kind) !== undefined) continue
    const value = entries.get(keyword)
    const problem = valueProblem(keyword, value)
    if (problem !== undefined) report(problem, keyword)
    else {
      read[keyword] = value as number | string | boolean
      any = true
    }
  }
  if (!any) return undefined
  const constraints = read as Constraints
  const empty = (low: ConstraintKeyword, high: ConstraintKeyword, strict: boolean) => {
    const lower = constraints[low] as number | undefined
    const upper = constraints[high] as number | undefined
    if (lower !== undefined && upper !== undefined && (strict ? lower >= upper : lower > upper)) {
      report(`${low} ${lower} and ${high} ${upper} leave no value that matches`, high)
    }
  }
  empty('minLength', 'maxLength', false)
  empty('minItems', 'maxItems', false)
  empty('minimum', 'maximum', false)
  empty('exclusiveMinimum', 'maximum', true)
  empty('minimum', 'exclusiveMaximum', true)
  empty('exclusiveMinimum', 'exclusiveMaximum', true)
  return constraints
}

function valueProblem(keyword: ConstraintKeyword, value: unknown): string | undefined {
  switch (keyword) {
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
      return Number.isSafeInteger(value) && (value as number) >= 0 && !Object.is(value, -0)
        ? undefined
        : `${keyword} must be a non-negative integer, got ${describeValue(value)}`
    case 'multipleOf':
      return typeof value === 'number' && Number.isFinite(value) && value > 0
        ? undefined
        : `multipleOf must be a number greater than 0, got ${describeValue(value)}`
    case 'uniqueItems':
      return typeof value === 'boolean' ? undefined : `uniqueItems must be true or false, got ${describeValue(value)}`
    case 'pattern':
      if (typeof value !== 'string') return `pattern must be a string (a regular expression), got ${describeValue(value)}`
      try {
        patternRegExp(value)
        return undefined
      } catch (error) {
        return `pattern ${literal(value)} does not compile as an ECMA-262 regular expression with the u flag: ${(error as Error).message}`
      }
    default:
      return typeof value === 'number' && Number.isFinite(value) && !Object.is(value, -0)
        ? undefined
        : `${keyword} must be a finite number, got ${describeValue(value)}`
  }
}

/** Whether any constraint of a node actually restricts (`uniqueItems: false` alone does not). */
export function restricts(constraints: Constraints | undefined): constraints is Constraints {
  if (constraints === undefined) return false
  for (const keyword of constraintKeywords) {
    const value = constraints[keyword]
    if (value !== undefined && value !== false) return true
  }
  return false
}

/**
 * The length of a string in Unicode code points, as JSON Schema counts `minLength`/`maxLength`: a surrogate pair
 * is one character, a lone surrogate one too.
 */
export function codePointLength(text: string): number {
  let length = text.length
  const last = text.length - 1
  for (let index = 0; index < last; index++) {
    const code = text.charCodeAt(index)
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(index + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        length--
        index++
      }
    }
  }
  return length
}

/**
 * A finite number as the decimal it is written as in JSON (its shortest round-trip text): `digits · 10^exponent`,
 * with the sign dropped. `0.25` is `25 · 10^-2`, `1e+21` is `1 · 10^21`, `5e-324` is `5 · 10^-324`.
 */
function decimalOf(value: number): { digits: bigint; exponent: number } {
  const text = String(value < 0 ? -value : value)
  const e = text.indexOf('e')
  const mantissa = e === -1 ? text : text.slice(0, e)
  const dot = mantissa.indexOf('.')
  const exponent = (e === -1 ? 0 : Number(text.slice(e + 1))) - (dot === -1 ? 0 : mantissa.length - dot - 1)
  return { digits: BigInt(dot === -1 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1)), exponent }
}

/**
 * `multipleOf`, as JSON Schema defines it: dividing the value by the divisor gives an integer, for the decimal
 * numbers the JSON text holds (each number's shortest round-trip text), not for their nearest doubles. `0.3` is a
 * multiple of `0.1`, `19.99` of `0.01`, `1e308` of `0.5`; `0.35` is not a multiple of `0.1`. Exact at every
 * magnitude. Safe integers divide as integers; a value with no more decimal places than the divisor as a scaled
 * integer; others as decimals with BigInt (a few hundred digits at most, for the extremes of the double range).
 *
 * ajv divides the doubles instead (`0.3 / 0.1` is 2.9999999999999996, so it rejects `0.3`, and it rejects every
 * quotient past 10^21): the validators here follow the schema's meaning, which is also what a model that reads
 * `multipleOf: 0.01` means.
 */
export function isMultipleOf(value: number, divisor: number): boolean {
  if (Number.isSafeInteger(value) && Number.isSafeInteger(divisor)) return value % divisor === 0
  if (value === 0) return true
  if (divisor !== lastDivisor) prepareDivisor(divisor)
  if (lastPlaces >= 0) {
    // The divisor is b / 10^t (b a safe integer, t ≤ 22, so 10^t is an exact double). When the value has at most t
    // decimal places, value · 10^t is an integer W, and W / 10^t gives back the value's own double (a correctly
    // rounded division of exact operands): then value / divisor = W / b, exactly. Below 2^51 the product rounds to
    // W itself; a value with more places fails the round trip (its double is not the one of a t-place decimal).
    const scale = powersOfTen[lastPlaces] as number
    const whole = Math.round(value * scale)
    if (whole < 2 ** 51 && whole > -(2 ** 51) && whole / scale === value) return whole % lastScaled === 0
  }
  const { digits: a, exponent: p } = decimalOf(value)
  const { digits: b, exponent: q } = lastDecimal
  // value / divisor = (a / b) · 10^(p - q)
  return p >= q ? (a * 10n ** BigInt(p - q)) % b === 0n : a % (b * 10n ** BigInt(q - p)) === 0n
}

/** 10^0 … 10^22: the powers of ten that are exact doubles. */
const powersOfTen = Array.from({ length: 23 }, (_, power) => 10 ** power)

// The last divisor seen: its decimal, and the same as b / 10^t (`lastScaled` is b and `lastPlaces` is t, or -1 where
// b is not a safe integer or t is over 22: such a divisor always takes the BigInt path). One entry: a schema's check
// meets one divisor.
let lastDivisor = Number.NaN
let lastDecimal = { digits: 0n, exponent: 0 }
let lastScaled = 0
let lastPlaces = -1

function prepareDivisor(divisor: number): void {
  const { digits, exponent } = (lastDecimal = decimalOf(divisor))
  lastDivisor = divisor
  lastPlaces = exponent < 0 && exponent >= -22 && digits <= BigInt(Number.MAX_SAFE_INTEGER) ? -exponent : -1
  lastScaled = lastPlaces >= 0 ? Number(digits) : 0
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}

/** The violation messages of the constraints, one function per keyword (the value is of the node's type). */
export const constraintMessages = {
  minLength: (limit: number, value: string) => `must be at least ${plural(limit, 'character')} long, got ${codePointLength(value)} (${literal(value)})`,
  maxLength: (limit: number, value: string) => `must be at most ${plural(limit, 'character')} long, got ${codePointLength(value)} (${literal(value)})`,
  pattern: (source: string, value: string) => `must match the pattern ${literal(source)}, got ${literal(value)}`,
  minimum: (limit: number, value: number) => `must be at least ${limit}, got ${value}`,
  maximum: (limit: number, value: number) => `must be at most ${limit}, got ${value}`,
  exclusiveMinimum: (limit: number, value: number) => `must be greater than ${limit}, got ${value}`,
  exclusiveMaximum: (limit: number, value: number) => `must be less than ${limit}, got ${value}`,
  multipleOf: (divisor: number, value: number) => `must be a multiple of ${divisor}, got ${value}`,
  minItems: (limit: number, count: number) => `must have at least ${plural(limit, 'item')}, got ${count}`,
  maxItems: (limit: number, count: number) => `must have at most ${plural(limit, 'item')}, got ${count}`,
  uniqueItems: (first: number, second: number) => `must not contain duplicate items: [${second}] equals [${first}]`,
} as const

/** Where a constraint violation is recorded: `(keyword, message)`; returns nothing. */
export type ConstraintSink = (keyword: ConstraintKeyword, message: string) => void

/**
 * Checks a string against its constraints; with `sink`, records every failing one (in keyword order) and answers
 * whether all hold. Without it, stops at the first.
 */
export function checkStringConstraints(constraints: Constraints, value: string, sink: ConstraintSink | null): boolean {
  let ok = true
  const { minLength, maxLength, pattern } = constraints
  if (minLength !== undefined && value.length < minLength * 2 && (value.length < minLength || codePointLength(value) < minLength)) {
    if (sink === null) return false
    ok = false
    sink('minLength', constraintMessages.minLength(minLength, value))
  }
  if (maxLength !== undefined && value.length > maxLength && codePointLength(value) > maxLength) {
    if (sink === null) return false
    ok = false
    sink('maxLength', constraintMessages.maxLength(maxLength, value))
  }
  if (pattern !== undefined && !patternRegExp(pattern).test(value)) {
    if (sink === null) return false
    ok = false
    sink('pattern', constraintMessages.pattern(pattern, value))
  }
  return ok
}

/** Like {@link checkStringConstraints}, for a (finite, lossless) number. */
export function checkNumberConstraints(constraints: Constraints, value: number, sink: ConstraintSink | null): boolean {
  let ok = true
  const fail = (keyword: 'minimum' | 'maximum' | 'exclusiveMinimum' | 'exclusiveMaximum' | 'multipleOf', limit: number): void => {
    ok = false
    sink?.(keyword, constraintMessages[keyword](limit, value))
  }
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = constraints
  if (minimum !== undefined && value < minimum) {
    if (sink === null) return false
    fail('minimum', minimum)
  }
  if (exclusiveMinimum !== undefined && value <= exclusiveMinimum) {
    if (sink === null) return false
    fail('exclusiveMinimum', exclusiveMinimum)
  }
  if (maximum !== undefined && value > maximum) {
    if (sink === null) return false
    fail('maximum', maximum)
  }
  if (exclusiveMaximum !== undefined && value >= exclusiveMaximum) {
    if (sink === null) return false
    fail('exclusiveMaximum', exclusiveMaximum)
  }
  if (multipleOf !== undefined && !isMultipleOf(value, multipleOf)) {
    if (sink === null) return false
    fail('multipleOf', multipleOf)
  }
  return ok
}

/** A key under which equal JSON values (objects in any key order, `1` and `1.0`) are equal strings. */
function canonical(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value !== 'object' || value === null) return String(value)
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  const record = value as Record<string, unknown>
  const keys = Object.keys(record).sort()
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(record[key])}`).join(',')}}`
}

/** Lists up to this long are searched for duplicates pair by pair while their elements are scalars. */
const PAIRWISE_LENGTH = 16

/**
 * `uniqueItems`: the first index whose element equals (as JSON) an earlier one, as `[earlier, later]` (the earliest
 * such element), or `undefined` when all are distinct. The elements are lossless JSON (already checked).
 *
 * A short list of scalars is compared pair by pair with `===` (exact for lossless JSON scalars: no NaN, no -0), which
 * allocates nothing; anything else is keyed in a map (objects by a canonical text), so a long list costs linear time.
 */
export function firstDuplicate(elements: readonly unknown[]): readonly [number, number] | undefined {
  const length = elements.length
  if (length <= PAIRWISE_LENGTH) {
    let later = 1
    for (; later < length; later++) {
      const element = elements[later]
      if (typeof element === 'object' && element !== null) break
      for (let earlier = 0; earlier < later; earlier++) if (elements[earlier] === element) return [earlier, later]
    }
    if (later >= length) return undefined
  }
  return firstDuplicateByKey(elements)
}

function firstDuplicateByKey(elements: readonly unknown[]): readonly [number, number] | undefined {
  // Scalars are their own keys (a Map tells "1" from 1); objects and arrays go by their canonical text, in a map of
  // their own so that the text of one never meets a string element.
  const scalars = new Map<unknown, number>()
  let containers: Map<string, number> | undefined
  for (let index = 0; index < elements.length; index++) {
    const element = elements[index]
    const container = typeof element === 'object' && element !== null
    const seen = container ? (containers ??= new Map()) : scalars
    const key = container ? canonical(element) : element
    const earlier = seen.get(key as string)
    if (earlier !== undefined) return [earlier, index]
    seen.set(key as string, index)
  }
  return undefined
}

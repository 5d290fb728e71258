import type { ReadonlyJsonValue } from './json.js'
import type { JsonPathSegment } from './json-path.js'
import { Walk } from './json-walk.js'
import { SnapshotMark } from './snapshot-mark.js'
import { NonJsonValueError } from './non-json-value-error.js'

/** Why a value is not lossless JSON. */
export type NonJsonReason =
  | 'undefined'
  | 'non-finite-number'
  | 'negative-zero'
  | 'bigint'
  | 'symbol'
  | 'function'
  | 'sparse-array'
  | 'decorated-array'
  | 'class-instance'
  | 'symbol-key'
  | 'non-enumerable-key'
  | 'cycle'
  | 'too-deep'
  | 'too-large'
  | 'threw'

/**
 * How deeply containers (arrays and objects) may nest in a value {@link snapshotJson} accepts: 1,000 levels.
 * `JSON.stringify` on Node.js 20 with the default stack gives up a little above 4,000 levels (fewer when the
 * caller's stack is already deep), so a value that passes always serializes. Deeper values are refused with
 * reason `too-deep`.
 */
export const MAX_JSON_DEPTH = 1000

/**
 * How large a value {@link snapshotJson} accepts may be, as it would expand into JSON text: 67,108,864 (64 Mi)
 * units, where every value (container or scalar) counts one and every string and object key counts its length.
 * That is a lower bound of the JSON text's length (escapes and long numbers make the text longer by a small
 * factor). A sub-object reached at several places counts every time it is reached, as `JSON.stringify` would
 * write it, so a small DAG that expands to gigabytes is refused (reason `too-large`) in time linear in its size.
 */
export const MAX_JSON_SIZE = 64 * 1024 * 1024

/** Limits of {@link snapshotJson} and {@link isJsonValue}; an option that is not a positive integer is ignored. */
export interface JsonSnapshotOptions {
  /** The deepest nesting of containers accepted (default {@link MAX_JSON_DEPTH}). */
  readonly maxDepth?: number
  /** The largest expanded size accepted, in the units of {@link MAX_JSON_SIZE} (its default). */
  readonly maxSize?: number
}

/** Where and why {@link snapshotJson} rejected a value. */
export interface JsonSnapshotFailure {
  /** The path of the offending value, formatted like `servers[1].host`; `''` is the root. */
  readonly path: string
  /** The same path as segments. */
  readonly segments: readonly JsonPathSegment[]
  /** The rule the value broke. */
  readonly reason: NonJsonReason
  /** What is wrong, without the place: `undefined is not JSON`. */
  readonly detail: string
  /** A sentence a model or a person can act on: the detail and the place. */
  readonly message: string
}

/** The outcome of {@link snapshotJson}: a detached deep-frozen copy, or where and why the value was rejected. */
export type JsonSnapshotResult =
  | { readonly ok: true; readonly value: ReadonlyJsonValue }
  | { readonly ok: false; readonly error: JsonSnapshotFailure }


function limit(options: JsonSnapshotOptions | undefined, name: keyof JsonSnapshotOptions, fallback: number): number {
  if (options === undefined) return fallback
  try {
    const value: unknown = options[name]
    return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : fallback
  } catch {
    return fallback
  }
}


/**
 * Materializes `value` as lossless JSON: a detached, deep-frozen copy, or a typed failure naming the path and
 * the reason. Never throws, whatever the input (throwing getters and proxy traps become failures).
 *
 * Rejected: `undefined` anywhere, NaN, ±Infinity, -0, BigInt, symbols, functions, sparse arrays, arrays with
 * extra properties, class instances (Date, Map, Buffer, typed arrays, Array subclasses, …), symbol or
 * non-enumerable keys, cycles, containers nested deeper than {@link MAX_JSON_DEPTH} (`too-deep`), and values
 * that would expand to more than {@link MAX_JSON_SIZE} (`too-large`; `options` may set other limits).
 * Accepted: plain and null-prototype objects (also from another realm) and arrays, and a sub-object reached more
 * than once. Only own properties are read: a key or an index inherited from a polluted prototype is never seen.
 * A `__proto__` key stays data. Each property is read exactly once per place it occurs, so a getter cannot show
 * the check one value and the copy another. The walk recurses through the first 200 levels and uses an explicit
 * stack below, so no depth overflows the stack (100,000 levels are refused as `too-deep`, not thrown).
 */
export function snapshotJson(value: unknown, options?: JsonSnapshotOptions): JsonSnapshotResult {
  // Scalars need no walk: answer without allocating one.
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'string') {
      if (options === undefined && value.length < MAX_JSON_SIZE) return { ok: true, value }
    } else if (typeof value === 'boolean' || value === null) return { ok: true, value }
  }
  // A finished snapshot within the default limits is its own snapshot.
  if (options === undefined && typeof value === 'object' && value !== null && SnapshotMark.has(value)) return { ok: true, value: value as ReadonlyJsonValue }
  try {
    return walk(true, options).run(value)
  } catch {
    // Only the engine's own limit gets here (the stack ran out before the walk could report): answer anyway.
    return stackExhausted
  }
}

function walk(copying: boolean, options: JsonSnapshotOptions | undefined): Walk {
  return options === undefined
    ? new Walk(copying, MAX_JSON_DEPTH, MAX_JSON_SIZE)
    : new Walk(copying, limit(options, 'maxDepth', MAX_JSON_DEPTH), limit(options, 'maxSize', MAX_JSON_SIZE))
}

const stackDetail = 'the value could not be read: the JavaScript stack ran out'
const stackExhausted: JsonSnapshotResult = Object.freeze({
  ok: false,
  error: Object.freeze({ path: '', segments: Object.freeze([]), reason: 'threw', detail: stackDetail, message: `${stackDetail} (at the root)` }),
})

/** True when `value` is lossless JSON by the rules (and limits) of {@link snapshotJson}. Never throws. */
export function isJsonValue(value: unknown, options?: JsonSnapshotOptions): value is ReadonlyJsonValue {
  try {
    return walk(false, options).run(value).ok
  } catch {
    return false
  }
}

/** Like {@link snapshotJson}, but throws a {@link NonJsonValueError} (code `NON_JSON_VALUE`) on failure. */
export function toJsonValue(value: unknown, options?: JsonSnapshotOptions): ReadonlyJsonValue {
  const result = snapshotJson(value, options)
  if (!result.ok) throw new NonJsonValueError(result.error)
  return result.value
}

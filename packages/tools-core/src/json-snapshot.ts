import type { ReadonlyJsonValue } from './json.js'
import { describeJsonPath, formatJsonPath, type JsonPathSegment } from './json-path.js'
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
  | 'threw'

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

interface Frame {
  readonly source: Record<string, unknown>
  readonly copy: unknown[] | Record<string, unknown> | undefined
  /** Own keys of an object; `undefined` for an array. */
  readonly keys: string[] | undefined
  readonly length: number
  index: number
  /** This container's key in its parent (`undefined` for the root). */
  readonly key: JsonPathSegment | undefined
}

const FAILED = Symbol()
const PENDING = Symbol()
/** Deeper than this, ancestors are tracked in a Set instead of scanned (cycle checks stay O(1)). */
const DEEP = 64
/** After this many containers, a sub-object reached again is shared instead of walked again (no DAG blow-up). */
const SHARE_AFTER = 10_000
const arrayIndex = /^(?:0|[1-9]\d*)$/
const objectPrototypes = new WeakMap<object, boolean>()

/** A null-prototype object whose `constructor` is a native `Object`: `Object.prototype` of another realm. */
function isObjectPrototype(proto: object): boolean {
  let verdict = objectPrototypes.get(proto)
  if (verdict === undefined) {
    const constructor: unknown = Object.getOwnPropertyDescriptor(proto, 'constructor')?.value
    verdict =
      Object.getPrototypeOf(proto) === null &&
      typeof constructor === 'function' &&
      constructor.name === 'Object' &&
      /\[native code\]\s*\}\s*$/.test(Function.prototype.toString.call(constructor))
    objectPrototypes.set(proto, verdict)
  }
  return verdict
}

function store(copy: unknown[] | Record<string, unknown>, key: JsonPathSegment, value: unknown): void {
  if (Array.isArray(copy)) copy.push(value)
  // Assigning `__proto__` would set the prototype; JSON means an ordinary key.
  else if (key === '__proto__') Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true })
  else (copy as Record<string, unknown>)[key as string] = value
}

/**
 * One iterative walk that checks, and in copy mode copies and freezes, in a single pass. An explicit stack
 * means any depth works; failure paths are built from the stack only when something fails. A class (not
 * closures) so a walk allocates one object, which matters for the small arguments most calls carry.
 */
class Walk {
  private readonly stack: Frame[] = []
  private ancestors: Set<object> | undefined = undefined
  private shared: Map<object, unknown> | undefined = undefined
  private containers = 0
  private extra: JsonPathSegment | undefined = undefined
  private reason: NonJsonReason = 'threw'
  private detail = ''

  constructor(private readonly copying: boolean) {}

  run(root: unknown): JsonSnapshotResult {
    const stack = this.stack
    let key: JsonPathSegment | undefined
    try {
      let result = this.step(root, undefined)
      while (result === PENDING) {
        const frame = stack[stack.length - 1] as Frame
        if (frame.index < frame.length) {
          const index = frame.index++
          let child: unknown
          if (frame.keys === undefined) {
            key = index
            child = frame.source[index]
            if (child === undefined && !(index in frame.source)) {
              result = this.fail('sparse-array', 'a hole in a sparse array is not JSON')
              break
            }
          } else {
            key = frame.keys[index] as string
            child = frame.source[key]
          }
          const stepped = this.step(child, key)
          if (stepped === FAILED) result = FAILED
          else if (stepped !== PENDING && frame.copy !== undefined) {
            if (frame.keys === undefined) (frame.copy as unknown[]).push(stepped)
            else store(frame.copy, key, stepped)
          }
        } else {
          stack.pop()
          this.ancestors?.delete(frame.source)
          const done = frame.copy === undefined ? true : Object.freeze(frame.copy)
          this.shared?.set(frame.source, done)
          const parent = stack[stack.length - 1]
          if (parent === undefined) result = done
          else if (parent.copy !== undefined) store(parent.copy, frame.key as JsonPathSegment, done)
        }
      }
      if (result !== FAILED) return { ok: true, value: result as ReadonlyJsonValue }
    } catch (error) {
      let message: string
      try {
        message = error instanceof Error ? error.message : String(error)
      } catch {
        message = 'an unprintable value'
      }
      this.fail('threw', `reading the value threw: ${message}`)
    }
    const segments = stack.slice(1).map((frame) => frame.key as JsonPathSegment)
    if (key !== undefined) segments.push(key)
    if (this.extra !== undefined) segments.push(this.extra)
    const path = formatJsonPath(segments)
    const detail = this.detail
    return { ok: false, error: { path, segments, reason: this.reason, detail, message: `${detail} (${describeJsonPath(path)})` } }
  }

  private fail(why: NonJsonReason, text: string, at?: JsonPathSegment): typeof FAILED {
    this.reason = why
    this.detail = text
    this.extra = at
    return FAILED
  }

  private step(value: unknown, key: JsonPathSegment | undefined): unknown {
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return value
      case 'number':
        if (value === 0 ? 1 / value > 0 : value - value === 0) return value
        return value === 0
          ? this.fail('negative-zero', '-0 is not lossless JSON (it would become 0)')
          : this.fail('non-finite-number', `${value} is not a JSON number`)
      case 'object':
        return value === null ? null : this.enter(value, key)
      case 'bigint':
        return this.fail('bigint', `the BigInt ${value}n is not a JSON number`)
      default:
        return this.fail(
          typeof value as NonJsonReason,
          `${typeof value === 'function' ? 'a function' : typeof value === 'symbol' ? 'a symbol' : 'undefined'} is not JSON`,
        )
    }
  }

  private isAncestor(value: object): boolean {
    if (this.ancestors !== undefined) return this.ancestors.has(value)
    const stack = this.stack
    for (let index = stack.length - 1; index >= 0; index -= 1) if ((stack[index] as Frame).source === value) return true
    return false
  }

  private enter(value: object, key: JsonPathSegment | undefined): unknown {
    if (this.isAncestor(value)) return this.fail('cycle', 'a cycle (the value contains itself) is not JSON')
    if (this.shared !== undefined) {
      const known = this.shared.get(value)
      if (known !== undefined) return known
    } else if (++this.containers > SHARE_AFTER) this.shared = new Map()
    const proto: unknown = Object.getPrototypeOf(value)
    let keys: string[] | undefined
    let length: number
    if (Array.isArray(value)) {
      if (proto !== Array.prototype && !Array.isArray(proto)) {
        return this.fail('class-instance', 'an instance of an Array subclass is not JSON')
      }
      length = value.length
      const own = Reflect.ownKeys(value)
      if (own.length !== length + 1) {
        for (const name of own) {
          if (typeof name === 'symbol') return this.fail('symbol-key', `an array with a symbol key (${String(name)}) is not JSON`)
          if (name !== 'length' && !arrayIndex.test(name)) {
            return this.fail('decorated-array', `an array with an extra property "${name}" is not JSON`, name)
          }
        }
        // Fewer keys than indices: a hole, which the walk reports at its index.
      }
    } else {
      if (proto !== Object.prototype && proto !== null && !isObjectPrototype(proto as object)) {
        const name: unknown = (value as { constructor?: { name?: unknown } }).constructor?.name
        return this.fail(
          'class-instance',
          `${typeof name === 'string' && name ? `a ${name}` : 'an object with a custom prototype'} is not JSON (only plain objects and arrays are)`,
        )
      }
      keys = Object.keys(value)
      length = keys.length
      if (Object.getOwnPropertyNames(value).length !== length || Object.getOwnPropertySymbols(value).length > 0) {
        for (const name of Reflect.ownKeys(value)) {
          if (typeof name === 'symbol') return this.fail('symbol-key', `a symbol key (${String(name)}) is not JSON`)
          if (!Object.prototype.propertyIsEnumerable.call(value, name)) {
            return this.fail('non-enumerable-key', `a non-enumerable property "${name}" would be lost in JSON`, name)
          }
        }
      }
    }
    const stack = this.stack
    stack.push({
      source: value as Record<string, unknown>,
      copy: this.copying ? (keys === undefined ? [] : {}) : undefined,
      keys,
      length,
      index: 0,
      key,
    })
    if (this.ancestors !== undefined) this.ancestors.add(value)
    else if (stack.length > DEEP) this.ancestors = new Set(stack.map((frame) => frame.source))
    return PENDING
  }
}

/**
 * Materializes `value` as lossless JSON: a detached, deep-frozen copy, or a typed failure naming the path and
 * the reason. Never throws, whatever the input (throwing getters and proxy traps become failures).
 *
 * Rejected: `undefined` anywhere, NaN, ±Infinity, -0, BigInt, symbols, functions, sparse arrays, arrays with
 * extra properties, class instances (Date, Map, Buffer, typed arrays, Array subclasses, …), symbol or
 * non-enumerable keys, and cycles. Accepted: plain and null-prototype objects (also from another realm) and
 * arrays, and a sub-object reached more than once. A `__proto__` key stays data. Each property is read exactly
 * once per place it occurs, so a getter cannot show the check one value and the copy another. Nesting depth is
 * limited only by memory (the walk uses an explicit stack, not recursion).
 */
export function snapshotJson(value: unknown): JsonSnapshotResult {
  // Scalars need no walk: answer without allocating one.
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'string' || typeof value === 'boolean' || value === null) return { ok: true, value }
  }
  return new Walk(true).run(value)
}

/** True when `value` is lossless JSON by the rules of {@link snapshotJson}. Never throws. */
export function isJsonValue(value: unknown): value is ReadonlyJsonValue {
  return new Walk(false).run(value).ok
}

/** Like {@link snapshotJson}, but throws a {@link NonJsonValueError} (code `NON_JSON_VALUE`) on failure. */
export function toJsonValue(value: unknown): ReadonlyJsonValue {
  const result = snapshotJson(value)
  if (!result.ok) throw new NonJsonValueError(result.error)
  return result.value
}

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
  /** This container's key in its parent. */
  readonly key: JsonPathSegment
}

const FAILED = Symbol()
/** Containers nested deeper than this are walked by the explicit-stack loop instead of recursion. */
const RECURSION_LIMIT = 200
/** Deeper than this, ancestors are tracked in a Set instead of scanned (cycle checks stay O(1)). */
const DEEP = 64
/** After this many containers, a sub-object reached again is shared instead of walked again (no DAG blow-up). */
const SHARE_AFTER = 10_000
const arrayIndex = /^(?:0|[1-9]\d*)$/
const objectPrototypes = new WeakMap<object, boolean>()
const { getPrototypeOf, getOwnPropertyNames, getOwnPropertySymbols, keys: ownEnumerableKeys, freeze } = Object
const { ownKeys } = Reflect
const { isArray } = Array
const ObjectPrototype = Object.prototype
const ArrayPrototype = Array.prototype

/** A null-prototype object whose `constructor` is a native `Object`: `Object.prototype` of another realm. */
function isObjectPrototype(proto: object): boolean {
  let verdict = objectPrototypes.get(proto)
  if (verdict === undefined) {
    const constructor: unknown = Object.getOwnPropertyDescriptor(proto, 'constructor')?.value
    verdict =
      getPrototypeOf(proto) === null &&
      typeof constructor === 'function' &&
      constructor.name === 'Object' &&
      /\[native code\]\s*\}\s*$/.test(Function.prototype.toString.call(constructor))
    objectPrototypes.set(proto, verdict)
  }
  return verdict
}

function store(copy: unknown[] | Record<string, unknown>, key: JsonPathSegment, value: unknown): void {
  if (typeof key === 'number') (copy as unknown[])[key] = value
  // Assigning `__proto__` would set the prototype; JSON means an ordinary key.
  else if (key === '__proto__') Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true })
  else (copy as Record<string, unknown>)[key] = value
}

function errorText(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error)
  } catch {
    return 'an unprintable value'
  }
}

/**
 * One walk that checks, and in copy mode copies and freezes, in a single pass: each property is read once and
 * dealt with before the next is read. Recursion down to {@link RECURSION_LIMIT} levels (fast for the shallow
 * values almost every call carries), an explicit stack below that (any depth works). A failure's path is
 * collected only when something fails, as the walk unwinds.
 */
class Walk {
  /** The containers being walked, outermost first: reaching one of them again is a cycle. */
  private readonly open: object[] = []
  private ancestors: Set<object> | undefined = undefined
  private shared: Map<object, unknown> | undefined = undefined
  private containers = 0
  /** The failure's path, innermost segment first. */
  private readonly trail: JsonPathSegment[] = []
  private reason: NonJsonReason = 'threw'
  private detail = ''

  constructor(private readonly copying: boolean) {}

  run(root: unknown): JsonSnapshotResult {
    const result = typeof root === 'object' && root !== null ? this.container(root, 0) : this.scalar(root) ? root : FAILED
    if (result !== FAILED) return { ok: true, value: result as ReadonlyJsonValue }
    const segments = this.trail.reverse()
    const path = formatJsonPath(segments)
    const detail = this.detail
    return { ok: false, error: { path, segments, reason: this.reason, detail, message: `${detail} (${describeJsonPath(path)})` } }
  }

  private fail(why: NonJsonReason, text: string, at?: JsonPathSegment): typeof FAILED {
    this.reason = why
    this.detail = text
    if (at !== undefined) this.trail.push(at)
    return FAILED
  }

  /** True for a JSON scalar; otherwise records why not. Not for objects other than `null`. */
  private scalar(value: unknown): boolean {
    switch (typeof value) {
      case 'string':
      case 'boolean':
      case 'object':
        return true
      case 'number':
        if (value === 0 ? 1 / value > 0 : value - value === 0) return true
        this.fail(value === 0 ? 'negative-zero' : 'non-finite-number', value === 0 ? '-0 is not lossless JSON (it would become 0)' : `${value} is not a JSON number`)
        return false
      case 'bigint':
        this.fail('bigint', `the BigInt ${value}n is not a JSON number`)
        return false
      default:
        this.fail(
          typeof value as NonJsonReason,
          `${typeof value === 'function' ? 'a function' : typeof value === 'symbol' ? 'a symbol' : 'undefined'} is not JSON`,
        )
        return false
    }
  }

  /**
   * `FAILED` for a cycle, the finished copy of a sub-object already walked, or `undefined` to walk it (it is then
   * open until {@link done}). Ancestors shallower than {@link DEEP} are scanned; deeper ones live in a Set.
   */
  private known(value: object, depth: number): unknown {
    const open = this.open
    for (let index = (depth < DEEP ? depth : DEEP) - 1; index >= 0; index -= 1) if (open[index] === value) return this.cycle()
    if (depth > DEEP && this.ancestors?.has(value)) return this.cycle()
    if (this.shared !== undefined) {
      const copy = this.shared.get(value)
      if (copy !== undefined) return copy
    } else if (++this.containers > SHARE_AFTER) this.shared = new Map()
    if (depth < DEEP) open[depth] = value
    else (this.ancestors ??= new Set()).add(value)
    return undefined
  }

  private cycle(): typeof FAILED {
    return this.fail('cycle', 'a cycle (the value contains itself) is not JSON')
  }

  /** Closes a walked container: the cycle check forgets it, the copy is frozen and remembered when sharing. */
  private done(value: object, depth: number, copy: unknown[] | Record<string, unknown> | undefined): unknown {
    if (depth >= DEEP) (this.ancestors as Set<object>).delete(value)
    const done = copy === undefined ? true : freeze(copy)
    this.shared?.set(value, done)
    return done
  }

  /** `undefined` when the container's own shape is JSON, or `FAILED` with the reason recorded. */
  private check(value: object, array: boolean): undefined | typeof FAILED {
    const proto: unknown = getPrototypeOf(value)
    if (array) {
      if (proto !== ArrayPrototype && !isArray(proto)) return this.fail('class-instance', 'an instance of an Array subclass is not JSON')
      const own = ownKeys(value)
      if (own.length === (value as unknown[]).length + 1) return undefined
      for (const name of own) {
        if (typeof name === 'symbol') return this.fail('symbol-key', `an array with a symbol key (${String(name)}) is not JSON`)
        if (name !== 'length' && !arrayIndex.test(name)) {
          return this.fail('decorated-array', `an array with an extra property "${name}" is not JSON`, name)
        }
      }
      // Fewer keys than indices: a hole, which the walk reports at its index.
      return undefined
    }
    if (proto !== ObjectPrototype && proto !== null && !isObjectPrototype(proto as object)) {
      const name: unknown = (value as { constructor?: { name?: unknown } }).constructor?.name
      return this.fail(
        'class-instance',
        `${typeof name === 'string' && name ? `a ${name}` : 'an object with a custom prototype'} is not JSON (only plain objects and arrays are)`,
      )
    }
    return undefined
  }

  /** The own keys of a plain object, or `FAILED` when it has a symbol or non-enumerable key. */
  private keys(value: object): string[] | typeof FAILED {
    const keys = ownEnumerableKeys(value)
    if (getOwnPropertyNames(value).length === keys.length && getOwnPropertySymbols(value).length === 0) return keys
    for (const name of ownKeys(value)) {
      if (typeof name === 'symbol') return this.fail('symbol-key', `a symbol key (${String(name)}) is not JSON`)
      if (!Object.prototype.propertyIsEnumerable.call(value, name)) {
        return this.fail('non-enumerable-key', `a non-enumerable property "${name}" would be lost in JSON`, name)
      }
    }
    return keys
  }

  /** A scalar child that is not a string: itself, or `FAILED` (a hole of a sparse array included). */
  private other(source: object, key: JsonPathSegment, child: unknown): unknown {
    if (child === undefined && typeof key === 'number' && !(key in source)) return this.fail('sparse-array', 'a hole in a sparse array is not JSON')
    return this.scalar(child) ? child : FAILED
  }

  private container(value: object, depth: number): unknown {
    const known = this.known(value, depth)
    if (known !== undefined) return known
    if (depth >= RECURSION_LIMIT) return this.iterate(value, depth)
    let key: JsonPathSegment | undefined
    try {
      if (isArray(value)) {
        if (this.check(value, true) === FAILED) return FAILED
        const length = value.length
        const copy: unknown[] | undefined = this.copying ? [] : undefined
        for (let index = 0; index < length; index++) {
          let child: unknown = value[(key = index)]
          if (typeof child === 'object') {
            if (child !== null && (child = this.container(child, depth + 1)) === FAILED) return this.unwind(key)
          } else if (typeof child !== 'string' && (child = this.other(value, index, child)) === FAILED) return this.unwind(key)
          if (copy !== undefined) copy[index] = child
        }
        return this.done(value, depth, copy)
      }
      if (this.check(value, false) === FAILED) return FAILED
      const keys = this.keys(value)
      if (keys === FAILED) return FAILED
      const source = value as Record<string, unknown>
      const copy: Record<string, unknown> | undefined = this.copying ? {} : undefined
      for (let index = 0; index < keys.length; index++) {
        let child: unknown = source[(key = keys[index] as string)]
        if (typeof child === 'object') {
          if (child !== null && (child = this.container(child, depth + 1)) === FAILED) return this.unwind(key)
        } else if (typeof child !== 'string' && (child = this.other(value, key, child)) === FAILED) return this.unwind(key)
        if (copy !== undefined) store(copy, key, child)
      }
      return this.done(value, depth, copy)
    } catch (error) {
      this.fail('threw', `reading the value threw: ${errorText(error)}`, key)
      return FAILED
    }
  }

  private unwind(key: JsonPathSegment): typeof FAILED {
    this.trail.push(key)
    return FAILED
  }

  /** The walk below the recursion limit: the same steps, with an explicit stack instead of recursion. */
  private iterate(root: object, depth: number): unknown {
    const stack: Frame[] = []
    let key: JsonPathSegment | undefined
    const first = this.frame(root, 0)
    if (first === FAILED) return FAILED
    let frame = first
    try {
      for (;;) {
        if (frame.index < frame.length) {
          const index = frame.index++
          let child: unknown = frame.source[(key = frame.keys === undefined ? index : (frame.keys[index] as string))]
          if (typeof child === 'object' && child !== null) {
            const known = this.known(child, depth + stack.length + 1)
            if (known === FAILED) break
            if (known === undefined) {
              const next = this.frame(child, key)
              if (next === FAILED) break
              stack.push(frame)
              frame = next
              continue
            }
            child = known
          } else if (typeof child !== 'string' && (child = this.other(frame.source, key, child)) === FAILED) break
          if (frame.copy !== undefined) store(frame.copy, key, child)
        } else {
          const done = this.done(frame.source, depth + stack.length, frame.copy)
          const parent = stack.pop()
          if (parent === undefined) return done
          if (parent.copy !== undefined) store(parent.copy, frame.key, done)
          frame = parent
        }
      }
    } catch (error) {
      this.fail('threw', `reading the value threw: ${errorText(error)}`)
    }
    // The keys down to the failure, innermost first; the caller adds the key of this walk's root.
    if (key !== undefined) this.trail.push(key)
    stack.push(frame)
    for (let index = stack.length - 1; index > 0; index -= 1) this.trail.push((stack[index] as Frame).key)
    return FAILED
  }

  /** A frame for a container already registered by {@link known}, or `FAILED` when its shape is not JSON. */
  private frame(source: object, key: JsonPathSegment): Frame | typeof FAILED {
    const array = isArray(source)
    if (this.check(source, array) === FAILED) return FAILED
    const keys = array ? undefined : this.keys(source)
    if (keys === FAILED) return FAILED
    const length = keys === undefined ? (source as unknown[]).length : keys.length
    return {
      source: source as Record<string, unknown>,
      copy: this.copying ? (keys === undefined ? [] : {}) : undefined,
      keys,
      length,
      index: 0,
      key,
    }
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
 * limited only by memory (the walk recurses through the first 200 levels and uses an explicit stack below).
 */
export function snapshotJson(value: unknown): JsonSnapshotResult {
  // Scalars need no walk: answer without allocating one.
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'string' || typeof value === 'boolean' || value === null) return { ok: true, value }
  }
  try {
    return new Walk(true).run(value)
  } catch {
    // Only the engine's own limit gets here (the stack ran out before the walk could report): answer anyway.
    return stackExhausted
  }
}

const stackDetail = 'the value could not be read: the JavaScript stack ran out'
const stackExhausted: JsonSnapshotResult = Object.freeze({
  ok: false,
  error: Object.freeze({ path: '', segments: Object.freeze([]), reason: 'threw', detail: stackDetail, message: `${stackDetail} (at the root)` }),
})

/** True when `value` is lossless JSON by the rules of {@link snapshotJson}. Never throws. */
export function isJsonValue(value: unknown): value is ReadonlyJsonValue {
  try {
    return new Walk(false).run(value).ok
  } catch {
    return false
  }
}

/** Like {@link snapshotJson}, but throws a {@link NonJsonValueError} (code `NON_JSON_VALUE`) on failure. */
export function toJsonValue(value: unknown): ReadonlyJsonValue {
  const result = snapshotJson(value)
  if (!result.ok) throw new NonJsonValueError(result.error)
  return result.value
}

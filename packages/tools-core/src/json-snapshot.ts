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
  /** A sentence a model or a person can act on. */
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
  readonly parent: Frame | undefined
  readonly key: JsonPathSegment
}

/** Returned by a visit that failed; the reason and the path are on the walker. */
const FAILED = Symbol('failed')
const PENDING = Symbol('pending')
const IN_PROGRESS = Symbol('in-progress')
const CHECKED = true
/** Deeper than this, the recursive walk hands the subtree to the iterative one (no stack overflow). */
const MAX_RECURSION = 1_000
/** After this many containers, a sub-object reached again is shared instead of copied again (no DAG blow-up). */
const SHARE_AFTER = 10_000
const arrayIndex = /^(?:0|[1-9][0-9]*)$/

const objectPrototypes = new WeakMap<object, boolean>()

/** A null-prototype object whose constructor is a native `Object`: `Object.prototype` of another realm. */
function isObjectPrototype(proto: object): boolean {
  const known = objectPrototypes.get(proto)
  if (known !== undefined) return known
  let verdict = false
  if (Object.getPrototypeOf(proto) === null) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, 'constructor')
    const constructor: unknown = descriptor?.value
    verdict =
      typeof constructor === 'function' &&
      constructor.name === 'Object' &&
      /\{\s*\[native code\]\s*\}\s*$/.test(Function.prototype.toString.call(constructor))
  }
  objectPrototypes.set(proto, verdict)
  return verdict
}

function describe(value: unknown): string {
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : String(value)
  if (typeof value === 'bigint') return `the BigInt ${value}n`
  return String(value)
}

function describeError(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error)
  } catch {
    return 'an unprintable value was thrown'
  }
}

/**
 * The rules every walk applies. Subclasses differ only in how they traverse: {@link Snapshotter} recursively
 * (fast, for every ordinary depth), {@link DeepWalker} with an explicit stack (any depth).
 */
abstract class Rules {
  reason: NonJsonReason = 'threw'
  detail = ''

  constructor(readonly copying: boolean) {}

  fail(reason: NonJsonReason, detail: string): typeof FAILED {
    this.reason = reason
    this.detail = detail
    return FAILED
  }

  /** The verdict on a non-object value: itself, or FAILED. */
  scalar(value: unknown): unknown {
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return value
      case 'number':
        if (value === 0) {
          if (1 / value < 0) return this.fail('negative-zero', '-0 is not lossless JSON (it would become 0)')
        } else if (value - value !== 0) {
          return this.fail('non-finite-number', `${describe(value)} is not a JSON number`)
        }
        return value
      case 'object':
        return null
      case 'undefined':
        return this.fail('undefined', 'undefined is not JSON')
      case 'bigint':
        return this.fail('bigint', `${describe(value)} is not a JSON number`)
      case 'symbol':
        return this.fail('symbol', 'a symbol is not JSON')
      default:
        return this.fail('function', 'a function is not JSON')
    }
  }

  /** Checks an array's prototype and own keys; returns the extra failing segment holder or FAILED. */
  checkArray(value: unknown[]): typeof FAILED | undefined {
    const proto: unknown = Object.getPrototypeOf(value)
    if (proto !== Array.prototype && !Array.isArray(proto)) {
      return this.fail('class-instance', 'an instance of an Array subclass is not JSON')
    }
    return undefined
  }

  /** Checks an object's prototype; returns FAILED for class instances. */
  checkObjectPrototype(value: object): typeof FAILED | undefined {
    const proto: unknown = Object.getPrototypeOf(value)
    if (proto === Object.prototype || proto === null || isObjectPrototype(proto as object)) return undefined
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name
    const what = typeof name === 'string' && name !== '' ? `a ${name}` : 'an object with a custom prototype'
    return this.fail('class-instance', `${what} is not JSON (only plain objects and arrays are)`)
  }

  /** Explains why an array's own keys are not exactly its indices and `length`. Sets `extra` when a key is at fault. */
  diagnoseArray(value: unknown[], ownKeys: (string | symbol)[]): { extra?: JsonPathSegment } {
    for (const key of ownKeys) {
      if (typeof key === 'symbol') {
        this.fail('symbol-key', `an array with a symbol key (${String(key)}) is not JSON`)
        return {}
      }
      if (key !== 'length' && !arrayIndex.test(key)) {
        this.fail('decorated-array', `an array with an extra property "${key}" is not JSON`)
        return { extra: key }
      }
    }
    for (let index = 0; index < value.length; index += 1) {
      if (!(index in value)) {
        this.fail('sparse-array', 'a hole in a sparse array is not JSON')
        return { extra: index }
      }
    }
    this.fail('threw', 'the array changed while being read')
    return {}
  }

  /** Explains why an object has own keys beyond its enumerable string keys. */
  diagnoseObject(value: object): { extra?: JsonPathSegment } {
    for (const key of Reflect.ownKeys(value)) {
      if (typeof key === 'symbol') {
        this.fail('symbol-key', `a symbol key (${String(key)}) is not JSON`)
        return {}
      }
      if (!Object.prototype.propertyIsEnumerable.call(value, key)) {
        this.fail('non-enumerable-key', `a non-enumerable property "${key}" would be lost in JSON`)
        return { extra: key }
      }
    }
    this.fail('threw', 'the object changed its keys while being read')
    return {}
  }

  store(copy: unknown[] | Record<string, unknown>, key: JsonPathSegment, value: unknown): void {
    if (Array.isArray(copy)) copy.push(value)
    else if (key === '__proto__') {
      Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true })
    } else copy[key] = value
  }
}

/**
 * The fast walk: recursive, one pass that checks, copies and freezes. Cycles are found on the ancestor stack;
 * a sub-object reached twice is copied twice, as `JSON.stringify` would write it twice, until the walk has
 * seen {@link SHARE_AFTER} containers, after which repeats are shared (so a crafted DAG cannot blow up).
 * Failure paths are collected while unwinding, so a successful walk never builds one.
 */
class Snapshotter extends Rules {
  private readonly ancestors: object[] = []
  private containers = 0
  private shared: Map<object, unknown> | undefined = undefined
  /** The failure path, innermost segment first. */
  readonly segments: JsonPathSegment[] = []

  visit(value: unknown): unknown {
    return typeof value === 'object' && value !== null ? this.container(value) : this.scalar(value)
  }

  private container(value: object): unknown {
    const ancestors = this.ancestors
    for (let index = ancestors.length - 1; index >= 0; index -= 1) {
      if (ancestors[index] === value) return this.fail('cycle', 'a cycle (the value contains itself) is not JSON')
    }
    if (this.shared !== undefined) {
      const known = this.shared.get(value)
      if (known !== undefined) return known
    } else if (++this.containers > SHARE_AFTER) {
      this.shared = new Map()
    }
    if (ancestors.length >= MAX_RECURSION) return this.deep(value)
    ancestors.push(value)
    let result: unknown
    try {
      result = Array.isArray(value) ? this.array(value) : this.object(value)
    } catch (error) {
      result = this.fail('threw', `reading the value threw: ${describeError(error)}`)
    }
    ancestors.pop()
    if (result !== FAILED && this.shared !== undefined) this.shared.set(value, result)
    return result
  }

  private array(value: unknown[]): unknown {
    if (this.checkArray(value) === FAILED) return FAILED
    const length = value.length
    const ownKeys = Reflect.ownKeys(value)
    if (ownKeys.length !== length + 1) {
      const { extra } = this.diagnoseArray(value, ownKeys)
      if (extra !== undefined) this.segments.push(extra)
      return FAILED
    }
    const copy: unknown[] | undefined = this.copying ? [] : undefined
    for (let index = 0; index < length; index += 1) {
      let child: unknown
      try {
        child = value[index]
      } catch (error) {
        this.fail('threw', `reading the value threw: ${describeError(error)}`)
        this.segments.push(index)
        return FAILED
      }
      if (child === undefined && !(index in value)) {
        this.fail('sparse-array', 'a hole in a sparse array is not JSON')
        this.segments.push(index)
        return FAILED
      }
      const result = typeof child === 'object' && child !== null ? this.container(child) : this.scalar(child)
      if (result === FAILED) {
        this.segments.push(index)
        return FAILED
      }
      if (copy !== undefined) copy.push(result)
    }
    return copy === undefined ? CHECKED : Object.freeze(copy)
  }

  private object(value: object): unknown {
    if (this.checkObjectPrototype(value) === FAILED) return FAILED
    const keys = Object.keys(value)
    if (Object.getOwnPropertyNames(value).length !== keys.length || Object.getOwnPropertySymbols(value).length !== 0) {
      const { extra } = this.diagnoseObject(value)
      if (extra !== undefined) this.segments.push(extra)
      return FAILED
    }
    const copy: Record<string, unknown> | undefined = this.copying ? {} : undefined
    for (let index = 0; index < keys.length; index += 1) {
      const key = keys[index] as string
      let child: unknown
      try {
        child = (value as Record<string, unknown>)[key]
      } catch (error) {
        this.fail('threw', `reading the value threw: ${describeError(error)}`)
        this.segments.push(key)
        return FAILED
      }
      const result = typeof child === 'object' && child !== null ? this.container(child) : this.scalar(child)
      if (result === FAILED) {
        this.segments.push(key)
        return FAILED
      }
      if (copy !== undefined) {
        if (key === '__proto__') this.store(copy, key, result)
        else copy[key] = result
      }
    }
    return copy === undefined ? CHECKED : Object.freeze(copy)
  }

  /** Hands a very deep subtree to the iterative walker, with the ancestors it must treat as cycles. */
  private deep(value: object): unknown {
    const walker = new DeepWalker(this.copying, this.ancestors)
    const result = walker.run(value)
    if (result !== FAILED) return result
    this.fail(walker.reason, walker.detail)
    for (let index = walker.segments.length - 1; index >= 0; index -= 1) {
      this.segments.push(walker.segments[index] as JsonPathSegment)
    }
    return FAILED
  }

  failure(): JsonSnapshotFailure {
    const segments = this.segments.slice().reverse()
    const path = formatJsonPath(segments)
    return { path, segments, reason: this.reason, message: `${this.detail} (${describeJsonPath(path)})` }
  }
}

/**
 * The deep walk: an explicit stack instead of recursion, so nesting depth is limited only by memory. Every
 * container is entered once (repeats are shared), which also keeps a deep DAG linear.
 */
class DeepWalker extends Rules {
  private readonly seen = new Map<object, unknown>()
  private top: Frame | undefined = undefined
  private key: JsonPathSegment | undefined = undefined
  private extra: JsonPathSegment | undefined = undefined
  /** The failure path, outermost segment first, relative to the walk's root. */
  segments: JsonPathSegment[] = []

  constructor(copying: boolean, ancestors: readonly object[]) {
    super(copying)
    for (const ancestor of ancestors) this.seen.set(ancestor, IN_PROGRESS)
  }

  run(root: unknown): unknown {
    try {
      const first = this.step(root)
      if (first !== PENDING) return first === FAILED ? this.failed() : first
      for (;;) {
        const frame = this.top as Frame
        if (frame.index < frame.length) {
          const index = frame.index++
          let child: unknown
          if (frame.keys === undefined) {
            this.key = index
            child = (frame.source as unknown as unknown[])[index]
            if (child === undefined && !(index in frame.source)) {
              this.fail('sparse-array', 'a hole in a sparse array is not JSON')
              return this.failed()
            }
          } else {
            const key = frame.keys[index] as string
            this.key = key
            child = frame.source[key]
          }
          const stepped = this.step(child)
          if (stepped === FAILED) return this.failed()
          if (stepped !== PENDING && frame.copy !== undefined) this.store(frame.copy, this.key, stepped)
        } else {
          const done = frame.copy === undefined ? CHECKED : Object.freeze(frame.copy)
          this.seen.set(frame.source, done)
          this.top = frame.parent
          if (this.top === undefined) return done
          if (this.top.copy !== undefined) this.store(this.top.copy, frame.key, done)
        }
      }
    } catch (error) {
      this.fail('threw', `reading the value threw: ${describeError(error)}`)
      return this.failed()
    }
  }

  private step(value: unknown): unknown {
    return typeof value === 'object' && value !== null ? this.enter(value) : this.scalar(value)
  }

  private enter(value: object): unknown {
    const known = this.seen.get(value)
    if (known !== undefined) {
      return known === IN_PROGRESS ? this.fail('cycle', 'a cycle (the value contains itself) is not JSON') : known
    }
    let keys: string[] | undefined
    let length: number
    if (Array.isArray(value)) {
      if (this.checkArray(value) === FAILED) return FAILED
      length = value.length
      const ownKeys = Reflect.ownKeys(value)
      if (ownKeys.length !== length + 1) {
        this.extra = this.diagnoseArray(value, ownKeys).extra
        return FAILED
      }
    } else {
      if (this.checkObjectPrototype(value) === FAILED) return FAILED
      keys = Object.keys(value)
      length = keys.length
      if (Reflect.ownKeys(value).length !== length) {
        this.extra = this.diagnoseObject(value).extra
        return FAILED
      }
    }
    this.seen.set(value, IN_PROGRESS)
    this.top = {
      source: value as Record<string, unknown>,
      copy: this.copying ? (keys === undefined ? [] : {}) : undefined,
      keys,
      length,
      index: 0,
      parent: this.top,
      key: this.key as JsonPathSegment,
    }
    return PENDING
  }

  private failed(): typeof FAILED {
    const segments: JsonPathSegment[] = []
    if (this.extra !== undefined) segments.push(this.extra)
    if (this.key !== undefined) segments.push(this.key)
    for (let frame = this.top; frame?.parent !== undefined; frame = frame.parent) segments.push(frame.key)
    this.segments = segments.reverse()
    return FAILED
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
 * limited only by memory (very deep subtrees are walked with an explicit stack).
 */
export function snapshotJson(value: unknown): JsonSnapshotResult {
  const snapshotter = new Snapshotter(true)
  const result = snapshotter.visit(value)
  if (result === FAILED) return { ok: false, error: snapshotter.failure() }
  return { ok: true, value: result as ReadonlyJsonValue }
}

/** True when `value` is lossless JSON by the rules of {@link snapshotJson}. Never throws. */
export function isJsonValue(value: unknown): value is ReadonlyJsonValue {
  return new Snapshotter(false).visit(value) !== FAILED
}

/** Like {@link snapshotJson}, but throws a {@link NonJsonValueError} (code `NON_JSON_VALUE`) on failure. */
export function toJsonValue(value: unknown): ReadonlyJsonValue {
  const result = snapshotJson(value)
  if (!result.ok) throw new NonJsonValueError(result.error)
  return result.value
}

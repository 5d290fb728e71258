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

const PENDING = Symbol('pending')
const FAILED = Symbol('failed')
const IN_PROGRESS = Symbol('in-progress')
const CHECKED = true

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
  if (typeof value === 'function') return 'a function'
  if (typeof value === 'symbol') return 'a symbol'
  if (typeof value === 'bigint') return `the BigInt ${value}n`
  return String(value)
}

/**
 * One walk over a value, iterative so that any depth works. In copy mode it builds a detached deep-frozen copy;
 * in check mode it only answers. Every object is entered once (shared sub-objects are copied once and shared in
 * the copy too), so each getter runs once and a DAG cannot blow up.
 */
class Walker {
  private readonly seen = new Map<object, unknown>()
  private top: Frame | undefined = undefined
  private key: JsonPathSegment | undefined = undefined
  private reason: NonJsonReason = 'threw'
  private detail = ''
  /** Extra segment appended to the failure path (the offending key of an object or array). */
  private extra: JsonPathSegment | undefined = undefined

  constructor(private readonly copying: boolean) {}

  run(root: unknown): JsonSnapshotResult | boolean {
    try {
      const first = this.step(root)
      if (first === FAILED) return this.failure()
      if (first !== PENDING) return this.copying ? { ok: true, value: first as ReadonlyJsonValue } : true
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
              return this.failure()
            }
          } else {
            const key = frame.keys[index] as string
            this.key = key
            child = frame.source[key]
          }
          const stepped = this.step(child)
          if (stepped === FAILED) return this.failure()
          if (stepped !== PENDING) this.store(frame, this.key, stepped)
        } else {
          const done = this.copying ? Object.freeze(frame.copy) : CHECKED
          this.seen.set(frame.source, done)
          this.top = frame.parent
          if (this.top === undefined) return this.copying ? { ok: true, value: done as ReadonlyJsonValue } : true
          this.store(this.top, frame.key, done)
        }
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      this.fail('threw', `reading the value threw: ${message}`)
      return this.failure()
    }
  }

  private store(frame: Frame, key: JsonPathSegment, value: unknown): void {
    if (!this.copying) return
    if (frame.keys === undefined) (frame.copy as unknown[]).push(value)
    else if (key === '__proto__') {
      Object.defineProperty(frame.copy, key, { value, enumerable: true, writable: true, configurable: true })
    } else (frame.copy as Record<string, unknown>)[key] = value
  }

  private step(value: unknown): unknown {
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
        return value === null ? null : this.enter(value)
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

  private enter(value: object): unknown {
    const known = this.seen.get(value)
    if (known !== undefined) {
      return known === IN_PROGRESS ? this.fail('cycle', 'a cycle (the value contains itself) is not JSON') : known
    }
    const proto: unknown = Object.getPrototypeOf(value)
    let keys: string[] | undefined
    let length: number
    if (Array.isArray(value)) {
      if (proto !== Array.prototype && !Array.isArray(proto)) {
        return this.fail('class-instance', 'an instance of an Array subclass is not JSON')
      }
      length = value.length
      const ownKeys = Reflect.ownKeys(value)
      if (ownKeys.length > length + 1) return this.diagnoseArray(ownKeys)
    } else {
      if (proto !== Object.prototype && proto !== null && !isObjectPrototype(proto as object)) {
        const name = (value as { constructor?: { name?: unknown } }).constructor?.name
        const what = typeof name === 'string' && name !== '' ? `a ${name}` : 'an object with a custom prototype'
        return this.fail('class-instance', `${what} is not JSON (only plain objects and arrays are)`)
      }
      keys = Object.keys(value)
      length = keys.length
      const ownKeys = Reflect.ownKeys(value)
      if (ownKeys.length !== length) return this.diagnoseObject(value, ownKeys)
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

  private diagnoseArray(ownKeys: (string | symbol)[]): typeof FAILED {
    for (const key of ownKeys) {
      if (typeof key === 'symbol') return this.fail('symbol-key', `an array with a symbol key (${String(key)}) is not JSON`)
      if (key !== 'length' && !/^(?:0|[1-9][0-9]*)$/.test(key)) {
        this.extra = key
        return this.fail('decorated-array', `an array with an extra property "${key}" is not JSON`)
      }
    }
    return this.fail('decorated-array', 'an array with extra properties is not JSON')
  }

  private diagnoseObject(value: object, ownKeys: (string | symbol)[]): typeof FAILED {
    for (const key of ownKeys) {
      if (typeof key === 'symbol') return this.fail('symbol-key', `a symbol key (${String(key)}) is not JSON`)
      if (!Object.prototype.propertyIsEnumerable.call(value, key)) {
        this.extra = key
        return this.fail('non-enumerable-key', `a non-enumerable property "${key}" would be lost in JSON`)
      }
    }
    return this.fail('threw', 'the object changed its keys while being read')
  }

  private fail(reason: NonJsonReason, detail: string): typeof FAILED {
    this.reason = reason
    this.detail = detail
    return FAILED
  }

  private failure(): JsonSnapshotResult | boolean {
    if (!this.copying) return false
    const segments: JsonPathSegment[] = []
    if (this.extra !== undefined) segments.push(this.extra)
    if (this.key !== undefined) segments.push(this.key)
    for (let frame = this.top; frame?.parent !== undefined; frame = frame.parent) segments.push(frame.key)
    segments.reverse()
    // `key` belongs to the frame being read; when the failing value was the root, there is no key.
    const path = formatJsonPath(segments)
    return {
      ok: false,
      error: { path, segments, reason: this.reason, message: `${this.detail} (${describeJsonPath(path)})` },
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
 * arrays; a sub-object reached twice is copied once and shared. A `__proto__` key stays data. Each getter runs
 * once. The walk is iterative: nesting depth is limited only by memory.
 */
export function snapshotJson(value: unknown): JsonSnapshotResult {
  return new Walker(true).run(value) as JsonSnapshotResult
}

/** True when `value` is lossless JSON by the rules of {@link snapshotJson}. Never throws. */
export function isJsonValue(value: unknown): value is ReadonlyJsonValue {
  return new Walker(false).run(value) === true
}

/** Like {@link snapshotJson}, but throws a {@link NonJsonValueError} (code `NON_JSON_VALUE`) on failure. */
export function toJsonValue(value: unknown): ReadonlyJsonValue {
  const result = snapshotJson(value)
  if (!result.ok) throw new NonJsonValueError(result.error)
  return result.value
}

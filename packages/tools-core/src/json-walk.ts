/** The walk behind `snapshotJson` and `isJsonValue`: one pass that checks, counts, and (when copying) copies and freezes. */
import type { JsonSnapshotResult, NonJsonReason } from './json-snapshot.js'
import type { ReadonlyJsonValue } from './json.js'
import { describeJsonPath, formatJsonPath, type JsonPathSegment } from './json-path.js'
import { isEmptyPrototype, SNAPSHOT_PROTOTYPE } from './snapshot-prototype.js'
import { SnapshotMark } from './snapshot-mark.js'

interface Frame {
  readonly source: Record<string, unknown>
  readonly copy: unknown[] | Record<string, unknown> | undefined
  /** Own keys of an object; `undefined` for an array. */
  readonly keys: string[] | undefined
  readonly length: number
  index: number
  /** This container's key in its parent. */
  readonly key: JsonPathSegment
  /** The expanded size counted before this container's contents. */
  readonly start: number
  /** The height of the tallest container inside it so far. */
  below: number
}

/** What a container reached again after sharing started expands to, so it is not walked again. */
interface Shared {
  readonly copy: unknown
  /** Its expanded size, without the unit its parent counts for it. */
  readonly size: number
  /** How many levels of containers it holds, itself included. */
  readonly height: number
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
const { getPrototypeOf, getOwnPropertyNames, getOwnPropertySymbols, keys: ownEnumerableKeys, freeze, create } = Object
const { ownKeys } = Reflect
const { hasOwn } = Object
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

/** A positive integer option, or `fallback`; never throws. */

/**
 * One walk that checks, and in copy mode copies and freezes, in a single pass: each property is read once and
 * dealt with before the next is read. Recursion down to {@link RECURSION_LIMIT} levels (fast for the shallow
 * values almost every call carries), an explicit stack below that (any depth works). A failure's path is
 * collected only when something fails, as the walk unwinds. The expanded size is counted as the walk goes; once
 * repeats are shared, each shared container's size and height are remembered, so a DAG is never expanded to be
 * measured.
 */
export class Walk {
  /** The containers being walked, outermost first: reaching one of them again is a cycle. */
  private readonly open: object[] = []
  private ancestors: Set<object> | undefined = undefined
  private shared: Map<object, Shared> | undefined = undefined
  private containers = 0
  /** The expanded size so far (see `MAX_JSON_SIZE`). */
  private size = 1
  /** The height of the container finished last (or reused), for its parent. */
  private height = 0
  /** The failure's path, innermost segment first. */
  private readonly trail: JsonPathSegment[] = []
  private reason: NonJsonReason = 'threw'
  private detail = ''

  constructor(
    private readonly copying: boolean,
    private readonly maxDepth: number,
    private readonly maxSize: number,
  ) {}

  run(root: unknown): JsonSnapshotResult {
    const result =
      typeof root === 'object' && root !== null
        ? this.container(root, 0)
        : !this.scalar(root)
          ? FAILED
          : typeof root === 'string' && root.length >= this.maxSize
            ? this.tooLarge()
            : root
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
   * `FAILED` for a cycle or a container too deep, the finished copy of a sub-object already walked, or `undefined`
   * to walk it (it is then open until {@link done}). Ancestors shallower than {@link DEEP} are scanned; deeper
   * ones live in a Set.
   */
  private known(value: object, depth: number): unknown {
    // A finished snapshot (see SnapshotMark) is reused as it is: frozen, detached, acyclic, its size and height known.
    if (SnapshotMark.has(value)) {
      const height = SnapshotMark.heightOf(value as SnapshotMark)
      if (depth + height > this.maxDepth) return this.tooDeep()
      this.size += SnapshotMark.sizeOf(value as SnapshotMark)
      if (this.size > this.maxSize) return this.tooLarge()
      this.height = height
      return this.copying ? value : true
    }
    const open = this.open
    for (let index = (depth < DEEP ? depth : DEEP) - 1; index >= 0; index -= 1) if (open[index] === value) return this.cycle()
    if (depth > DEEP && this.ancestors?.has(value)) return this.cycle()
    if (depth >= this.maxDepth) return this.tooDeep()
    if (this.shared !== undefined) {
      const entry = this.shared.get(value)
      if (entry !== undefined) {
        if (depth + entry.height > this.maxDepth) return this.tooDeep()
        this.size += entry.size
        if (this.size > this.maxSize) return this.tooLarge()
        this.height = entry.height
        return entry.copy
      }
    } else if (++this.containers > SHARE_AFTER) this.shared = new Map()
    if (depth < DEEP) open[depth] = value
    else (this.ancestors ??= new Set()).add(value)
    return undefined
  }

  private cycle(): typeof FAILED {
    return this.fail('cycle', 'a cycle (the value contains itself) is not JSON')
  }

  private tooDeep(): typeof FAILED {
    return this.fail('too-deep', `containers nested more than ${this.maxDepth} levels deep are refused (the depth limit, MAX_JSON_DEPTH)`)
  }

  private tooLarge(): typeof FAILED {
    return this.fail(
      'too-large',
      `the value would expand to more than ${this.maxSize} units of JSON text (the size limit, MAX_JSON_SIZE; a sub-object counts every time it is reached)`,
    )
  }

  /**
   * Closes a walked container: its size joins the total (and is checked), the cycle check forgets it, the copy is
   * frozen and, when sharing, remembered with its size and height.
   */
  private done(value: object, depth: number, copy: unknown[] | Record<string, unknown> | undefined, start: number, below: number): unknown {
    if (this.size > this.maxSize) return this.tooLarge()
    if (depth >= DEEP) (this.ancestors as Set<object>).delete(value)
    // The root of a copy is marked as a finished snapshot, so walking it again costs nothing.
    if (depth === 0 && copy !== undefined) SnapshotMark.stamp(copy, this.size - start, below + 1)
    const done = copy === undefined ? true : freeze(copy)
    this.height = below + 1
    this.shared?.set(value, { copy: done, size: this.size - start, height: below + 1 })
    return done
  }

  /** `undefined` when the container's own shape is JSON, or `FAILED` with the reason recorded. */
  private check(value: object, array: boolean): undefined | typeof FAILED {
    const proto: unknown = getPrototypeOf(value)
    if (array) {
      if (proto !== ArrayPrototype && !isArray(proto)) return this.fail('class-instance', 'an instance of an Array subclass is not JSON')
      const own = ownKeys(value)
      const length = (value as unknown[]).length
      if (own.length === length + 1) return undefined
      for (const name of own) {
        if (typeof name === 'symbol') return this.fail('symbol-key', `an array with a symbol key (${String(name)}) is not JSON`)
        if (name !== 'length' && !arrayIndex.test(name)) {
          return this.fail('decorated-array', `an array with an extra property "${name}" is not JSON`, name)
        }
      }
      // Fewer keys than indices: a hole. Found here, by own keys, so that an index inherited from a polluted
      // prototype is never read in its place.
      for (let index = 0; index < length; index++) if (!hasOwn(value, index)) return this.hole(index)
      return undefined
    }
    if (proto !== ObjectPrototype && !isEmptyPrototype(proto) && !isObjectPrototype(proto as object)) {
      const name: unknown = (value as { constructor?: { name?: unknown } }).constructor?.name
      return this.fail(
        'class-instance',
        `${typeof name === 'string' && name ? `a ${name}` : 'an object with a custom prototype'} is not JSON (only plain objects and arrays are)`,
      )
    }
    return undefined
  }

  private hole(index: number): typeof FAILED {
    return this.fail('sparse-array', 'a hole in a sparse array is not JSON', index)
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

  /** A scalar child that is not a string: itself, or `FAILED`. */
  private other(source: object, key: JsonPathSegment, child: unknown): unknown {
    // A hole the own-key count missed (a proxy whose traps disagree): never read through the prototype.
    if (child === undefined && typeof key === 'number' && !hasOwn(source, key)) return this.fail('sparse-array', 'a hole in a sparse array is not JSON')
    return this.scalar(child) ? child : FAILED
  }

  private container(value: object, depth: number): unknown {
    const known = this.known(value, depth)
    if (known !== undefined) return known
    if (depth >= RECURSION_LIMIT) return this.iterate(value, depth)
    const start = this.size
    let below = 0
    let key: JsonPathSegment | undefined
    try {
      if (isArray(value)) {
        if (this.check(value, true) === FAILED) return FAILED
        const length = value.length
        let size = length
        const copy: unknown[] | undefined = this.copying ? [] : undefined
        for (let index = 0; index < length; index++) {
          let child: unknown = value[(key = index)]
          if (typeof child === 'string') size += child.length
          else if (typeof child === 'object') {
            if (child !== null) {
              if ((child = this.container(child, depth + 1)) === FAILED) return this.unwind(key)
              if (this.height > below) below = this.height
            }
          } else if ((child = this.other(value, index, child)) === FAILED) return this.unwind(key)
          if (copy !== undefined) copy[index] = child
        }
        this.size += size
        return this.done(value, depth, copy, start, below)
      }
      if (this.check(value, false) === FAILED) return FAILED
      const keys = this.keys(value)
      if (keys === FAILED) return FAILED
      const source = value as Record<string, unknown>
      let size = keys.length
      const copy: Record<string, unknown> | undefined = this.copying ? (create(SNAPSHOT_PROTOTYPE) as Record<string, unknown>) : undefined
      for (let index = 0; index < keys.length; index++) {
        let child: unknown = source[(key = keys[index] as string)]
        size += key.length
        if (typeof child === 'string') size += child.length
        else if (typeof child === 'object') {
          if (child !== null) {
            if ((child = this.container(child, depth + 1)) === FAILED) return this.unwind(key)
            if (this.height > below) below = this.height
          }
        } else if ((child = this.other(value, key, child)) === FAILED) return this.unwind(key)
        if (copy !== undefined) store(copy, key, child)
      }
      this.size += size
      return this.done(value, depth, copy, start, below)
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
          this.size += typeof key === 'string' ? key.length + 1 : 1
          if (typeof child === 'string') this.size += child.length
          else if (typeof child === 'object' && child !== null) {
            const known = this.known(child, depth + stack.length + 1)
            if (known === FAILED) break
            if (known === undefined) {
              const next = this.frame(child, key)
              if (next === FAILED) break
              stack.push(frame)
              frame = next
              continue
            }
            if (this.height > frame.below) frame.below = this.height
            child = known
          } else if (typeof child !== 'object' && (child = this.other(frame.source, key, child)) === FAILED) break
          if (frame.copy !== undefined) store(frame.copy, key, child)
        } else {
          const done = this.done(frame.source, depth + stack.length, frame.copy, frame.start, frame.below)
          if (done === FAILED) {
            key = undefined
            break
          }
          const parent = stack.pop()
          if (parent === undefined) return done
          if (this.height > parent.below) parent.below = this.height
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
      copy: this.copying ? (keys === undefined ? [] : (create(SNAPSHOT_PROTOTYPE) as Record<string, unknown>)) : undefined,
      keys,
      length,
      index: 0,
      key,
      start: this.size,
      below: 0,
    }
  }
}


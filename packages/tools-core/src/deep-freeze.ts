import { describeJsonPath, formatJsonPath, type JsonPathSegment } from './json-path.js'
import { NonJsonValueError } from './non-json-value-error.js'

/** A deeply readonly view of `T` (functions are left as they are). */
export type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends readonly (infer Item)[]
    ? readonly DeepReadonly<Item>[]
    : T extends object
      ? { readonly [Key in keyof T]: DeepReadonly<T[Key]> }
      : T

function errorText(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error)
  } catch {
    return 'an unprintable value'
  }
}

/**
 * Freezes `value` and every object reachable through its own data properties (string and symbol keys), in
 * place, and returns it. Iterative (any depth), safe on cycles and shared sub-objects; getters are never invoked.
 * Functions are behaviour, not data: they are neither frozen nor descended into.
 *
 * @throws {@link NonJsonValueError} (code `NON_JSON_VALUE`, reason `threw`, with the path) when an object cannot
 *   be read or frozen: a revoked proxy, a proxy trap that throws. Never a raw `TypeError`.
 */
export function deepFreeze<T>(value: T): DeepReadonly<T> {
  if (typeof value !== 'object' || value === null) return value as DeepReadonly<T>
  const visited = new WeakSet<object>()
  // Every object found, with where it was found (its parent's position here and its key), for a failure's path.
  const found: object[] = [value]
  const parents: number[] = [-1]
  const keys: PropertyKey[] = ['']
  const pending: number[] = [0]
  visited.add(value)
  let current = 0
  try {
    while (pending.length > 0) {
      current = pending.pop() as number
      const object = found[current] as object
      Object.freeze(object)
      for (const key of Reflect.ownKeys(object)) {
        const descriptor = Object.getOwnPropertyDescriptor(object, key)
        const child: unknown = descriptor?.value
        if (typeof child === 'object' && child !== null && !visited.has(child)) {
          visited.add(child)
          pending.push(found.length)
          found.push(child)
          parents.push(current)
          keys.push(key)
        }
      }
    }
  } catch (error) {
    const segments: JsonPathSegment[] = []
    for (let at = current; at > 0; at = parents[at] as number) {
      const key = keys[at] as PropertyKey
      segments.unshift(typeof key === 'symbol' ? String(key) : Array.isArray(found[parents[at] as number]) && /^\d+$/.test(key as string) ? Number(key) : (key as string))
    }
    const path = formatJsonPath(segments)
    const detail = `the value could not be frozen: ${errorText(error)}`
    throw new NonJsonValueError({ path, segments, reason: 'threw', detail, message: `${detail} (${describeJsonPath(path)})` })
  }
  return value as DeepReadonly<T>
}

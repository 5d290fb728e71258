/** A deeply readonly view of `T` (functions are left as they are). */
export type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends readonly (infer Item)[]
    ? readonly DeepReadonly<Item>[]
    : T extends object
      ? { readonly [Key in keyof T]: DeepReadonly<T[Key]> }
      : T

/**
 * Freezes `value` and every object reachable through its own data properties (string and symbol keys), in
 * place, and returns it. Iterative (any depth), safe on cycles and shared sub-objects; getters are never invoked.
 * Functions are behaviour, not data: they are neither frozen nor descended into.
 */
export function deepFreeze<T>(value: T): DeepReadonly<T> {
  if (typeof value !== 'object' || value === null) return value as DeepReadonly<T>
  const visited = new WeakSet<object>()
  const pending: object[] = [value]
  visited.add(value)
  while (pending.length > 0) {
    const current = pending.pop() as object
    Object.freeze(current)
    for (const key of Reflect.ownKeys(current)) {
      const descriptor = Object.getOwnPropertyDescriptor(current, key)
      const child: unknown = descriptor?.value
      if (typeof child === 'object' && child !== null) {
        if (!visited.has(child)) {
          visited.add(child)
          pending.push(child)
        }
      }
    }
  }
  return value as DeepReadonly<T>
}

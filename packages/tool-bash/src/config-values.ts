/** A config value as a message shows it: `"text"`, `3`, `null`, `an array`, `an object`, `a function`. */
export function describeConfigValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' || value === null) return String(value)
  if (value === undefined) return 'undefined'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

/** True for an object literal or a null-prototype object: what a configuration must be. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype: unknown = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

/**
 * `object[key]` when `object` has it as an own property, else `undefined`: what readers of caller-supplied objects
 * use, so that a value inherited from a polluted `Object.prototype` is never taken for one the caller gave.
 */
export function ownValue(object: object, key: PropertyKey): unknown {
  return Object.hasOwn(object, key) ? (object as Record<PropertyKey, unknown>)[key] : undefined
}

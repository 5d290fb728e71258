// The one way the registry reads objects it did not build (calls, definitions, restrictions, decisions, results,
// configuration): own properties only, and a read that throws (a getter, a revoked proxy, a proxy trap) becomes a
// FieldReadError naming the field, which each boundary turns into its documented coded error.

const hasOwn = Object.hasOwn
const isArrayValue = Array.isArray

/** Reading `field` of a foreign object threw. Internal: boundaries turn it into their coded error. */
export class FieldReadError extends Error {
  override readonly name = 'FieldReadError'

  constructor(
    /** The field, as a path from the object the boundary was given (`annotations.readOnlyHint`, `content[0].text`). */
    readonly field: string,
    cause: unknown,
  ) {
    super(`reading ${field} threw: ${describeCause(cause)}`, { cause })
  }
}

function describeCause(cause: unknown): string {
  try {
    if (cause instanceof Error) return cause.message === '' ? cause.name : `${cause.name}: ${cause.message}`
    return typeof cause === 'string' ? cause : 'a non-error value'
  } catch {
    return 'an error that cannot be described'
  }
}

/**
 * The own property `key` of `value`, or `undefined` when `value` has no such own property (whatever its prototype
 * chain, `Object.prototype` included, says). An own getter is called once. Throws {@link FieldReadError} (naming
 * `field`) when the read throws.
 */
export function readOwn(value: object, key: string | number, field?: string): unknown {
  try {
    // `hasOwn` asks the object itself (a proxy's `getOwnPropertyDescriptor` trap), never its prototype chain; the
    // read then runs an own getter once. Cheaper than copying the property descriptor, and as strict.
    return hasOwn(value, key) ? (value as Record<string | number, unknown>)[key] : undefined
  } catch (error) {
    throw new FieldReadError(field ?? String(key), error)
  }
}

/**
 * True when `value` has an own property `key` (even one whose value is `undefined`). Throws {@link FieldReadError}
 * (naming `field`) when asking throws (a proxy trap, a revoked proxy).
 */
export function hasOwnField(value: object, key: string, field?: string): boolean {
  try {
    return hasOwn(value, key)
  } catch (error) {
    throw new FieldReadError(field ?? key, error)
  }
}

/** `Array.isArray`, which throws for a revoked proxy: that becomes a {@link FieldReadError} naming `field`. */
export function isArray(value: unknown, field: string): value is unknown[] {
  try {
    return isArrayValue(value)
  } catch (error) {
    throw new FieldReadError(field, error)
  }
}

/** True when `value` is a non-null object that is not an array (a record to read fields from). */
export function isRecord(value: unknown, field: string): value is object {
  return typeof value === 'object' && value !== null && !isArray(value, field)
}

/** The own `length` of the array `value`. Throws {@link FieldReadError} when it cannot be read or is not a length. */
export function ownLength(value: readonly unknown[], field: string): number {
  const length = readOwn(value, 'length', `${field}.length`)
  if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) {
    throw new FieldReadError(`${field}.length`, new TypeError('the length of the array is not a valid length'))
  }
  return length
}

/**
 * The elements of the array `value`, read as own properties (a hole is `undefined`, never an inherited index).
 * Throws {@link FieldReadError} when the length or an element cannot be read.
 */
export function ownElements(value: readonly unknown[], field: string): unknown[] {
  const length = ownLength(value, field)
  const elements: unknown[] = []
  for (let index = 0; index < length; index++) elements.push(readOwn(value, index, `${field}[${index}]`))
  return elements
}

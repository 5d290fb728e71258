/**
 * True for a non-null object that is not an array: the shape of a JSON object, which every reader of a server's or
 * a client's message checks first. `T` is what the caller knows the values to be (`unknown` by default).
 */
export function isRecord<T = unknown>(value: unknown): value is Record<string, T> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

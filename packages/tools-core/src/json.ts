/** A JSON scalar: what `JSON.parse` can produce besides arrays and objects. */
export type JsonPrimitive = string | number | boolean | null

/** A JSON object: string keys, JSON values. */
export interface JsonObject {
  [key: string]: JsonValue
}

/** A JSON array. */
export type JsonArray = JsonValue[]

/**
 * A lossless JSON value: survives `JSON.stringify` → `JSON.parse` unchanged.
 * Numbers are finite and never `-0`; there is no `undefined` anywhere.
 */
export type JsonValue = JsonPrimitive | JsonArray | JsonObject

/** A deep-frozen JSON value, as returned by {@link snapshotJson}. */
export type ReadonlyJsonValue =
  | JsonPrimitive
  | readonly ReadonlyJsonValue[]
  | { readonly [key: string]: ReadonlyJsonValue }

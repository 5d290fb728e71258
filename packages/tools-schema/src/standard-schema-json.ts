import { MAX_JSON_DEPTH, snapshotJson, type JsonObject } from '@dsh/tools-core'
import { describeValue, errorText } from './describe-value.js'
import { isPlainArrayPrototype, isPlainPrototype } from './plain-object.js'
import { nonJsonMessage } from './value-rules.js'

/** A converter's JSON Schema as the model is sent it, or why it cannot be sent. */
export type ConvertedJsonSchema = { readonly schema: JsonObject; readonly problem?: undefined } | { readonly schema?: undefined; readonly problem: string }

const { getOwnPropertyDescriptor, getPrototypeOf, defineProperty } = Object
const { ownKeys } = Reflect

/**
 * True for the Standard Schema properties a library hangs on a JSON Schema it produced: zod 4 makes each
 * conversion result a Standard Schema again, with a non-enumerable `~standard` on the result's root, so a converter
 * that embeds another conversion's result (an arktype or hand-written schema composing zod parts) has one nested.
 * It is not JSON (`JSON.stringify` skips it), so it is not part of what the model is sent.
 */
function isStandardAnnotation(key: string | symbol, descriptor: PropertyDescriptor): boolean {
  if (key !== '~standard' || descriptor.enumerable === true) return false
  const props: unknown = descriptor.value
  return typeof props === 'object' && props !== null && (props as { version?: unknown }).version === 1
}

/**
 * A copy of `value` without the Standard Schema annotations, for `snapshotJson` to judge: everything else is copied
 * as it is (other non-enumerable keys, symbol keys, holes, class instances and functions stay, so the snapshot
 * refuses them with its own message and path). Reads each property once.
 */
function withoutAnnotations(value: unknown, depth: number, ancestors: Set<object>): unknown {
  if (typeof value !== 'object' || value === null || depth > MAX_JSON_DEPTH || ancestors.has(value)) return value
  const proto: unknown = getPrototypeOf(value)
  const isArray = Array.isArray(value)
  if (isArray ? !isPlainArrayPrototype(proto) : !isPlainPrototype(proto)) return value
  ancestors.add(value)
  const copy: object = isArray ? [] : {}
  for (const key of ownKeys(value)) {
    const descriptor = getOwnPropertyDescriptor(value, key)
    if (descriptor === undefined || isStandardAnnotation(key, descriptor)) continue
    if (isArray && key === 'length') continue
    const read = 'value' in descriptor ? descriptor.value : descriptor.get?.call(value)
    defineProperty(copy, key, {
      value: withoutAnnotations(read, depth + 1, ancestors),
      enumerable: descriptor.enumerable === true,
      writable: true,
      configurable: true,
    })
  }
  if (isArray) (copy as unknown[]).length = (value as unknown[]).length
  ancestors.delete(value)
  return copy
}

/**
 * A shallow copy of a plain root object's own enumerable keys but `$schema`, when every other own key of it is a
 * Standard Schema annotation; `undefined` when it has another kind of key, or cannot be read (the full copy then
 * judges it). Never throws.
 */
function rootWithoutAnnotation(value: object): Record<string, unknown> | undefined {
  try {
    if (!isPlainPrototype(getPrototypeOf(value))) return undefined
    const keys = Object.keys(value)
    const all = ownKeys(value)
    if (all.length !== keys.length) {
      for (const key of all) {
        if (typeof key === 'string' && Object.prototype.propertyIsEnumerable.call(value, key)) continue
        const descriptor = getOwnPropertyDescriptor(value, key)
        if (descriptor === undefined || !isStandardAnnotation(key, descriptor)) return undefined
      }
    }
    const root: Record<string, unknown> = {}
    for (const key of keys) {
      if (key === '$schema') continue
      const child: unknown = (value as Record<string, unknown>)[key]
      if (key === '__proto__') defineProperty(root, key, { value: child, enumerable: true, writable: true, configurable: true })
      else root[key] = child
    }
    return root
  } catch {
    return undefined
  }
}

/**
 * Reads what a Standard JSON Schema converter returned (`side`: which converter, for messages): an object that is
 * lossless JSON once the libraries' non-enumerable `~standard` annotations are set aside, at any depth. The root's
 * `$schema` is dropped: it names the dialect for validators, and providers reject or ignore it in a tool's
 * parameters. Anything else that is not JSON (a function, `NaN`, a symbol key, another non-enumerable property) is a
 * problem naming where it is. Never throws.
 */
export function readConvertedJsonSchema(converted: unknown, side: 'input' | 'output', vendor: string): ConvertedJsonSchema {
  const produced = `the ${side} JSON Schema ${vendor} produced`
  if (typeof converted !== 'object' || converted === null || Array.isArray(converted)) {
    return { problem: `${produced} must be an object, got ${describeValue(converted)}` }
  }
  // The common case first: the only key JSON cannot carry is the root's own `~standard` annotation (zod's), so a
  // shallow copy of the root without it is what the snapshot judges. Anything else (a nested annotation, another
  // non-enumerable or symbol key) takes the full copy below, which keeps every key but the annotations.
  const fast = rootWithoutAnnotation(converted)
  if (fast !== undefined) {
    const snapshot = snapshotJson(fast)
    if (snapshot.ok) return { schema: snapshot.value as JsonObject }
  }
  let copy: unknown
  try {
    copy = withoutAnnotations(converted, 0, new Set())
  } catch (error) {
    return { problem: `${produced} cannot be read: ${errorText(error)}` }
  }
  if (typeof copy !== 'object' || copy === null || copy === converted) {
    return { problem: `${produced} must be a plain object, got ${describeValue(converted)}` }
  }
  const root = copy as Record<string, unknown>
  delete root['$schema']
  const snapshot = snapshotJson(root)
  if (!snapshot.ok) {
    const at = snapshot.error.path === '' ? '' : ` at ${snapshot.error.path}`
    return { problem: `${produced} ${nonJsonMessage(snapshot.error).replace(/^is not lossless JSON/, `is not lossless JSON${at}`)}` }
  }
  return { schema: snapshot.value as JsonObject }
}

import { describeValue, errorText } from './describe-value.js'
import { isPlainArrayPrototype, isPlainPrototype } from './plain-object.js'

/**
 * The one way specs, definitions and options are read (the schema readers, `defineTool`, the DSL builders, the
 * structured-output subset): each own enumerable property read exactly once, into a map, and never a throw.
 * A revoked proxy, a throwing getter or proxy trap becomes `threw` (the error's text); a value that is not a plain object becomes
 * `got` (what it was, for a message). Inherited properties (a polluted `Object.prototype`) are never seen.
 */
export type OwnObject =
  | { readonly entries: ReadonlyMap<string, unknown>; readonly symbols: boolean; readonly got?: undefined; readonly threw?: undefined }
  | { readonly entries?: undefined; readonly got: string; readonly threw?: undefined }
  | { readonly entries?: undefined; readonly got?: undefined; readonly threw: string }

/** The elements of a plain array, each read once (a hole is `undefined`, never read through the prototype). */
export type OwnArray =
  | { readonly items: readonly unknown[]; readonly got?: undefined; readonly threw?: undefined }
  | { readonly items?: undefined; readonly got: string; readonly threw?: undefined }
  | { readonly items?: undefined; readonly got?: undefined; readonly threw: string }

const { hasOwn, keys: ownKeys, getOwnPropertySymbols, getPrototypeOf } = Object
const { isArray } = Array

function threw(error: unknown): { readonly threw: string } {
  return { threw: errorText(error) }
}

/** Reads a plain object's own enumerable string-keyed properties, once each. Never throws. */
export function readOwnObject(value: unknown): OwnObject {
  if (typeof value !== 'object' || value === null) return { got: describeValue(value) }
  try {
    if (isArray(value) || !isPlainPrototype(getPrototypeOf(value))) return { got: describeValue(value) }
    const entries = new Map<string, unknown>()
    const record = value as Record<string, unknown>
    for (const key of ownKeys(value)) entries.set(key, record[key])
    return { entries, symbols: getOwnPropertySymbols(value).length > 0 }
  } catch (error) {
    return threw(error)
  }
}

/** Reads a plain array's elements, once each. Never throws. */
export function readOwnArray(value: unknown): OwnArray {
  try {
    if (!isArray(value) || !isPlainArrayPrototype(getPrototypeOf(value))) return { got: describeValue(value) }
    const array = value as unknown[]
    const length = array.length
    const items: unknown[] = []
    for (let index = 0; index < length; index++) items.push(hasOwn(array, index) ? array[index] : undefined)
    return { items }
  } catch (error) {
    return threw(error)
  }
}

/**
 * One option of an options object (`{ cache }`, `{ maxViolations }`), read once; `undefined` when the options are
 * absent, the option is not an own property, or reading it throws (a hostile options object means the defaults).
 */
export function readOption(options: unknown, name: string): unknown {
  if (options === undefined || options === null) return undefined
  const read = readOwnObject(options)
  return read.entries?.get(name)
}

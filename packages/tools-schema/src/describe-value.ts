import type { JsonPrimitive } from '@dsh/tools-core'
import { isPlainArrayPrototype, isPlainPrototype } from './plain-object.js'

const maxLiteralLength = 40

/** `"text"`: quoted as JSON would, without calling JSON.stringify when no character needs escaping. */
function quote(text: string): string {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (code < 0x20 || code === 0x22 || code === 0x5c || code > 0x7e) return JSON.stringify(text)
  }
  return `"${text}"`
}

/** A JSON literal for a message, shortened to about 40 characters: `"read"`, `42`, `null`. */
export function literal(value: JsonPrimitive): string {
  if (typeof value !== 'string') return String(value)
  if (value.length <= maxLiteralLength - 2) return quote(value)
  const shown = quote(value.slice(0, maxLiteralLength - 3))
  return `${shown.slice(0, -1)}…"`
}

/** `"a", "b", "c"`, at most `max` of them, then `…`. */
export function literalList(values: readonly JsonPrimitive[], max = 10): string {
  const shown = values.slice(0, max).map(literal).join(', ')
  return values.length > max ? `${shown}, …` : shown
}

/** The constructor name of a class instance, or `undefined`; never throws. */
function className(value: object): string | undefined {
  try {
    const name: unknown = (value as { constructor?: { name?: unknown } }).constructor?.name
    return typeof name === 'string' && name !== '' && name !== 'Object' && name !== 'Array' ? name : undefined
  } catch {
    return undefined
  }
}

/**
 * What a value is, for a message after "got": `the string "x"`, `the number 1.5`, `an array`, `a Date (not
 * JSON)`, `-0 (not lossless JSON)`. Never throws.
 */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return `the string ${literal(value)}`
    case 'number':
      if (Number.isNaN(value)) return 'NaN (not a JSON number)'
      if (!Number.isFinite(value)) return `${value} (not a JSON number)`
      if (value === 0 && 1 / value < 0) return '-0 (not lossless JSON; use 0)'
      return `the number ${value}`
    case 'boolean':
      return String(value)
    case 'undefined':
      return 'undefined (not JSON)'
    case 'bigint':
      return 'a BigInt (not JSON)'
    case 'symbol':
      return 'a symbol (not JSON)'
    case 'function':
      return 'a function (not JSON)'
    default:
      break
  }
  if (value === null || typeof value !== 'object') return 'null'
  try {
    const proto: unknown = Object.getPrototypeOf(value)
    if (Array.isArray(value)) {
      return isPlainArrayPrototype(proto) ? 'an array' : `${className(value) === undefined ? 'an array with a custom prototype' : `a ${className(value)}`} (not JSON)`
    }
    if (isPlainPrototype(proto)) return 'an object'
    const name = className(value)
    return name === undefined ? 'an object with a custom prototype (not JSON)' : `a ${name} (not JSON)`
  } catch {
    return 'an unreadable object'
  }
}

/** The text of a thrown value, for a message; never throws. */
export function errorText(error: unknown): string {
  try {
    if (error instanceof Error) return String(error.message)
    return String(error)
  } catch {
    return 'an unprintable error'
  }
}

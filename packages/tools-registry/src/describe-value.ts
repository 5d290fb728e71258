/** A short phrase naming what kind of value `value` is, for messages: `a string`, `undefined`, `a Promise`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined'
  if (value === null) return 'null'
  let array: boolean
  try {
    array = Array.isArray(value)
  } catch {
    return 'a revoked proxy' // the only value for which Array.isArray throws
  }
  if (array) return 'an array'
  switch (typeof value) {
    case 'string':
      return value.length <= 40 ? `the string ${JSON.stringify(value)}` : 'a string'
    case 'number':
    case 'boolean':
    case 'bigint':
      return `the ${typeof value} ${String(value)}`
    case 'symbol':
      return 'a symbol'
    case 'function':
      return 'a function'
    default:
      return isThenable(value) ? 'a Promise' : 'an object'
  }
}

/** `"name"`: a tool name as messages quote it. */
export function quote(name: string): string {
  return JSON.stringify(name)
}

/** `TypeError: boom` for an error, the string form otherwise. Never throws, whatever was thrown. */
export function describeThrown(thrown: unknown): string {
  try {
    if (thrown instanceof Error) return thrown.message === '' ? thrown.name : `${thrown.name}: ${thrown.message}`
    if (typeof thrown === 'object' && thrown !== null) {
      const message: unknown = (thrown as { message?: unknown }).message
      if (typeof message === 'string' && message !== '') return message
    }
    return typeof thrown === 'string' ? thrown : describeValue(thrown)
  } catch {
    return 'an error that cannot be described'
  }
}

/** True when `value` has a callable `then`. Never throws. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  try {
    return (
      (typeof value === 'object' || typeof value === 'function') &&
      value !== null &&
      typeof (value as { then?: unknown }).then === 'function'
    )
  } catch {
    return false
  }
}


/** One step of a path into a JSON value: an object key or an array index. */
export type JsonPathSegment = string | number

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/**
 * Formats a path the way a model reads it: `servers[1].host`, `["odd key"].x`. The root is the empty string.
 */
export function formatJsonPath(segments: readonly JsonPathSegment[]): string {
  let path = ''
  for (const segment of segments) {
    if (typeof segment === 'number') path += `[${segment}]`
    else if (identifier.test(segment)) path += path === '' ? segment : `.${segment}`
    else path += `[${JSON.stringify(segment)}]`
  }
  return path
}

/** `at "<path>"`, or `at the root` for the empty path: the tail of a message that names a place. */
export function describeJsonPath(path: string): string {
  return path === '' ? 'at the root' : `at "${path}"`
}

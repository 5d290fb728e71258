import { selectBranch } from './branch-match.js'
import { isRecord, setOwn } from './json-equal.js'

/**
 * The inverse mapping of the `openai-strict` profile: strict mode makes every optional property required and
 * nullable, so the model sends `null` for a property it means to omit; this removes those `null`s again, walking
 * the ORIGINAL schema beside the value, so the tool (and its validator) sees exactly what its schema says. Only a
 * `null` under a property the original declares optional is removed; everything else is copied as it is (invalid
 * values included: the validator reports them). Never throws; returns a fresh value and leaves the input alone.
 *
 * @param schema - the tool's original parameter schema (not the projected one)
 * @param value - the parsed arguments
 */
export function removeOmittedNulls(schema: unknown, value: unknown): unknown {
  return inverse(schema, value, 0)
}

const MAX_DEPTH = 128

function inverse(schema: unknown, value: unknown, depth: number): unknown {
  if (!isRecord(schema) || depth > MAX_DEPTH) return value
  const branches = schema['oneOf'] ?? schema['anyOf']
  if (Array.isArray(branches)) {
    const branch = selectBranch(branches, value)
    return branch === undefined ? value : inverse(branch, value, depth + 1)
  }
  if (Array.isArray(value)) {
    const items = schema['items']
    return isRecord(items) ? value.map((item) => inverse(items, item, depth + 1)) : value
  }
  const properties = schema['properties']
  if (!isRecord(value) || !isRecord(properties)) return value
  const required = new Set(Array.isArray(schema['required']) ? schema['required'] : [])
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    const entry = value[key]
    if (!Object.hasOwn(properties, key)) setOwn(out, key, entry)
    else if (entry !== null || required.has(key)) setOwn(out, key, inverse(properties[key], entry, depth + 1))
  }
  return out
}

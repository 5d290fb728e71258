import { isRecord, jsonEqual } from './json-equal.js'

/**
 * Telling the branches of a `oneOf` apart, by the two criteria a strict profile relies on to send it as `anyOf`:
 * their JSON types, or a required property whose `const`/`enum` values differ (a discriminator). The same criteria
 * pick the branch of a value in the inverse mapping, so the branch chosen there is the only one that can match.
 */

type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'object' | 'array'

/** The JSON types a branch may hold, or `undefined` for "any". */
function branchTypes(schema: Record<string, unknown>): Set<JsonType> | undefined {
  const type = schema['type']
  if (typeof type === 'string') return new Set([type as JsonType])
  const values = literalValues(schema)
  if (values !== undefined) return new Set(values.map(typeOfValue))
  return undefined
}

/** The values of `const` or `enum`, when the schema lists them. */
function literalValues(schema: Record<string, unknown>): unknown[] | undefined {
  if (Object.hasOwn(schema, 'const')) return [schema['const']]
  const values = schema['enum']
  return Array.isArray(values) ? values : undefined
}

/** The JSON type of a value (`integer` for whole numbers). */
export function typeOfValue(value: unknown): JsonType {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value as JsonType
}

function typesOverlap(left: Set<JsonType>, right: Set<JsonType>): boolean {
  for (const type of left) {
    if (right.has(type)) return true
    if ((type === 'integer' && right.has('number')) || (type === 'number' && right.has('integer'))) return true
  }
  return false
}

/** The required properties of an object branch with listed values: name → allowed values. */
function discriminators(schema: Record<string, unknown>): Map<string, unknown[]> {
  const found = new Map<string, unknown[]>()
  const properties = schema['properties']
  const required = schema['required']
  if (schema['type'] !== 'object' || !isRecord(properties) || !Array.isArray(required)) return found
  for (const name of required) {
    if (typeof name !== 'string' || !Object.hasOwn(properties, name)) continue
    const property = properties[name]
    const values = isRecord(property) ? literalValues(property) : undefined
    if (values !== undefined) found.set(name, values)
  }
  return found
}

function valuesOverlap(left: unknown[], right: unknown[]): boolean {
  return left.some((value) => right.some((other) => jsonEqual(value, other)))
}

/** True when no JSON value can match two of the branches (as far as types and discriminators show). */
export function branchesAreDisjoint(branches: readonly unknown[]): boolean {
  for (let i = 0; i < branches.length; i++) {
    for (let j = i + 1; j < branches.length; j++) {
      if (!pairIsDisjoint(branches[i], branches[j])) return false
    }
  }
  return true
}

function pairIsDisjoint(left: unknown, right: unknown): boolean {
  if (!isRecord(left) || !isRecord(right)) return false
  const leftTypes = branchTypes(left)
  const rightTypes = branchTypes(right)
  if (leftTypes !== undefined && rightTypes !== undefined && !typesOverlap(leftTypes, rightTypes)) return true
  const leftValues = literalValues(left)
  const rightValues = literalValues(right)
  if (leftValues !== undefined && rightValues !== undefined && !valuesOverlap(leftValues, rightValues)) return true
  const rightKeys = discriminators(right)
  for (const [name, values] of discriminators(left)) {
    const other = rightKeys.get(name)
    if (other !== undefined && !valuesOverlap(values, other)) return true
  }
  return false
}

/** Whether `value` passes the branch's type, literal and discriminator checks (not a full validation). */
function couldMatch(schema: unknown, value: unknown): boolean {
  if (!isRecord(schema)) return false
  const types = branchTypes(schema)
  if (types !== undefined && !typesOverlap(types, new Set([typeOfValue(value)]))) return false
  if (types !== undefined && types.has('integer') && !types.has('number') && typeOfValue(value) === 'number') return false
  const values = literalValues(schema)
  if (values !== undefined && !values.some((allowed) => jsonEqual(allowed, value))) return false
  if (isRecord(value)) {
    for (const [name, allowed] of discriminators(schema)) {
      if (!Object.hasOwn(value, name) || !allowed.some((entry) => jsonEqual(entry, value[name]))) return false
    }
  }
  return true
}

/** The one branch `value` can belong to, or `undefined` when none or several could. */
export function selectBranch(branches: readonly unknown[], value: unknown): unknown {
  let chosen: unknown
  let count = 0
  for (const branch of branches) {
    if (couldMatch(branch, value)) {
      chosen = branch
      count += 1
    }
  }
  return count === 1 ? chosen : undefined
}

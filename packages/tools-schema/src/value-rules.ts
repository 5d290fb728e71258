// The rules every validator applies, in one place for both backends (closures and generated code): what lossless
// JSON is, the inline checks of scalar leaves, the prototypes the plain-object and plain-array tests compare with,
// and how a oneOf's discriminator is found.
import { describeJsonPath, isJsonValue, snapshotJson, type JsonPrimitive, type JsonSnapshotFailure } from '@dsh/tools-core'
import { restricts } from './constraints.js'
import { literal, literalList } from './describe-value.js'
import type { ObjectNode, ScalarKind, ScalarNode, SchemaNode } from './schema-node.js'
import { pathPiece, type Sink } from './validation-sink.js'

/** Lossless JSON, with cheap answers for scalars. */
export function isJson(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true
    case 'number':
      return value - value === 0 && (value !== 0 || 1 / value > 0)
    case 'object':
      return value === null || isJsonValue(value)
    default:
      return false
  }
}

/** `is not lossless JSON: <why>` for a snapshot failure (without its own `(at …)` tail: the path says where). */
export function nonJsonMessage(failure: JsonSnapshotFailure): string {
  const suffix = ` (${describeJsonPath(failure.path)})`
  const detail = failure.message.endsWith(suffix) ? failure.message.slice(0, -suffix.length) : failure.message
  return `is not lossless JSON: ${detail}`
}

/** The message of a violation found by a second read but not by the first. */
export const changedWhileReading = 'the value changed while it was being validated (a getter or proxy answered differently)'

/** Records why `value` is not lossless JSON, with the path inside it. */
export function reportNonJson(sink: Sink, value: unknown): void {
  const snapshot = snapshotJson(value)
  if (snapshot.ok) sink.add('unreadable', changedWhileReading)
  else {
    const { segments } = snapshot.error
    sink.add('json', nonJsonMessage(snapshot.error), segments.slice().reverse(), segments.map(pathPiece).join(''))
  }
}

/** `a string`, `an integer`, …: what a scalar node expects, in a message. */
export const expectedText: Record<ScalarKind, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  null: 'null',
}

// Leaf codes: a property or element whose schema is a plain scalar is checked inline by the object and array
// loops (no call); everything else goes through its compiled check (CALL).
export const CALL = 0
export const STRING = 1
export const NUMBER = 2
export const INTEGER = 3
export const BOOLEAN = 4
export const NULL = 5
/** A string `const` (only the fast loops use it: the literal itself is the test). */
export const CONST = 6

/** The leaf code of a scalar type. */
export function kindCode(kind: ScalarKind): number {
  return { string: STRING, number: NUMBER, integer: INTEGER, boolean: BOOLEAN, null: NULL }[kind]
}

/** The leaf code of a node: its scalar kind when the loops can check it inline, else CALL. */
export function leafCode(node: SchemaNode): number {
  return !isScalarNode(node) || node.enum !== undefined || node.hasConst || restricts(node.constraints) ? CALL : kindCode(node.kind)
}

/**
 * The inline check of a leaf code (finite numbers only, never -0; CONST is `value === wanted`); `false` for CALL (the caller then runs the
 * compiled check).
 */
export function leafMatches(leaf: number, value: unknown, wanted?: unknown): boolean {
  switch (leaf) {
    case STRING:
      return typeof value === 'string'
    case CONST:
      return value === wanted
    case NUMBER:
      return typeof value === 'number' && value - value === 0 && (value !== 0 || 1 / value > 0)
    case INTEGER:
      return Number.isInteger(value) && (value !== 0 || 1 / (value as number) > 0)
    case BOOLEAN:
      return value === true || value === false
    case NULL:
      return value === null
    default:
      return false
  }
}

// The fast plain-object test reads `value.__proto__` inline: V8 turns it into a map load, where
// `Object.getPrototypeOf` (or a shared helper) is a call several times slower. A value whose `__proto__` reads
// differently (an own `__proto__` key, a null prototype, another realm) takes the exact slow path.
export const ObjectPrototype: unknown = Object.prototype
// Inside for…in the own-key test is written `Object.prototype.hasOwnProperty.call(record, key)`, in full: V8 then
// answers it from the enumeration cache, and the own-keys-only rule costs nothing measurable. Through a captured
// `hasOwnProperty` (or `Object.hasOwn`) V8 does not, and the valid-flat case took twice as long (17 → 38 ns, bench
// validation). This trusts `Object.prototype.hasOwnProperty` itself: data pollution adds keys, it does not replace
// built-in methods (a non-function there makes the call throw, which the registry reports; it never reads a
// polluted value). Elsewhere the captured one is used.
export const { hasOwnProperty } = Object.prototype
/** `Array.prototype`, compared with a plain array's `__proto__`. */
export const ArrayPrototype: unknown = Array.prototype

/** The shape of a value whose `__proto__` the fast paths read. */
export interface Proto {
  readonly __proto__?: unknown
}

/**
 * The prototype a plain array's holes read through. An element is read only as an own property: where the
 * prototype chain holds the index (a polluted `Array.prototype` or `Object.prototype`) and the array does not, the
 * element is the hole it is (`undefined`). Checking `index in proto` first keeps the own-property check off the
 * path of every element of an unpolluted array.
 */
export function prototypeOfArray(array: unknown[]): object {
  return (array as Proto).__proto__ === ArrayPrototype ? Array.prototype : (Object.getPrototypeOf(array) as object)
}

/** Whether a node is a scalar (string, number, integer, boolean, null). */
export function isScalarNode(node: SchemaNode): node is ScalarNode {
  return node.kind !== 'json' && node.kind !== 'object' && node.kind !== 'array' && node.kind !== 'oneOf'
}

/** A few words naming a `oneOf` branch: `kind "edit"`, `a string`, `an object`. */
export function describeShape(node: SchemaNode): string {
  switch (node.kind) {
    case 'object': {
      for (const property of node.properties) {
        const tag = property.node
        if (isScalarNode(tag) && tag.hasConst) return `${property.name} ${literal(tag.const)}`
      }
      return 'an object'
    }
    case 'array':
    case 'json':
    case 'oneOf':
      return node.kind
    default:
      return node.hasConst ? literal(node.const) : expectedText[node.kind]
  }
}

/** A property that tells a oneOf's object branches apart (see {@link discriminatorOf}). */
export interface Discriminator {
  readonly name: string
  /** Literal → the only branch that literal can select. */
  readonly branches: ReadonlyMap<unknown, number>
  readonly literals: string
}

/**
 * A property that tells the branches apart: every branch is an object declaring it with `const` or `enum`, and no
 * literal belongs to two branches. A value whose property holds a literal can then only match that literal's branch.
 */
export function discriminatorOf(nodes: readonly SchemaNode[]): Discriminator | undefined {
  const [first] = nodes
  if (first?.kind !== 'object' || !nodes.every((node) => node.kind === 'object')) return undefined
  candidates: for (const { name } of first.properties) {
    const branches = new Map<unknown, number>()
    for (let index = 0; index < nodes.length; index++) {
      const tag = (nodes[index] as ObjectNode).properties.find((property) => property.name === name)?.node
      if (tag === undefined || !isScalarNode(tag)) continue candidates
      const literals = tag.hasConst ? [tag.const] : tag.enum
      if (literals === undefined) continue candidates
      for (const literal of literals) {
        if (branches.has(literal)) continue candidates
        branches.set(literal, index)
      }
    }
    return { name, branches, literals: literalList([...branches.keys()] as JsonPrimitive[]) }
  }
  return undefined
}

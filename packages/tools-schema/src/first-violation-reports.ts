// What the generated first-violation walk (generate-first-violation.ts) returns where it stops. Each failing node
// states its own violation, with the messages both backends build from the same functions (validation-sink.ts,
// constraints.ts, compile-validator.ts), as a fresh `Violation` whose path the generated code then writes in (or,
// past a call, completes with the path above it: `within`). Only what cannot be stated from one node alone (a oneOf without a usable tag, which ranks all
// of its branches) is recorded by the node's closure check instead (`fromCheck`).
import type { JsonPathSegment, JsonPrimitive } from '@dsh/tools-core'
import { snapshotJson } from '@dsh/tools-core'
import { argumentsMessage } from './compile-validator.js'
import {
  checkNumberConstraints,
  checkStringConstraints,
  constraintMessages,
  restricts,
  type ConstraintKeyword,
  type ConstraintSink,
} from './constraints.js'
import { describeValue, literal, literalList } from './describe-value.js'
import type { ScalarNode } from './schema-node.js'
import { constMessage, enumMessage, expectation, pathPiece, Sink, typeMessage, unreadableMessage, type Check, type Expectation } from './validation-sink.js'
import { changedWhileReading, expectedText, kindCode, leafMatches, nonJsonMessage, STRING } from './value-rules.js'
import type { ViolationKeyword } from './violation.js'

/**
 * A violation on its way up: `segments` outermost first and `path` its text (`.name[3]`), both relative to the value
 * of the locating function that returned it, and completed by the callers above (see {@link within}). `null` where
 * the node that failed, read again by its closure check, found nothing (a getter or proxy that answers
 * differently): the caller then walks the whole value with the closures.
 */
export interface Pending {
  path: string
  /** `null` while the violation is at the value itself (no segment yet). */
  segments: JsonPathSegment[] | null
  keyword: ViolationKeyword
  message: string
}

/** A violation of the node the walk is in (no path inside it yet). */
function at(keyword: ViolationKeyword, message: string): Pending {
  return { path: '', segments: null, keyword, message }
}

/**
 * Puts a violation found at or below a place under that place: `segments` and `path` lead from the locating
 * function's value to it (the generated code writes both out where the violation is found).
 */
export function within(pending: Pending | null, segments: JsonPathSegment[], path: string): Pending | null {
  if (pending === null) return null
  const inner = pending.segments
  if (inner === null) {
    pending.segments = segments
    pending.path = path
  } else {
    pending.segments = segments.concat(inner)
    pending.path = path + pending.path
  }
  return pending
}

/** Reports a value that failed a node: called only with a value the node's accept check rejected. */
export type Reporter = (value: unknown) => Pending | null

/** `expected <what>, got <value>`: a value that is not an object, an array, … */
export function typeReporter(expected: Expectation): Reporter {
  return (value) => at('type', typeMessage(expected, value))
}

/** The arguments themselves are not an object (a parameter map's own shape message). */
export const argumentsReporter: Reporter = (value) => at('type', argumentsMessage(value))

// The first failing constraint of a scalar, caught from the shared checks (they call no user code, so one slot
// serves every call).
let firstKeyword: ConstraintKeyword | undefined
let firstMessage = ''
const captureFirst: ConstraintSink = (keyword, message) => {
  if (firstKeyword !== undefined) return
  firstKeyword = keyword
  firstMessage = message
}

/** The first violation of a scalar node (its type, then `const`, `enum` or its constraints in keyword order). */
export function scalarReporter(node: ScalarNode): Reporter {
  const leaf = kindCode(node.kind)
  const expected = expectation(expectedText[node.kind])
  if (node.hasConst) {
    const wanted = node.const
    return (value) => (leafMatches(leaf, value) ? at('const', constMessage(wanted, value)) : at('type', typeMessage(expected, value)))
  }
  const members = node.enum
  if (members !== undefined) {
    const list = literalList(members)
    return (value) => (leafMatches(leaf, value) ? at('enum', enumMessage(list, value)) : at('type', typeMessage(expected, value)))
  }
  const constraints = node.constraints
  if (restricts(constraints)) {
    const checkConstraints = leaf === STRING ? checkStringConstraints : checkNumberConstraints
    return (value) => {
      if (!leafMatches(leaf, value)) return at('type', typeMessage(expected, value))
      firstKeyword = undefined
      checkConstraints(constraints, value as never, captureFirst)
      const keyword = firstKeyword
      firstKeyword = undefined
      // Every constraint holds (it cannot happen: a primitive reads the same twice): let the closures answer.
      return keyword === undefined ? null : at(keyword, firstMessage)
    }
  }
  return (value) => at('type', typeMessage(expected, value))
}

/** A value of a `json` node (or an undeclared key's value) that is not lossless JSON, with the path inside it. */
export function nonJson(value: unknown): Pending {
  const snapshot = snapshotJson(value)
  if (snapshot.ok) return at('unreadable', changedWhileReading)
  const { segments } = snapshot.error
  return { path: segments.map(pathPiece).join(''), segments: segments.slice(), keyword: 'json', message: nonJsonMessage(snapshot.error) }
}

/**
 * The path piece of a property name: `.name` (or `["odd key"]`); at the root of a walk from an object (`root`
 * true), without the dot: the first piece of a path is shown without one.
 */
export function propertyPiece(name: string, root: boolean): string {
  const piece = pathPiece(name)
  return root && piece.charCodeAt(0) === 46 ? piece.slice(1) : piece
}

/** An undeclared key of an open object whose value is not lossless JSON (`root`: see {@link propertyPiece}). */
export function nonJsonExtra(key: string, value: unknown, root: boolean): Pending | null {
  return within(nonJson(value), [key], propertyPiece(key, root))
}

/** A key a closed object does not declare (`message` is the object's `additionalPropertyMessage`). */
export function extraKey(message: string, key: string, root: boolean): Pending {
  return { path: propertyPiece(key, root), segments: [key], keyword: 'additionalProperties', message }
}

/** The first required property (in declaration order) that is not an own enumerable property of `value`. */
export function missingReporter(required: readonly string[], root: boolean): Reporter {
  const pieces = required.map((name) => propertyPiece(name, root))
  return (value) => {
    for (let index = 0; index < required.length; index++) {
      const name = required[index] as string
      if (!Object.prototype.propertyIsEnumerable.call(value, name)) {
        return { path: pieces[index] as string, segments: [name], keyword: 'required', message: 'is required but missing' }
      }
    }
    return null
  }
}

/** The first required property (in declaration order) whose bit is clear in the set of those seen. */
export function unmarkedReporter(required: readonly string[], root: boolean): Reporter {
  const pieces = required.map((name) => propertyPiece(name, root))
  return (seen) => {
    for (let index = 0; index < required.length; index++) {
      if (((seen as number) & (1 << index)) === 0) {
        return { path: pieces[index] as string, segments: [required[index] as string], keyword: 'required', message: 'is required but missing' }
      }
    }
    return null
  }
}

/** An array whose length is out of bounds (`length` is that length). */
export function boundsReporter(minItems: number, maxItems: number): Reporter {
  return (length) =>
    (length as number) < minItems
      ? at('minItems', constraintMessages.minItems(minItems, length as number))
      : at('maxItems', constraintMessages.maxItems(maxItems, length as number))
}

/** Two equal elements of a `uniqueItems` array (the pair `firstDuplicate` found). */
export function duplicate(pair: readonly [number, number]): Pending {
  return at('uniqueItems', constraintMessages.uniqueItems(pair[0], pair[1]))
}

/** Reading the value threw: reported at the node that was reading. */
export function unreadable(error: unknown): Pending {
  return at('unreadable', unreadableMessage(error))
}

/** A path as shown: without the leading `.` of its first piece. */
function shown(path: string): string {
  return path.charCodeAt(0) === 46 ? path.slice(1) : path
}

/**
 * A oneOf whose tag chose branch `index` (of `total`, described as `shape`), which then failed: the branch's own
 * first violation becomes the detail of the oneOf's (as the closure backend words it).
 */
export function closestReporter(total: number, index: number, shape: string): (inner: Pending | null) => Pending | null {
  const summary = `matches none of the ${total} allowed shapes; the closest is shape ${index + 1} (${shape}): `
  return (inner) => {
    if (inner === null) return null
    const path = shown(inner.path)
    return at('oneOf', `${summary}${path === '' ? '' : `${path}: `}${inner.message}`)
  }
}

/** A oneOf whose tag holds none of its literals. */
export function unknownTagReporter(total: number, name: string, literals: string): Reporter {
  const summary = `matches none of the ${total} allowed shapes: ${name} must be one of ${literals}, got `
  return (tag) => {
    const got = typeof tag === 'string' || typeof tag === 'boolean' || (typeof tag === 'number' && Number.isFinite(tag)) ? literal(tag as JsonPrimitive) : describeValue(tag)
    return at('oneOf', summary + got)
  }
}

/** The first violation of a node as its closure check records it (for what one node cannot state alone). */
export function fromCheck(check: Check): Reporter {
  return (value) => {
    const sink = new Sink(1, 1)
    try {
      if (check(value, sink)) return null
    } catch {
      return null
    }
    // Never `list[0]` of an empty list: that would read a polluted `Object.prototype[0]`.
    if (sink.list.length === 0) return null
    const { text, reversed, keyword, message } = sink.list[0] as (typeof sink.list)[number]
    return { path: text, segments: reversed.slice().reverse(), keyword, message }
  }
}

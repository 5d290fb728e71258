import { SNAPSHOT_PROTOTYPE } from '@dsh/tools-core'
// The closure backend: a schema node compiled into a tree of closures (no code generation, so it runs where
// `new Function` is forbidden). It also records every violation for both backends: the generated backend answers
// the accept-only question itself and hands a rejected value to these closures for its violations.
import { checkNumberConstraints, checkStringConstraints, constraintMessages, firstDuplicate, restricts } from './constraints.js'
import { describeValue, literal, literalList } from './describe-value.js'
import { isPlainArrayPrototype, isPlainPrototype } from './plain-object.js'
import type { ArrayNode, ObjectNode, ScalarNode, SchemaNode } from './schema-node.js'
import { constMessage, enumMessage, expectation, mismatch, pathPiece, Sink, unreadable, type Check } from './validation-sink.js'
import {
  ArrayPrototype,
  CALL,
  CONST,
  expectedText,
  hasOwnProperty,
  isJson,
  isScalarNode,
  kindCode,
  leafCode,
  leafMatches,
  ObjectPrototype,
  prototypeOfArray,
  reportNonJson,
  STRING,
  type Proto,
} from './value-rules.js'
import { compileOneOf } from './compile-one-of.js'
import { fastObject, type Fast, type Slot } from './object-loops.js'


/** The accept-only checks of the compiled checks that have one of their own. */
const fastChecks = new WeakMap<Check, Fast>()

/** A check that answers sink-less calls with `fast` (which must agree with `full`'s sink-less answer). */
function withFast(full: (value: unknown, sink: Sink) => boolean, fast: Fast): Check {
  const check: Check = (value, sink) => (sink === null ? fast(value) : full(value, sink))
  fastChecks.set(check, fast)
  return check
}

/** The accept-only form of a compiled check. */
function fastOf(check: Check): Fast {
  return fastChecks.get(check) ?? ((value) => check(value, null))
}

const checkJson: Check = (value, sink) => {
  if (isJson(value)) return true
  if (sink !== null) reportNonJson(sink, value)
  return false
}

function compileScalar(node: ScalarNode): Check {
  const leaf = kindCode(node.kind)
  const test = (value: unknown) => leafMatches(leaf, value)
  const expected = expectation(expectedText[node.kind])
  if (node.hasConst) {
    const wanted = node.const
    return (value, sink) => {
      if (value === wanted && test(value)) return true
      if (!test(value)) return mismatch(sink, expected, value)
      if (sink !== null) sink.add('const', constMessage(wanted, value))
      return false
    }
  }
  const members = node.enum
  if (members !== undefined) {
    const set: ReadonlySet<unknown> | undefined = members.length > 8 ? new Set(members) : undefined
    const size = members.length
    const list = literalList(members)
    return (value, sink) => {
      if (leaf === STRING ? typeof value === 'string' : leafMatches(leaf, value)) {
        if (set !== undefined) {
          if (set.has(value)) return true
        } else {
          // A linear scan beats hashing for short lists.
          for (let index = 0; index < size; index++) if (members[index] === value) return true
        }
      }
      if (!test(value)) return mismatch(sink, expected, value)
      if (sink !== null) sink.add('enum', enumMessage(list, value))
      return false
    }
  }
  const constraints = node.constraints
  if (restricts(constraints)) {
    const checkConstraints = leaf === STRING ? checkStringConstraints : checkNumberConstraints
    return (value, sink) => {
      if (!leafMatches(leaf, value)) return mismatch(sink, expected, value)
      return checkConstraints(constraints, value as never, sink === null ? null : (keyword, message) => sink.add(keyword, message))
    }
  }
  return (value, sink) => leafMatches(leaf, value) || mismatch(sink, expected, value)
}

function compileArray(node: ArrayNode): Check {
  const items = node.items
  const item = items === undefined ? checkJson : compileNode(items)
  const leaf = items === undefined ? CALL : leafCode(items)
  const itemFast = items === undefined ? isJson : fastOf(item)
  const minItems = node.constraints?.minItems ?? 0
  const maxItems = node.constraints?.maxItems ?? Number.POSITIVE_INFINITY
  const unique = node.constraints?.uniqueItems === true
  const fast: Fast = (value) => {
    try {
      if (!Array.isArray(value) || ((value as Proto).__proto__ !== ArrayPrototype && !isPlainArrayPrototype(Object.getPrototypeOf(value)))) return false
      const array = value as unknown[]
      const length = array.length
      if (length < minItems || length > maxItems) return false
      const proto = prototypeOfArray(array)
      const elements: unknown[] | undefined = unique ? [] : undefined
      for (let index = 0; index < length; index++) {
        const element = index in proto && !hasOwnProperty.call(array, index) ? undefined : array[index]
        if (!(leaf === STRING ? typeof element === 'string' : leaf === CALL ? itemFast(element) : leafMatches(leaf, element))) return false
        elements?.push(element)
      }
      return elements === undefined || firstDuplicate(elements) === undefined
    } catch {
      return false
    }
  }
  const full = (value: unknown, sink: Sink): boolean => {
    try {
      if (!Array.isArray(value) || ((value as Proto).__proto__ !== ArrayPrototype && !isPlainArrayPrototype(Object.getPrototypeOf(value)))) {
        return mismatch(sink, anArray, value)
      }
      const array = value as unknown[]
      const length = array.length
      let ok = true
      if (length < minItems || length > maxItems) {
        ok = false
        if (length < minItems) sink.add('minItems', constraintMessages.minItems(minItems, length))
        else sink.add('maxItems', constraintMessages.maxItems(maxItems, length))
        if (sink.stopped) return false
      }
      const proto = prototypeOfArray(array)
      const elements: unknown[] | undefined = unique ? [] : undefined
      for (let index = 0; index < length; index++) {
        const element = index in proto && !hasOwnProperty.call(array, index) ? undefined : array[index]
        elements?.push(element)
        if (leafMatches(leaf, element)) continue
        const mark = sink.list.length
        if (item(element, sink)) continue
        ok = false
        sink.prefix(mark, index, `[${index}]`)
        if (sink.stopped) return false
      }
      // Duplicates are looked for among elements that are all valid (and so lossless JSON).
      const duplicate = ok && elements !== undefined ? firstDuplicate(elements) : undefined
      if (duplicate !== undefined) {
        sink.add('uniqueItems', constraintMessages.uniqueItems(duplicate[0], duplicate[1]))
        return false
      }
      return ok
    } catch (error) {
      return unreadable(sink, error)
    }
  }
  return withFast(full, fast)
}

const maxListedNames = 12

/** What object and array nodes expect, in their type messages. */
export const anObject = expectation('an object')
export const anArray = expectation('an array')

/** The message of a key a closed object does not declare: `is not an allowed property (allowed: a, b)`. */
export function additionalPropertyMessage(node: ObjectNode): string {
  const names = node.properties.map((property) => property.name)
  const count = names.length
  const allowed = count === 0 ? 'none' : names.slice(0, maxListedNames).join(', ') + (count > maxListedNames ? `, … (${count} in all)` : '')
  return `is not an allowed property (allowed: ${allowed})`
}

/** Reports a value that is not an object where one is wanted; returns `false`. */
type NotAnObject = (sink: Sink | null, value: unknown) => false

const notAnObject: NotAnObject = (sink, value) => mismatch(sink, anObject, value)

/**
 * What the arguments were instead of an object, said so that neither a model nor a person reads it as a problem
 * of one property: `the arguments must be a JSON object; they arrived as a string ("{\"text\":…")`. A string
 * holding JSON object text is named as such: a provider adapter left the arguments unparsed (they are never
 * parsed here: parsing is the adapter's job, and a guess could turn a real string into an object).
 */
const argumentsNotAnObject: NotAnObject = (sink, value) => {
  if (sink !== null) sink.add('type', argumentsMessage(value))
  return false
}

/** The message of arguments that are not an object at all (see `argumentsNotAnObject`). */
export function argumentsMessage(value: unknown): string {
  return `the arguments must be a JSON object; they arrived as ${argumentsShape(value)}`
}

function argumentsShape(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return `a string (${literal(value)})${holdsJsonObject(value) ? ', which holds JSON object text that was never parsed' : ''}`
    case 'number':
      return Number.isFinite(value) ? `a number (${value})` : describeValue(value)
    case 'boolean':
      return `a boolean (${value})`
    default:
      return describeValue(value)
  }
}

function holdsJsonObject(text: string): boolean {
  if (!/^\s*\{/.test(text)) return false
  try {
    const parsed: unknown = JSON.parse(text)
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
  } catch {
    return false
  }
}

/**
 * The check of a tool's whole argument object (a parameter map): {@link compileObject}, except that a value that
 * is not an object at all is reported as the arguments' shape rather than as `expected an object`.
 */
export function compileArguments(node: ObjectNode): Check {
  return compileObject(node, argumentsNotAnObject)
}

function compileObject(node: ObjectNode, reportNotAnObject: NotAnObject = notAnObject): Check {
  const slots: readonly Slot[] = node.properties.map(({ name, node: item, required }, index) => {
    const check = compileNode(item)
    const stringConst = isScalarNode(item) && item.hasConst && typeof item.const === 'string'
    return {
      name,
      index,
      piece: pathPiece(name),
      leaf: stringConst ? CONST : leafCode(item),
      wanted: stringConst ? item.const : undefined,
      check,
      fast: fastOf(check),
      required: required ? 1 : 0,
    }
  })
  const count = slots.length
  const requiredCount = slots.reduce((sum, slot) => sum + slot.required, 0)
  const open = node.additionalProperties
  const byName: ReadonlyMap<string, Slot> = new Map(slots.map((slot) => [slot.name, slot]))
  const notAllowed = additionalPropertyMessage(node)

  /** A key the schema does not declare: allowed JSON in an open object, a violation in a closed one. */
  function extra(key: string, item: unknown, sink: Sink): boolean {
    if (!open) {
      sink.add('additionalProperties', notAllowed, [key], pathPiece(key))
      return false
    }
    if (isJson(item)) return true
    const mark = sink.list.length
    reportNonJson(sink, item)
    sink.prefix(mark, key, pathPiece(key))
    return false
  }

  function reportMissing(record: Record<string, unknown>, sink: Sink): void {
    for (const slot of slots) {
      if (slot.required === 1 && !Object.prototype.propertyIsEnumerable.call(record, slot.name)) {
        sink.add('required', 'is required but missing', [slot.name], slot.piece)
        if (sink.stopped) return
      }
    }
  }

  const fast = fastObject(slots, byName, requiredCount, open, slots.every((slot) => slot.leaf !== CALL))
  const full = (value: unknown, sink: Sink): boolean => {
    try {
      if (typeof value !== 'object' || value === null || Array.isArray(value) || ((value as Proto).__proto__ !== ObjectPrototype && Object.getPrototypeOf(value) !== SNAPSHOT_PROTOTYPE && !isPlainPrototype(Object.getPrototypeOf(value)))) {
        return reportNotAnObject(sink, value)
      }
      const record = value as Record<string, unknown>
      let ok = true
      let position = 0
      let seenRequired = 0
      // Keys usually arrive in the schema's order: compare with the expected name first, look up otherwise. Each key
      // comes once, so counting the required ones seen tells whether one is missing.
      for (const key in record) {
        if (!Object.prototype.hasOwnProperty.call(record, key)) continue
        const item = record[key]
        let slot = position < count ? (slots[position] as Slot) : undefined
        position++
        if (slot === undefined || slot.name !== key) {
          slot = byName.get(key)
          if (slot === undefined) {
            if (extra(key, item, sink)) continue
            ok = false
            if (sink.stopped) return false
            continue
          }
          // Expect the keys after it to follow the schema's order again.
          position = slot.index + 1
        }
        seenRequired += slot.required
        if (leafMatches(slot.leaf, item, slot.wanted)) continue
        const mark = sink.list.length
        if (slot.check(item, sink)) continue
        ok = false
        sink.prefix(mark, key, slot.piece)
        if (sink.stopped) return false
      }
      if (seenRequired !== requiredCount) {
        ok = false
        reportMissing(record, sink)
      }
      return ok
    } catch (error) {
      return unreadable(sink, error)
    }
  }
  return withFast(full, fast)
}

/** Checks already compiled, per node: a node used at several places (a shared sub-schema) is compiled once. */
const compiled = new WeakMap<SchemaNode, Check>()

/**
 * Compiles a checked schema node into a {@link Check}, once per node (a DAG of shared sub-schemas compiles in
 * time linear in its number of distinct nodes). Recursion is bounded by the schema's depth.
 */
export function compileNode(node: SchemaNode): Check {
  let check = compiled.get(node)
  if (check !== undefined) return check
  switch (node.kind) {
    case 'json':
      check = checkJson
      break
    case 'object':
      check = compileObject(node)
      break
    case 'array':
      check = compileArray(node)
      break
    case 'oneOf':
      check = compileOneOf(node)
      break
    default:
      check = compileScalar(node)
  }
  compiled.set(node, check)
  return check
}

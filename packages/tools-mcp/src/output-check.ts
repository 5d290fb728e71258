// Checks a server tool's structuredContent against its gated outputSchema. This client runs the check itself: the
// SDK's own (ajv) runs a server's patterns on RegExp, a backtracking engine, and compiling a large untrusted schema
// into code takes seconds of the event loop. This is an interpreter over the schema the gate built (every $ref
// inlined, within the bounds after expansion) with a work budget: patterns run on the linear-time engine, equality
// and uniqueItems go through canonical JSON (linear), and every step is counted, so no check can run longer than
// `maxCheckCost` allows, whatever the schema and the value.
import type { JsonObject, JsonValue } from '@dsh/tools-core'
import { linearPatternProblem, linearRegExp } from './linear-pattern.js'
import { isRecord } from './is-record.js'

/** Literal text on {@link canonicalJson}'s work stack. */
class Text {
  constructor(readonly text: string) {}
}

/** Canonical JSON of a value (keys sorted), built with an explicit stack: the key under which values are compared. */
export function canonicalJson(value: JsonValue): string {
  const out: string[] = []
  const stack: (JsonValue | Text)[] = [value]
  while (stack.length > 0) {
    const item = stack.pop() as JsonValue | Text
    if (item instanceof Text) {
      out.push(item.text)
    } else if (typeof item !== 'object' || item === null) {
      out.push(JSON.stringify(item))
    } else if (Array.isArray(item)) {
      out.push('[')
      stack.push(new Text(']'))
      for (let index = item.length - 1; index >= 0; index -= 1) {
        stack.push(item[index] as JsonValue)
        if (index > 0) stack.push(new Text(','))
      }
    } else {
      const keys = Object.keys(item).sort()
      out.push('{')
      stack.push(new Text('}'))
      for (let index = keys.length - 1; index >= 0; index -= 1) {
        const key = keys[index] as string
        stack.push(item[key] as JsonValue)
        stack.push(new Text(`${index > 0 ? ',' : ''}${JSON.stringify(key)}:`))
      }
    }
  }
  return out.join('')
}

/** Units of work per character a pattern reads: the linear-time engine costs about 20 times a plain scan (measured). */
const patternUnits = 20

/** Units of work per schema applied to a value (measured: a call costs about what 50 characters of a length check do). */
const callUnits = 50

/** Which groups of keywords a schema object has (read once per schema object per check). */
interface Sections {
  readonly size: number
  readonly assertions: boolean
  readonly applicators: boolean
  readonly object: boolean
  readonly array: boolean
}

const assertionKeywords = new Set(['type', 'const', 'enum', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'pattern'])
const applicatorKeywords = new Set(['allOf', 'anyOf', 'oneOf', 'not', 'if', 'dependentSchemas', 'dependencies'])
const objectKeywords = new Set(['minProperties', 'maxProperties', 'required', 'dependentRequired', 'dependencies', 'propertyNames', 'properties', 'patternProperties', 'additionalProperties', 'unevaluatedProperties'])
const arrayKeywords = new Set(['minItems', 'maxItems', 'uniqueItems', 'items', 'prefixItems', 'additionalItems', 'contains', 'unevaluatedItems'])

function sectionsOf(schema: Record<string, unknown>): Sections {
  const keys = Object.keys(schema)
  return {
    size: keys.length,
    assertions: keys.some((key) => assertionKeywords.has(key)),
    applicators: keys.some((key) => applicatorKeywords.has(key)),
    object: keys.some((key) => objectKeywords.has(key)),
    array: keys.some((key) => arrayKeywords.has(key)),
  }
}

/** Thrown inside a check when its budget is spent. */
class OverBudget {}

type Schema = JsonValue
type Record_ = Record<string, JsonValue>

const isJsonRecord: (value: unknown) => value is Record_ = isRecord
const own = (record: Record_, key: string): JsonValue | undefined => (Object.hasOwn(record, key) ? record[key] : undefined)
const num = (value: JsonValue | undefined): number | undefined => (typeof value === 'number' ? value : undefined)

/** What a passing schema evaluated of an object or array (for unevaluatedProperties / unevaluatedItems). */
interface Evaluated {
  allProperties: boolean
  properties: Set<string> | undefined
  allItems: boolean
  items: Set<number> | undefined
}

const evaluated = (): Evaluated => ({ allProperties: false, properties: undefined, allItems: false, items: undefined })

function addProperty(into: Evaluated, key: string): void {
  ;(into.properties ??= new Set()).add(key)
}

function addItem(into: Evaluated, index: number): void {
  ;(into.items ??= new Set()).add(index)
}

function merge(into: Evaluated, from: Evaluated): void {
  if (from.allProperties) into.allProperties = true
  else if (from.properties !== undefined) for (const key of from.properties) addProperty(into, key)
  if (from.allItems) into.allItems = true
  else if (from.items !== undefined) for (const index of from.items) addItem(into, index)
}

/** A JSON pointer into the value, built only when a check fails. */
interface Where {
  readonly parent: Where | undefined
  readonly segment: string | number
}

function pointer(where: Where | undefined): string {
  const segments: string[] = []
  for (let at = where; at !== undefined; at = at.parent) segments.push(`/${String(at.segment).slice(0, 60)}`)
  return segments.reverse().join('')
}

function typeOf(value: JsonValue): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

function codePoints(text: string): number {
  let count = 0
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index)
    if (unit < 0xd800 || unit > 0xdbff || index + 1 >= text.length) count += 1
    else {
      const next = text.charCodeAt(index + 1)
      count += 1
      if (next >= 0xdc00 && next <= 0xdfff) index += 1
    }
  }
  return count
}

/** `value` is a multiple of `divisor`, within the precision of a double (0.3 is a multiple of 0.1). */
function multipleOf(value: number, divisor: number): boolean {
  if (!(divisor > 0)) return true // not a valid multipleOf: no claim
  const quotient = value / divisor
  if (!Number.isFinite(quotient)) return false // as the suite has it: overflow is not a multiple
  return Math.abs(quotient - Math.round(quotient)) <= 1e-9 * Math.max(1, Math.abs(quotient))
}

/** One check: the budget left, and the first failure. */
class Checker {
  left: number
  failure: string | undefined
  readonly #canonical = new WeakMap<object, string>()
  readonly #sections = new WeakMap<object, Sections>()

  constructor(budget: number) {
    this.left = budget
  }

  spend(units: number): void {
    this.left -= units
    if (this.left < 0) throw new OverBudget()
  }

  fail(where: Where | undefined, message: string): false {
    this.failure = `${pointer(where)} ${message}`
    return false
  }

  canonical(value: JsonValue): string {
    if (typeof value !== 'object' || value === null) return JSON.stringify(value)
    let known = this.#canonical.get(value)
    if (known === undefined) {
      known = canonicalJson(value)
      this.spend(known.length)
      this.#canonical.set(value, known)
    }
    return known
  }

  equal(a: JsonValue, b: JsonValue): boolean {
    if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return a === b
    return this.canonical(a) === this.canonical(b)
  }

  /** Checks `value` against `schema`; records what it evaluated in `seen` (when it passes). */
  check(schema: Schema, value: JsonValue, where: Where | undefined, seen: Evaluated): boolean {
    if (schema === true) return true
    if (schema === false) return this.fail(where, 'is not allowed here (false schema)')
    if (!isJsonRecord(schema)) return true // not a schema: no claim
    let sections = this.#sections.get(schema)
    if (sections === undefined) this.#sections.set(schema, (sections = sectionsOf(schema)))
    this.spend(callUnits + sections.size)
    const local = evaluated()
    if (sections.assertions && !this.#assertions(schema, value, where)) return false
    if (sections.applicators && !this.#applicators(schema, value, where, local)) return false
    if (sections.object && isJsonRecord(value) && !this.#object(schema, value, where, local)) return false
    if (sections.array && Array.isArray(value) && !this.#array(schema, value, where, local)) return false
    merge(seen, local)
    return true
  }

  /** `type`, `enum`, `const`, numbers and strings. */
  #assertions(schema: Record_, value: JsonValue, where: Where | undefined): boolean {
    const type = own(schema, 'type')
    if (type !== undefined) {
      const types = Array.isArray(type) ? type : [type]
      const actual = typeOf(value)
      const ok = types.some((name) => name === actual || (name === 'integer' && typeof value === 'number' && Number.isInteger(value)) || (name === 'number' && actual === 'number'))
      if (!ok) return this.fail(where, `must be ${types.map(String).join(' or ')}, got ${actual}`)
    }
    const constant = own(schema, 'const')
    if (constant !== undefined && !this.equal(constant, value)) return this.fail(where, 'must be equal to the const value')
    const options = own(schema, 'enum')
    if (Array.isArray(options)) {
      this.spend(options.length)
      if (!options.some((option) => this.equal(option, value))) return this.fail(where, 'must be equal to one of the enum values')
    }
    if (typeof value === 'number') {
      const minimum = num(own(schema, 'minimum'))
      const maximum = num(own(schema, 'maximum'))
      const exclusiveMinimum = num(own(schema, 'exclusiveMinimum'))
      const exclusiveMaximum = num(own(schema, 'exclusiveMaximum'))
      const divisor = num(own(schema, 'multipleOf'))
      if (minimum !== undefined && value < minimum) return this.fail(where, `must be >= ${minimum}`)
      if (maximum !== undefined && value > maximum) return this.fail(where, `must be <= ${maximum}`)
      if (exclusiveMinimum !== undefined && value <= exclusiveMinimum) return this.fail(where, `must be > ${exclusiveMinimum}`)
      if (exclusiveMaximum !== undefined && value >= exclusiveMaximum) return this.fail(where, `must be < ${exclusiveMaximum}`)
      if (divisor !== undefined && !multipleOf(value, divisor)) return this.fail(where, `must be a multiple of ${divisor}`)
    }
    if (typeof value === 'string') {
      const minLength = num(own(schema, 'minLength'))
      const maxLength = num(own(schema, 'maxLength'))
      if (minLength !== undefined || maxLength !== undefined) {
        this.spend(value.length)
        const length = codePoints(value)
        if (minLength !== undefined && length < minLength) return this.fail(where, `must NOT have fewer than ${minLength} characters`)
        if (maxLength !== undefined && length > maxLength) return this.fail(where, `must NOT have more than ${maxLength} characters`)
      }
      const pattern = own(schema, 'pattern')
      if (typeof pattern === 'string' && linearPatternProblem(pattern) === undefined) {
        this.spend(patternUnits * value.length)
        if (!linearRegExp(pattern, 'u').test(value)) return this.fail(where, `must match pattern ${JSON.stringify(pattern.slice(0, 100))}`)
      }
    }
    return true
  }

  /** `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, `dependentSchemas` (and draft-07 `dependencies`). */
  #applicators(schema: Record_, value: JsonValue, where: Where | undefined, local: Evaluated): boolean {
    const allOf = own(schema, 'allOf')
    if (Array.isArray(allOf)) for (const branch of allOf) if (!this.check(branch, value, where, local)) return false
    const anyOf = own(schema, 'anyOf')
    if (Array.isArray(anyOf) && anyOf.length > 0) {
      let passed = false
      // Every branch runs: the ones that pass all add what they evaluated (for unevaluated*).
      for (const branch of anyOf) {
        const branchSeen = evaluated()
        if (this.check(branch, value, where, branchSeen)) {
          passed = true
          merge(local, branchSeen)
        }
      }
      if (!passed) return this.fail(where, 'must match a schema in anyOf')
    }
    const oneOf = own(schema, 'oneOf')
    if (Array.isArray(oneOf) && oneOf.length > 0) {
      let passed = 0
      let kept = evaluated()
      for (const branch of oneOf) {
        const branchSeen = evaluated()
        if (this.check(branch, value, where, branchSeen)) {
          passed += 1
          kept = branchSeen
          if (passed > 1) return this.fail(where, 'must match exactly one schema in oneOf, matched more')
        }
      }
      if (passed === 0) return this.fail(where, 'must match exactly one schema in oneOf, matched none')
      merge(local, kept)
    }
    const not = own(schema, 'not')
    if (not !== undefined && this.check(not, value, where, evaluated())) return this.fail(where, 'must NOT be valid against the "not" schema')
    const condition = own(schema, 'if')
    if (condition !== undefined) {
      const conditionSeen = evaluated()
      const holds = this.check(condition, value, where, conditionSeen)
      if (holds) merge(local, conditionSeen)
      const branch = own(schema, holds ? 'then' : 'else')
      if (branch !== undefined && !this.check(branch, value, where, local)) return false
    }
    if (isJsonRecord(value)) {
      for (const keyword of ['dependentSchemas', 'dependencies'] as const) {
        const dependent = own(schema, keyword)
        if (!isJsonRecord(dependent)) continue
        for (const key of Object.keys(dependent)) {
          const rule = dependent[key] as JsonValue
          if (!Object.hasOwn(value, key) || Array.isArray(rule)) continue
          if (!this.check(rule, value, where, local)) return false
        }
      }
    }
    return true
  }

  #object(schema: Record_, value: Record_, where: Where | undefined, local: Evaluated): boolean {
    const keys = Object.keys(value)
    this.spend(keys.length)
    const minProperties = num(own(schema, 'minProperties'))
    const maxProperties = num(own(schema, 'maxProperties'))
    if (minProperties !== undefined && keys.length < minProperties) return this.fail(where, `must NOT have fewer than ${minProperties} properties`)
    if (maxProperties !== undefined && keys.length > maxProperties) return this.fail(where, `must NOT have more than ${maxProperties} properties`)
    const required = own(schema, 'required')
    if (Array.isArray(required)) {
      this.spend(required.length)
      for (const name of required) if (typeof name === 'string' && !Object.hasOwn(value, name)) return this.fail(where, `must have required property ${JSON.stringify(name.slice(0, 100))}`)
    }
    for (const keyword of ['dependentRequired', 'dependencies'] as const) {
      const dependent = own(schema, keyword)
      if (!isJsonRecord(dependent)) continue
      for (const key of Object.keys(dependent)) {
        const names = dependent[key]
        if (!Array.isArray(names) || !Object.hasOwn(value, key)) continue
        this.spend(names.length)
        for (const name of names) {
          if (typeof name === 'string' && !Object.hasOwn(value, name)) return this.fail(where, `must have property ${JSON.stringify(name.slice(0, 100))} when property ${JSON.stringify(key.slice(0, 100))} is present`)
        }
      }
    }
    const propertyNames = own(schema, 'propertyNames')
    if (propertyNames !== undefined) {
      for (const key of keys) if (!this.check(propertyNames, key, { parent: where, segment: key }, evaluated())) return false
    }
    const properties = own(schema, 'properties')
    const patterns = own(schema, 'patternProperties')
    const additional = own(schema, 'additionalProperties')
    const patternList = isJsonRecord(patterns) ? Object.keys(patterns).filter((source) => linearPatternProblem(source) === undefined) : []
    for (const key of keys) {
      const at: Where = { parent: where, segment: key }
      let matched = false
      if (isJsonRecord(properties) && Object.hasOwn(properties, key)) {
        matched = true
        if (!this.check(properties[key] as JsonValue, value[key] as JsonValue, at, evaluated())) return false
      }
      for (const source of patternList) {
        this.spend(patternUnits * key.length)
        if (!linearRegExp(source, 'u').test(key)) continue
        matched = true
        if (!this.check((patterns as Record_)[source] as JsonValue, value[key] as JsonValue, at, evaluated())) return false
      }
      if (!matched && additional !== undefined) {
        if (!this.check(additional, value[key] as JsonValue, at, evaluated())) return false
        matched = true
      }
      if (matched) addProperty(local, key)
    }
    const unevaluated = own(schema, 'unevaluatedProperties')
    if (unevaluated !== undefined && !local.allProperties) {
      for (const key of keys) {
        if (local.properties?.has(key) === true) continue
        if (!this.check(unevaluated, value[key] as JsonValue, { parent: where, segment: key }, evaluated())) return false
      }
      local.allProperties = true
    }
    return true
  }

  #array(schema: Record_, value: JsonValue[], where: Where | undefined, local: Evaluated): boolean {
    this.spend(value.length)
    const minItems = num(own(schema, 'minItems'))
    const maxItems = num(own(schema, 'maxItems'))
    if (minItems !== undefined && value.length < minItems) return this.fail(where, `must NOT have fewer than ${minItems} items`)
    if (maxItems !== undefined && value.length > maxItems) return this.fail(where, `must NOT have more than ${maxItems} items`)
    if (own(schema, 'uniqueItems') === true) {
      const seen = new Set<string>()
      for (let index = 0; index < value.length; index += 1) {
        const key = this.canonical(value[index] as JsonValue)
        if (seen.has(key)) return this.fail(where, `must NOT have duplicate items (item ${index} repeats an earlier one)`)
        seen.add(key)
      }
    }
    // draft-07 spells prefixItems as an items array, and the rest as additionalItems.
    const items = own(schema, 'items')
    const prefix = Array.isArray(items) ? items : own(schema, 'prefixItems')
    const rest = Array.isArray(items) ? own(schema, 'additionalItems') : items
    const prefixLength = Array.isArray(prefix) ? Math.min(prefix.length, value.length) : 0
    for (let index = 0; index < prefixLength; index += 1) {
      if (!this.check((prefix as JsonValue[])[index] as JsonValue, value[index] as JsonValue, { parent: where, segment: index }, evaluated())) return false
      addItem(local, index)
    }
    if (rest !== undefined) {
      for (let index = prefixLength; index < value.length; index += 1) {
        if (!this.check(rest, value[index] as JsonValue, { parent: where, segment: index }, evaluated())) return false
      }
      if (value.length > prefixLength) local.allItems = true
    }
    const contains = own(schema, 'contains')
    if (contains !== undefined) {
      let count = 0
      for (let index = 0; index < value.length; index += 1) {
        const saved = this.failure
        if (this.check(contains, value[index] as JsonValue, { parent: where, segment: index }, evaluated())) {
          count += 1
          addItem(local, index)
        }
        this.failure = saved
      }
      const minContains = num(own(schema, 'minContains')) ?? 1
      const maxContains = num(own(schema, 'maxContains'))
      if (count < minContains) return this.fail(where, `must contain at least ${minContains} valid item(s)`)
      if (maxContains !== undefined && count > maxContains) return this.fail(where, `must contain at most ${maxContains} valid item(s)`)
    }
    const unevaluated = own(schema, 'unevaluatedItems')
    if (unevaluated !== undefined && !local.allItems) {
      for (let index = 0; index < value.length; index += 1) {
        if (local.items?.has(index) === true) continue
        if (!this.check(unevaluated, value[index] as JsonValue, { parent: where, segment: index }, evaluated())) return false
      }
      local.allItems = true
    }
    return true
  }
}

/** The outcome of checking one value. */
export type OutputCheckResult =
  | { readonly kind: 'valid' }
  | { readonly kind: 'invalid'; readonly message: string }
  /** The check stopped when it had spent `maxCost` units of work: the value was not checked. */
  | { readonly kind: 'too-costly'; readonly cost: number }

const maxMessage = 1_000

/**
 * Checks `value` against the gated `schema` (from `gateOutputSchema`'s `check`: every `$ref` inlined, patterns the
 * linear-time engine cannot run left out) by JSON Schema 2020-12 (with draft-07's `items` array,
 * `additionalItems` and `dependencies`); `format` is an annotation, not checked. Work is counted (fifty units per
 * schema applied to a value and one per keyword in it, per property and item visited, per character a length check reads, twenty per character a
 * pattern reads, one per character of a value compared by equality or uniqueness) and the check stops after
 * `maxCost` units. Nothing is compiled; nothing recurses deeper than the schema nests.
 */
export function checkOutput(schema: JsonObject, value: JsonValue, maxCost: number): OutputCheckResult {
  const checker = new Checker(maxCost)
  try {
    if (checker.check(schema, value, undefined, evaluated())) return { kind: 'valid' }
  } catch (error) {
    // Over budget, or a schema nested past the engine's stack (only with a schemaBounds.maxDepth far above the default).
    if (error instanceof OverBudget || error instanceof RangeError) return { kind: 'too-costly', cost: maxCost - checker.left }
    throw error
  }
  const message = `structuredContent${checker.failure ?? ' does not match'}`
  return { kind: 'invalid', message: message.length > maxMessage ? `${message.slice(0, maxMessage)}…` : message }
}

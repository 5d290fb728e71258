// The arguments of a server tool, validated against its gated `inputSchema` by the registry's validation hook
// (stage 3 of the pipeline), before any listener, guard or person sees the call: the same `INVALID_ARGS` text as a
// `defineTool` tool's.
//
// The schema is converted into a tools-schema DSL spec and compiled with its validators. The DSL is a subset of JSON
// Schema, so the conversion is built to be sound: the spec accepts every value the server's schema accepts (a false
// INVALID_ARGS would block a call the server takes), and as few others as it can. Each JSON type is converted on its
// own ("the strings this schema accepts", "the objects …"), which turns type arrays, `nullable`, and `anyOf`/`oneOf`
// whose branches differ in type (the common `anyOf: [X, { type: 'null' }]`) into exact DSL `oneOf`s. What the DSL
// cannot say is checked more loosely (an overlapping `anyOf` by its types, `allOf` by one part) or not at all
// (`pattern`, which would run a server's regular expression on a backtracking engine), and every such place is a gap:
// a note in the tool's status.
import type { JsonObject, ToolArgumentsCheck } from '@dsh/tools-core'
import { compileValueSchema, MAX_SCHEMA_DEPTH, MAX_SCHEMA_SIZE, ToolArgsError, type Validator, type ValueSchemaSpec } from '@dsh/tools-schema'
import type { PlannedTool } from './discovery.js'
import type { McpSchemaCheck } from './server-config.js'
import { isRecord } from './is-record.js'

/** A DSL value spec built here. */
type Spec = Record<string, unknown>

/** What a schema accepts of one JSON type. */
interface Part {
  /** A DSL spec that accepts (at least) those values, and only values of the part's type. */
  readonly spec: Spec
  /** True when `spec` accepts every value of the type. */
  readonly universal: boolean
  /** True when `spec` accepts exactly the values the schema accepts (of this type). */
  readonly exact: boolean
}

// The JSON types, one slot each (`integer` is a kind of `number`), in the order of a shape.
const OBJECT = 0
const ARRAY = 1
const STRING = 2
const NUMBER = 3
const BOOLEAN = 4
const NULL = 5
const slotNames = ['object', 'array', 'string', 'number', 'boolean', 'null'] as const
const slotOfType: Readonly<Record<string, number>> = { object: OBJECT, array: ARRAY, string: STRING, number: NUMBER, integer: NUMBER, boolean: BOOLEAN, null: NULL }

/**
 * What a schema accepts, by JSON type (indexed by slot). A type that is absent is one the schema never accepts:
 * absence is always exact, over-approximation lives in the parts.
 */
type Shape = readonly (Part | undefined)[]

// Shared by every schema (frozen: a spec is never changed once built).
const loose: readonly Spec[] = [
  { type: 'object', additionalProperties: true },
  { type: 'array' },
  { type: 'string' },
  { type: 'number' },
  { type: 'boolean' },
  { type: 'null' },
].map((spec) => Object.freeze(spec))
const jsonSpec: Spec = Object.freeze({ type: 'json' })
const universalPart = (slot: number, exact: boolean): Part => ({ spec: loose[slot] as Spec, universal: true, exact })
const ANY: Shape = Object.freeze(slotNames.map((_, slot) => universalPart(slot, true)))
const ANY_UNCHECKED: Shape = Object.freeze(slotNames.map((_, slot) => universalPart(slot, false)))
const NONE: Shape = Object.freeze([undefined, undefined, undefined, undefined, undefined, undefined])

/** The nesting budget of the root's parts: its spec, one `oneOf` of types around them at most, nests 64 levels. */
const ROOT_BUDGET = MAX_SCHEMA_DEPTH - 1
/** Schema objects converted one inside the other at most (a bound on the walk's stack, `allOf` chains included). */
const MAX_WALK_DEPTH = 2 * MAX_SCHEMA_DEPTH
/** Gaps listed in a note; the rest are counted. */
const NOTE_GAPS = 5
/** Gaps kept per schema (a hostile schema may have one per node); the rest are counted. */
const KEPT_GAPS = 50

/** Keywords that only narrow what a schema accepts and are not converted (leaving them out is sound). */
const unconverted: ReadonlySet<string> = new Set([
  'not',
  'if',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'dependentRequired',
  'dependentSchemas',
  'dependencies',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
])
/** Keywords the conversion reads. Everything else is an annotation (`format`, `default`, `description`, …) or unknown. */
const converted: ReadonlySet<string> = new Set([
  'type',
  'nullable',
  'enum',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'uniqueItems',
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'anyOf',
  'oneOf',
  'allOf',
])

/** A schema object's keywords, each own property read once (nothing from a polluted prototype). */
interface Keywords {
  readonly [keyword: string]: unknown
  /** `$ref`, `$dynamicRef` or `$recursiveRef`, when one is left (the gate did not inline it). */
  readonly ref?: string
  readonly hasConst?: boolean
  readonly const?: unknown
  /** The narrowing keywords present that are not converted. */
  readonly unconverted?: readonly string[]
}

function readKeywords(schema: Record<string, unknown>): Keywords {
  const keywords: Record<string, unknown> = {}
  let narrowing: string[] | undefined
  for (const key of Object.keys(schema)) {
    if (converted.has(key)) keywords[key] = schema[key]
    else if (key === 'const') {
      keywords.hasConst = true
      keywords.const = schema[key]
    } else if (key === '$ref' || key === '$dynamicRef' || key === '$recursiveRef') keywords.ref = key
    else if (unconverted.has(key)) (narrowing ??= []).push(key)
  }
  if (narrowing !== undefined) keywords.unconverted = narrowing
  return keywords
}

/** A place in the schema; its JSON pointer is only spelled out for a gap. */
type Where = { readonly parent: Where; readonly key: string } | undefined
const under = (parent: Where, key: string): Where => ({ parent, key })

function pointer(where: Where): string {
  const keys: string[] = []
  for (let place = where; place !== undefined; place = place.parent) keys.push(place.key.replace(/~/g, '~0').replace(/\//g, '~1'))
  return keys.length === 0 ? '(root)' : `/${keys.reverse().join('/')}`
}


function codePoints(text: string): number {
  let count = 0
  for (const _ of text) count++
  return count
}

/** Equality of JSON values, as JSON Schema's `enum` and `const` compare them (object keys in any order). */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((item, index) => jsonEqual(item, (b as unknown[])[index]))
  const keys = Object.keys(a)
  const other = b as Record<string, unknown>
  return keys.length === Object.keys(other).length && keys.every((key) => Object.hasOwn(other, key) && jsonEqual((a as Record<string, unknown>)[key], other[key]))
}

function slotOfValue(value: unknown): number {
  if (value === null) return NULL
  if (Array.isArray(value)) return ARRAY
  switch (typeof value) {
    case 'string':
      return STRING
    case 'number':
      return NUMBER
    case 'boolean':
      return BOOLEAN
    default:
      return OBJECT
  }
}

interface Bounds {
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
}
const boundKeywords = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] as const

/** False when no number lies within the bounds (the DSL refuses such bounds; JSON Schema then accepts no number). */
function boundsMeet({ minimum, maximum, exclusiveMinimum, exclusiveMaximum }: Bounds): boolean {
  const below = (low: number | undefined, high: number | undefined, strict: boolean): boolean => low === undefined || high === undefined || (strict ? low < high : low <= high)
  return below(minimum, maximum, false) && below(exclusiveMinimum, maximum, true) && below(minimum, exclusiveMaximum, true) && below(exclusiveMinimum, exclusiveMaximum, true)
}

function withinBounds(value: number, { minimum, maximum, exclusiveMinimum, exclusiveMaximum }: Bounds): boolean {
  return (
    (minimum === undefined || value >= minimum) &&
    (maximum === undefined || value <= maximum) &&
    (exclusiveMinimum === undefined || value > exclusiveMinimum) &&
    (exclusiveMaximum === undefined || value < exclusiveMaximum)
  )
}

const withinLengths = (text: string, min: number | undefined, max: number | undefined): boolean =>
  (min === undefined && max === undefined) || ((min === undefined || codePoints(text) >= min) && (max === undefined || codePoints(text) <= max))

/**
 * `allOf` parts of one scalar type merged into one spec (tightest bounds, common enum members): `null` when no value
 * is left, `undefined` when they cannot be merged exactly (objects, arrays, two `multipleOf`s, `multipleOf` beside an
 * enum).
 */
function mergeScalars(slot: number, specs: readonly Spec[]): Spec | null | undefined {
  if (slot !== STRING && slot !== NUMBER && slot !== BOOLEAN) return undefined
  let members: unknown[] | undefined
  for (const spec of specs) {
    if (!Array.isArray(spec.enum)) continue
    const set = new Set(spec.enum as unknown[])
    members = members === undefined ? [...set] : members.filter((member) => set.has(member))
  }
  if (slot === BOOLEAN) return members === undefined ? loose[BOOLEAN] : members.length === 0 ? null : { type: 'boolean', enum: members }
  const tightest = (keyword: string, pick: (a: number, b: number) => number): number | undefined => {
    let found: number | undefined
    for (const spec of specs) {
      const value = spec[keyword]
      if (typeof value === 'number') found = found === undefined ? value : pick(found, value)
    }
    return found
  }
  if (slot === STRING) {
    const min = tightest('minLength', Math.max)
    const max = tightest('maxLength', Math.min)
    if (members !== undefined) {
      const fits = (members as string[]).filter((text) => withinLengths(text, min, max))
      return fits.length === 0 ? null : { type: 'string', enum: fits }
    }
    if (min !== undefined && max !== undefined && min > max) return null
    const spec: Spec = { type: 'string' }
    if (min !== undefined) spec.minLength = min
    if (max !== undefined) spec.maxLength = max
    return spec
  }
  const divisors = new Set(specs.flatMap((spec) => (typeof spec.multipleOf === 'number' ? [spec.multipleOf] : [])))
  if (divisors.size > 1 || (divisors.size === 1 && members !== undefined)) return undefined
  const integer = specs.some((spec) => spec.type === 'integer')
  const bounds: Bounds = {}
  for (const keyword of boundKeywords) {
    const value = tightest(keyword, keyword === 'minimum' || keyword === 'exclusiveMinimum' ? Math.max : Math.min)
    if (value !== undefined) bounds[keyword] = value
  }
  if (members !== undefined) {
    const fits = (members as number[]).filter((value) => withinBounds(value, bounds) && (!integer || Number.isInteger(value)))
    return fits.length === 0 ? null : { type: integer ? 'integer' : 'number', enum: fits }
  }
  if (!boundsMeet(bounds)) return null
  const spec: Spec = { type: integer ? 'integer' : 'number', ...bounds }
  const [divisor] = divisors
  if (divisor !== undefined) spec.multipleOf = divisor
  return spec
}

/**
 * True when at most one of these object parts can match a value: a property that every part requires, with literal
 * values (enum/const) that no two parts share, as in `{ kind: 'create', … } | { kind: 'delete', … }`. The literals
 * are checked exactly, so this holds of the specs too, however loosely the rest of each part is checked.
 */
function discriminated(parts: readonly Part[]): boolean {
  const first = (parts[0] as Part).spec.properties
  if (!isRecord(first)) return false
  for (const name of Object.keys(first)) {
    const seen = new Set<unknown>()
    let disjoint = true
    for (const item of parts) {
      const properties = item.spec.properties
      const property = isRecord(properties) && Object.hasOwn(properties, name) ? properties[name] : undefined
      if (!isRecord(property) || property.required !== true || !Array.isArray(property.enum)) {
        disjoint = false
        break
      }
      for (const member of property.enum as unknown[]) {
        if (seen.has(member)) disjoint = false
        seen.add(member)
      }
      if (!disjoint) break
    }
    if (disjoint) return true
  }
  return false
}

/** A shape with every part marked not exact. */
const unchecked = (shape: Shape): Shape => shape.map((item) => (item === undefined ? undefined : { ...item, exact: false }))

const isAny = (shape: Shape): boolean => shape.every((item) => item !== undefined && item.universal && item.exact)

/** The outcome of converting one input schema. */
export interface ArgumentSchema {
  /** The DSL spec to compile, or `undefined` when nothing can be checked. */
  readonly spec: Spec | undefined
  /** Where the spec accepts more than the schema (`/properties/url/pattern: pattern is not checked …`). */
  readonly gaps: readonly string[]
  /** Gaps beyond the ones listed. */
  readonly omittedGaps: number
}

/**
 * One schema's conversion. Every schema object is converted once per nesting budget (at most
 * {@link MAX_SCHEMA_DEPTH} times, however often a shared sub-schema is reached), so the work is linear in the
 * schema's size. The budget keeps the spec within the validators' depth: `convert(schema, where, budget)` returns
 * parts whose specs nest at most `budget` levels; past it, what is left is checked by its type only (the innermost
 * levels, never the outer ones). The size of every spec built is counted as the validators count it (expanded), so a
 * spec they would refuse is never compiled.
 */
class Converter {
  readonly gaps: string[] = []
  omittedGaps = 0
  readonly #seen = new Set<string>()
  readonly #memo = new Map<object, { readonly budget: number; readonly shape: Shape }>()
  /** Expanded sizes (as `MAX_SCHEMA_SIZE` counts them) of the specs built here; a spec not in it counts 1. */
  readonly #sizes = new WeakMap<Spec, number>()
  /** The nesting budget of the node being converted. */
  #budget = ROOT_BUDGET
  /** Schema objects being converted, one inside the other (`allOf` nests without spending budget). */
  #depth = 0

  gap(where: Where, what: string): void {
    const gap = `${pointer(where)}: ${what}`
    if (this.#seen.has(gap)) return
    this.#seen.add(gap)
    if (this.gaps.length < KEPT_GAPS) this.gaps.push(gap)
    else this.omittedGaps++
  }

  /** The spec to compile for the root's shape; `undefined` when there is nothing to check. */
  root(shape: Shape): Spec | undefined {
    const found = this.#spec(shape)
    if (found === undefined) {
      this.gap(undefined, 'the schema accepts no value, so nothing is checked here (the server refuses every call)')
      return undefined
    }
    const size = this.#size(found.spec)
    if (size > MAX_SCHEMA_SIZE) {
      this.gap(undefined, `the schema is too large for the validators (about ${size} units once expanded, over MAX_SCHEMA_SIZE ${MAX_SCHEMA_SIZE}), so nothing is checked`)
      return undefined
    }
    return found.spec === jsonSpec ? undefined : found.spec
  }

  convert(schema: unknown, where: Where, budget: number): Shape {
    if (schema === true) return ANY
    if (schema === false) return NONE
    if (!isRecord(schema)) {
      this.gap(where, 'not a schema object, so it is not checked')
      return ANY_UNCHECKED
    }
    const known = this.#memo.get(schema)
    if (known !== undefined && known.budget <= budget) return known.shape
    if (budget < 1 || this.#depth >= MAX_WALK_DEPTH) {
      this.gap(where, `nested too deeply for the validators (${MAX_SCHEMA_DEPTH} levels), so it is checked by its type only`)
      return ANY_UNCHECKED
    }
    const outer = this.#budget
    this.#budget = budget
    this.#depth++
    try {
      const shape = this.#node(readKeywords(schema), where)
      this.#memo.set(schema, { budget, shape })
      return shape
    } finally {
      this.#depth--
      this.#budget = outer
    }
  }

  #node(keywords: Keywords, where: Where): Shape {
    if (keywords.ref !== undefined) {
      this.gap(where, `${keywords.ref} was not expanded (schemaPolicy 'pass'), so this part is not checked`)
      return ANY_UNCHECKED
    }
    let shape = this.#own(keywords, where)
    const { anyOf, oneOf, allOf } = keywords
    if (Array.isArray(anyOf) || Array.isArray(oneOf) || Array.isArray(allOf)) {
      const parts: Shape[] = [shape]
      if (Array.isArray(anyOf) && anyOf.length > 0) parts.push(this.#union(anyOf, under(where, 'anyOf'), false))
      if (Array.isArray(oneOf) && oneOf.length > 0) parts.push(this.#union(oneOf, under(where, 'oneOf'), true))
      if (Array.isArray(allOf)) {
        const inside = under(where, 'allOf')
        allOf.forEach((branch, index) => parts.push(this.convert(branch, under(inside, String(index)), this.#budget)))
      }
      shape = this.#intersect(parts, where)
    }
    if (keywords.unconverted === undefined) return shape
    for (const keyword of keywords.unconverted) this.gap(where, `${keyword === 'if' ? 'if/then/else' : keyword} is not checked`)
    return unchecked(shape)
  }

  /** What the schema's own keywords accept (its combinators aside), by type. */
  #own(keywords: Keywords, where: Where): Shape {
    const { type } = keywords
    let allowed: boolean[]
    let integer = false
    const names = typeof type === 'string' ? [type] : Array.isArray(type) ? (type as unknown[]) : undefined
    if (names !== undefined && names.length > 0 && names.every((name) => typeof name === 'string' && Object.hasOwn(slotOfType, name))) {
      allowed = [false, false, false, false, false, false]
      for (const name of names) allowed[slotOfType[name as string] as number] = true
      integer = names.includes('integer') && !names.includes('number')
    } else {
      allowed = [true, true, true, true, true, true]
      if (type !== undefined) this.gap(under(where, 'type'), `${JSON.stringify(type).slice(0, 60)} is not a JSON Schema type, so the type is not checked`)
    }
    if (keywords.nullable === true) allowed[NULL] = true // OpenAPI's spelling of a null branch: accepted, never refused
    let literals: unknown[] | undefined
    const enumeration = keywords.enum
    if (keywords.hasConst === true) {
      // Beside an enum, the one value must be in it too.
      literals = !Array.isArray(enumeration) || enumeration.some((member) => jsonEqual(member, keywords.const)) ? [keywords.const] : []
    } else if (Array.isArray(enumeration)) literals = enumeration
    else if (enumeration !== undefined) this.gap(under(where, 'enum'), 'enum is not an array, so it is not checked')
    let bySlot: (unknown[] | undefined)[] | undefined
    if (literals !== undefined) {
      bySlot = []
      for (const value of literals) {
        const slot = slotOfValue(value)
        if (slot === NUMBER && integer && !Number.isInteger(value)) continue
        ;(bySlot[slot] ??= []).push(Object.is(value, -0) ? 0 : value)
      }
    }
    const shape: (Part | undefined)[] = [undefined, undefined, undefined, undefined, undefined, undefined]
    for (let slot = 0; slot < 6; slot++) {
      if (!allowed[slot]) continue
      const members = bySlot?.[slot]
      if (bySlot !== undefined && members === undefined) continue
      shape[slot] = this.#slot(slot, keywords, where, integer, members)
    }
    return shape
  }

  /** What the schema accepts of one type, or `undefined` when it accepts none (`literals`: its enum members of the type). */
  #slot(slot: number, keywords: Keywords, where: Where, integer: boolean, literals: unknown[] | undefined): Part | undefined {
    switch (slot) {
      case STRING:
        return this.#string(keywords, where, literals as string[] | undefined)
      case NUMBER:
        return this.#number(keywords, where, integer, literals as number[] | undefined)
      case BOOLEAN:
        return literals === undefined || new Set(literals).size === 2
          ? universalPart(BOOLEAN, true)
          : { spec: { type: 'boolean', enum: [literals[0]] }, universal: false, exact: true }
      case NULL:
        return universalPart(NULL, true)
      default: {
        const found = slot === ARRAY ? this.#array(keywords, where) : this.#object(keywords, where)
        if (found === undefined || literals === undefined) return found
        this.gap(under(where, keywords.hasConst === true ? 'const' : 'enum'), `${slotNames[slot]} members of enum/const are not checked`)
        return { ...found, exact: false }
      }
    }
  }

  /** A count keyword (`minLength`, `maxItems`, …): a non-negative integer, else a gap. */
  #count(keywords: Keywords, keyword: string, where: Where): number | undefined {
    const value = keywords[keyword]
    if (value === undefined) return undefined
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value === 0 ? 0 : value
    this.gap(under(where, keyword), `${keyword} is not a non-negative integer, so it is not checked`)
    return undefined
  }

  #string(keywords: Keywords, where: Where, literals: string[] | undefined): Part | undefined {
    const min = this.#count(keywords, 'minLength', where)
    const max = this.#count(keywords, 'maxLength', where)
    if (min !== undefined && max !== undefined && min > max) return undefined
    let exact = true
    if (keywords.pattern !== undefined) {
      exact = false
      this.gap(under(where, 'pattern'), "pattern is not checked (a server's regular expression never runs on the host's backtracking engine)")
    }
    if (literals !== undefined) {
      const fits = [...new Set(literals)].filter((text) => withinLengths(text, min, max))
      return fits.length === 0 ? undefined : this.#part({ type: 'string', enum: fits }, false, exact)
    }
    if ((min === undefined || min === 0) && max === undefined) return exact ? universalPart(STRING, true) : universalPart(STRING, false)
    const spec: Spec = { type: 'string' }
    if (min !== undefined && min > 0) spec.minLength = min
    if (max !== undefined) spec.maxLength = max
    return this.#part(spec, false, exact)
  }

  #number(keywords: Keywords, where: Where, integer: boolean, literals: number[] | undefined): Part | undefined {
    let exact = true
    const bounds: Bounds = {}
    let bounded = false
    for (const keyword of boundKeywords) {
      const value = keywords[keyword]
      if (value === undefined) continue
      if (typeof value === 'number' && Number.isFinite(value)) {
        bounds[keyword] = value === 0 ? 0 : value
        bounded = true
        continue
      }
      exact = false
      this.gap(under(where, keyword), `${keyword} ${typeof value === 'boolean' ? 'as a boolean (draft-04)' : 'is not a finite number, so it'} is not checked`)
    }
    let divisor = keywords.multipleOf
    if (divisor !== undefined && !(typeof divisor === 'number' && Number.isFinite(divisor) && divisor > 0)) {
      exact = false
      this.gap(under(where, 'multipleOf'), 'multipleOf is not a number greater than 0, so it is not checked')
      divisor = undefined
    }
    if (!boundsMeet(bounds)) return undefined
    const type = integer ? 'integer' : 'number'
    if (literals !== undefined) {
      const fits = [...new Set(literals)].filter((value) => withinBounds(value, bounds))
      if (fits.length === 0) return undefined
      if (divisor !== undefined) {
        exact = false
        this.gap(under(where, 'multipleOf'), 'multipleOf beside enum/const is not checked')
      }
      return this.#part({ type, enum: fits }, false, exact)
    }
    if (!integer && !bounded && divisor === undefined) return universalPart(NUMBER, exact)
    const spec: Spec = { type, ...bounds }
    if (divisor !== undefined) spec.multipleOf = divisor
    return this.#part(spec, false, exact)
  }

  #array(keywords: Keywords, where: Where): Part | undefined {
    const spec: Spec = { type: 'array' }
    let exact = true
    const min = this.#count(keywords, 'minItems', where)
    let max = this.#count(keywords, 'maxItems', where)
    const { items } = keywords
    if (keywords.prefixItems !== undefined) {
      exact = false
      this.gap(under(where, 'prefixItems'), 'prefixItems (a tuple) is not checked')
    } else if (Array.isArray(items)) {
      exact = false
      this.gap(under(where, 'items'), 'items as an array (a draft-07 tuple) is not checked')
    } else if (items !== undefined && this.#budget < 2) {
      exact = false
      this.gap(under(where, 'items'), `nested too deeply for the validators (${MAX_SCHEMA_DEPTH} levels), so the items are not checked`)
    } else if (items !== undefined) {
      const element = this.#spec(this.convert(items, under(where, 'items'), this.#budget - 2))
      if (element === undefined) max = 0 // no element can match: only the empty array
      else {
        exact &&= element.exact
        if (element.spec !== jsonSpec) spec.items = element.spec
      }
    }
    if (min !== undefined && max !== undefined && min > max) return undefined
    if (min !== undefined && min > 0) spec.minItems = min
    if (max !== undefined) spec.maxItems = max
    if (keywords.uniqueItems === true) spec.uniqueItems = true
    return this.#part(spec, Object.keys(spec).length === 1, exact)
  }

  #object(keywords: Keywords, where: Where): Part | undefined {
    let exact = true
    let additional = true
    const extra = keywords.additionalProperties
    if (typeof extra === 'boolean') additional = extra
    else if (extra !== undefined) {
      const shape = this.convert(extra, under(where, 'additionalProperties'), this.#budget - 2)
      if (shape.every((item) => item === undefined)) additional = false
      else if (!isAny(shape)) {
        exact = false
        this.gap(under(where, 'additionalProperties'), 'the values of additional properties are not checked')
      }
    }
    const patterned = keywords.patternProperties
    if (isRecord(patterned) && Object.keys(patterned).length > 0) {
      exact = false
      additional = true // a key a pattern matches is no additional property: without the patterns, every key is allowed
      this.gap(under(where, 'patternProperties'), 'patternProperties is not checked')
    }
    const list = keywords.required
    const required = new Set(Array.isArray(list) ? list.filter((name): name is string => typeof name === 'string') : [])
    const declared = keywords.properties
    if (declared !== undefined && !isRecord(declared)) this.gap(under(where, 'properties'), 'properties is not an object, so it is not checked')
    const names = isRecord(declared) ? Object.keys(declared) : []
    const declaredNames = new Set(names)
    if (names.length === 0 && required.size === 0) {
      return additional ? (exact ? universalPart(OBJECT, true) : universalPart(OBJECT, false)) : this.#part({ type: 'object', additionalProperties: false }, false, exact)
    }
    if (this.#budget < 2) {
      // No room for one more level: only the object's type is checked.
      this.gap(under(where, 'properties'), `nested too deeply for the validators (${MAX_SCHEMA_DEPTH} levels), so the properties are not checked`)
      return universalPart(OBJECT, false)
    }
    const properties: Spec = {}
    const inside = under(where, 'properties')
    for (const name of names) {
      const place = under(inside, name)
      const found = this.#spec(this.convert((declared as Record<string, unknown>)[name], place, this.#budget - 2))
      if (found === undefined) {
        // No value is allowed: the property must be absent.
        if (required.has(name)) return undefined
        if (!additional) continue // then it is undeclared on a closed object: refused, as it should be
        exact = false
        this.gap(place, 'the property must be absent, which is not checked')
        continue
      }
      exact &&= found.exact
      let property = found.spec
      if (required.has(name)) {
        property = { ...property, required: true }
        this.#sizes.set(property, this.#size(found.spec))
      }
      if (name === '__proto__') Object.defineProperty(properties, name, { value: property, enumerable: true, writable: true, configurable: true })
      else properties[name] = property
    }
    for (const name of required) {
      if (declaredNames.has(name)) continue
      if (!additional) return undefined // required, yet not allowed: no object matches
      const property = { type: 'json', required: true }
      if (name === '__proto__') Object.defineProperty(properties, name, { value: property, enumerable: true, writable: true, configurable: true })
      else properties[name] = property
    }
    const spec: Spec = { type: 'object', additionalProperties: additional }
    if (Object.keys(properties).length > 0) spec.properties = properties
    return this.#part(spec, false, exact)
  }

  /** `anyOf` (`one`: `oneOf`) of `branches`, by type. */
  #union(branches: readonly unknown[], where: Where, one: boolean): Shape {
    // A branch's spec may become a branch of a DSL oneOf here: one level less.
    const shapes = branches.map((branch, index) => this.convert(branch, under(where, String(index)), this.#budget - 1))
    const union: (Part | undefined)[] = []
    for (let slot = 0; slot < 6; slot++) {
      const found = shapes.flatMap((shape) => shape[slot] ?? [])
      if (found.length <= 1) {
        union.push(found[0])
        continue
      }
      const universal = one ? undefined : (found.find((item) => item.universal && item.exact) ?? found.find((item) => item.universal))
      if (universal !== undefined) {
        union.push(universal)
        continue
      }
      const exact = found.every((item) => item.exact)
      // Branches that cannot both match (objects told apart by a required literal, or every branch exact under
      // oneOf) are a DSL oneOf; any other overlap is checked by its type alone.
      if ((slot === OBJECT && discriminated(found)) || (one && exact)) {
        union.push(this.#part({ oneOf: found.map((item) => item.spec) }, false, exact))
        continue
      }
      this.gap(where, `${one ? 'oneOf' : 'anyOf'} branches that overlap on ${slotNames[slot]} values are checked by their type only`)
      union.push(universalPart(slot, false))
    }
    return union
  }

  /** `allOf` of `shapes`, by type: a type every part accepts, checked by the parts that restrict it. */
  #intersect(shapes: readonly Shape[], where: Where): Shape {
    const result: (Part | undefined)[] = []
    for (let slot = 0; slot < 6; slot++) {
      const list = shapes.map((shape) => shape[slot])
      if (list.some((item) => item === undefined)) {
        result.push(undefined)
        continue
      }
      const parts = list as Part[]
      const exact = parts.every((item) => item.exact)
      const narrowing = parts.filter((item) => !item.universal)
      if (narrowing.length <= 1) {
        const chosen = narrowing[0] ?? (parts[0] as Part)
        result.push(chosen.exact === exact ? chosen : { ...chosen, exact })
        continue
      }
      const merged = mergeScalars(slot, narrowing.map((item) => item.spec))
      if (merged === null) {
        result.push(undefined) // the parts leave no value of this type
      } else if (merged !== undefined) {
        result.push(merged === loose[slot] ? universalPart(slot, exact) : this.#part(merged, false, exact))
      } else {
        this.gap(where, `of the parts of allOf that restrict ${slotNames[slot]} values, only the first is checked`)
        result.push({ ...(narrowing[0] as Part), exact: false })
      }
    }
    return result
  }

  /** The DSL spec of a shape, or `undefined` when the shape accepts nothing. */
  #spec(shape: Shape): { spec: Spec; exact: boolean } | undefined {
    const found = shape.filter((item): item is Part => item !== undefined)
    if (found.length === 0) return undefined
    const exact = found.every((item) => item.exact)
    if (found.length === 6 && found.every((item) => item.universal)) return { spec: jsonSpec, exact }
    if (found.length === 1) return { spec: (found[0] as Part).spec, exact }
    // One branch per type: at most one can match, so this oneOf is the union of the types, exactly.
    return { spec: this.#part({ oneOf: found.map((item) => item.spec) }, false, exact).spec, exact }
  }

  /** A part for a spec built here, its expanded size recorded. */
  #part(spec: Spec, universal: boolean, exact: boolean): Part {
    let size = 1
    const { enum: members, items, oneOf, properties } = spec
    if (Array.isArray(members)) for (const member of members) size += typeof member === 'string' ? 1 + member.length : 1
    if (items !== undefined) size += this.#size(items as Spec)
    if (Array.isArray(oneOf)) for (const branch of oneOf) size += this.#size(branch as Spec)
    if (isRecord(properties)) for (const name of Object.keys(properties)) size += 1 + name.length + this.#size(properties[name] as Spec)
    if (size > 1) this.#sizes.set(spec, size)
    return { spec, universal, exact }
  }

  #size(spec: Spec): number {
    return this.#sizes.get(spec) ?? 1
  }
}

/**
 * Converts a tool's (gated) `inputSchema` into the DSL spec its arguments are validated with, and lists the gaps:
 * the places where the spec accepts more than the schema. Linear in the schema's size (each schema object is
 * converted once, even where it is shared), never deeper than the validators' `MAX_SCHEMA_DEPTH`, and never larger
 * than their `MAX_SCHEMA_SIZE`. Never throws.
 */
export function convertArgumentSchema(schema: JsonObject): ArgumentSchema {
  const converter = new Converter()
  let spec: Spec | undefined
  try {
    spec = converter.root(converter.convert(schema, undefined, ROOT_BUDGET))
  } catch (error) {
    // Only the engine's own limits could land here (the walk is depth-bounded); nothing is checked then.
    converter.gap(undefined, `the schema could not be converted (${error instanceof Error ? error.message : String(error)}), so nothing is checked`)
    spec = undefined
  }
  return { spec, gaps: converter.gaps, omittedGaps: converter.omittedGaps }
}

/** A converted schema and its validator, compiled on first use. */
interface Compiled {
  readonly converted: ArgumentSchema
  /** The validator; `undefined` while not compiled, `null` when there is nothing to compile or compiling failed. */
  validator: Validator<unknown> | null | undefined
  /** Why compiling failed (not expected: the conversion keeps within the validators' limits). */
  error: string | undefined
}

const compiledBySchema = new WeakMap<object, Compiled>()

function compiledFor(schema: JsonObject): Compiled {
  let compiled = compiledBySchema.get(schema)
  if (compiled === undefined) {
    const converted = convertArgumentSchema(schema)
    compiled = { converted, validator: converted.spec === undefined ? null : undefined, error: undefined }
    compiledBySchema.set(schema, compiled)
  }
  return compiled
}

function validatorOf(compiled: Compiled): Validator<unknown> | null {
  if (compiled.validator !== undefined) return compiled.validator
  try {
    // Code is generated only once a server tool proves hot (1,000 calls), never on its first call.
    compiled.validator = compileValueSchema(compiled.converted.spec as unknown as ValueSchemaSpec, { generate: 'when-hot' }) as Validator<unknown>
  } catch (error) {
    compiled.validator = null
    compiled.error = error instanceof Error ? error.message : String(error)
  }
  return compiled.validator
}

const VALID: ToolArgumentsCheck = Object.freeze({ ok: true })
const EMPTY: JsonObject = Object.freeze({}) as JsonObject

/**
 * The registry's validation hook for a server tool registered as `toolName` with the gated input schema `schema`:
 * `{ ok: false, message }` with the `ToolArgsError` text a `defineTool` tool gives (every violation with its path),
 * so the registry answers `INVALID_ARGS` before any policy sees the call. The schema is converted now (the status
 * note needs its gaps) and compiled on the first call (compiling costs more than converting). Arguments that are
 * `null` are checked as `{}` (what the server is sent). Parts of the schema that cannot be checked are let through
 * (see {@link argumentValidationNote}). Pure and synchronous; never throws.
 */
export function argumentValidator(schema: JsonObject, toolName: string): (args: unknown) => ToolArgumentsCheck {
  const compiled = compiledFor(schema)
  return (args) => {
    const validator = validatorOf(compiled)
    if (validator === null) return VALID
    const value = args ?? EMPTY
    if (validator.is(value)) return VALID
    const result = validator.validate(value)
    if (result.ok) return VALID
    return { ok: false, message: new ToolArgsError({ toolName, violations: result.violations, omitted: result.omitted }).message }
  }
}

/**
 * What the status of a registered tool says about its argument validation: `undefined` when every argument is
 * checked, otherwise the gaps (the parts only the server checks).
 */
export function argumentValidationNote(plan: PlannedTool): string | undefined {
  if (plan.state !== 'registered' || plan.parameters === undefined) return undefined
  const compiled = compiledFor(plan.parameters)
  if (compiled.error !== undefined) return `its arguments are not validated before the pipeline's policy (the schema could not be compiled: ${compiled.error}); the server checks them`
  const { gaps, omittedGaps } = compiled.converted
  if (gaps.length === 0) return undefined
  const more = Math.max(gaps.length - NOTE_GAPS, 0) + omittedGaps
  const listed = gaps.slice(0, NOTE_GAPS).join('; ')
  return compiled.converted.spec === undefined
    ? `its arguments are not validated before the pipeline's policy; the server checks them: ${listed}${more > 0 ? `; and ${more} more` : ''}`
    : `its arguments are validated before the pipeline's policy, except for what this client cannot check (the server checks it): ${listed}${more > 0 ? `; and ${more} more` : ''}`
}

/**
 * A {@link McpSchemaCheck} for `checkSchema` that refuses a tool whose arguments cannot be validated completely
 * (a `pattern`, an overlapping `anyOf`, …): each gap is a problem, so the tool is `rejected` (unless `schemaPolicy`
 * is `pass`). Without it such a tool is registered, its arguments checked as far as they can be, with a note.
 */
export const requireFullArgumentValidation: McpSchemaCheck = (schema) => {
  const { gaps, omittedGaps } = compiledFor(schema).converted
  const problems = gaps.map((gap) => `its arguments cannot be validated completely: ${gap}`)
  if (omittedGaps > 0) problems.push(`its arguments cannot be validated completely: and ${omittedGaps} more places`)
  return problems
}

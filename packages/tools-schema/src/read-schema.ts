import { formatJsonPath, snapshotJson, type JsonPathSegment, type JsonPrimitive, type ReadonlyJsonValue } from '@dsh/tools-core'
import { compileNode } from './compile-validator.js'
import { Sink } from './validation-sink.js'
import { expectedText, kindCode, leafMatches } from './value-rules.js'
import { constraintPlacementProblem, isConstraintKeyword, readConstraints, type Constraints } from './constraints.js'
import { describeValue } from './describe-value.js'
import { readOwnArray, readOwnObject } from './read-own.js'
import { schemaProblem, type SchemaProblem } from './schema-problem.js'
import type { NodeAnnotations, ObjectNode, PropertyNode, ScalarKind, SchemaNode } from './schema-node.js'
import { unsupportedKeyword } from './unsupported-keywords.js'
import { firstOf, formatViolation } from './violation.js'

/** How deeply schema nodes may nest (objects, arrays and `oneOf`s inside each other). */
export const MAX_SCHEMA_DEPTH = 64

/**
 * How large one schema (a parameter map, an output schema, a structured-output schema) may be, as its JSON Schema
 * would expand: 1,000,000 units, where every schema node, enum member and property counts one, and every string
 * (names, enum members, titles, descriptions) and annotation (`default`, `examples`, as JSON text) its length —
 * about a megabyte of JSON Schema text. A sub-schema object used at several places counts at each (the emitted
 * JSON Schema writes it out at each), but is read, checked and compiled once, so a shared DAG is measured in time
 * linear in its size and refused with a definition error instead of expanding.
 */
export const MAX_SCHEMA_SIZE = 1_000_000

/** Which front end reads: the typed DSL, or the structured-output subset of raw JSON Schema. */
type Dialect = 'dsl' | 'structured'

/** The outcome of reading a schema: the checked node, or every problem found. */
export type ReadResult<Node extends SchemaNode = SchemaNode> =
  | { readonly node: Node; readonly problems: readonly [] }
  | { readonly node: undefined; readonly problems: readonly SchemaProblem[] }

type Entries = ReadonlyMap<string, unknown>

/** A node read from a spec object, remembered for the next place that object is used. */
interface Memo {
  readonly read: { node: SchemaNode; required: boolean }
  /** Its expanded size (see {@link MAX_SCHEMA_SIZE}). */
  readonly size: number
  /** How many levels of nodes it spans, itself included. */
  readonly height: number
}

const scalarKinds: ReadonlySet<string> = new Set<ScalarKind>(['string', 'number', 'integer', 'boolean', 'null'])
const dslTypes = ['string', 'number', 'integer', 'boolean', 'null', 'object', 'array', 'json'] as const
const structuredTypes = ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'] as const
const annotationKeys: ReadonlySet<string> = new Set(['description', 'title', 'default', 'examples'])

type NodeKind = ScalarKind | 'object' | 'array' | 'json' | 'oneOf'

/** The reader of one schema: its entry points and the problems found. */
interface SchemaReader {
  readonly problems: SchemaProblem[]
  parameters(spec: unknown): ObjectNode | undefined
  node(spec: unknown, asProperty: boolean): { node: SchemaNode; required: boolean } | undefined
}

/**
 * Reads one schema (DSL or structured subset) into checked nodes, collecting every problem with its path.
 * (Closures rather than a class: their names minify, which matters for the bundle's size budget.)
 */
function createReader(dialect: Dialect): SchemaReader {
  const dsl = dialect === 'dsl'
  const problems: SchemaProblem[] = []
  const path: JsonPathSegment[] = []
  const ancestors = new Set<object>()
  let depth = 0
  /** The schema's expanded size so far (see {@link MAX_SCHEMA_SIZE}); past the limit, reading stops. */
  let size = 0
  let tooLarge = false
  /** The deepest level reached inside the node being read (for the height of what is remembered). */
  let deepest = 0
  /** Nodes read from a spec object, with their expanded size and height: a spec reached again is not read again. */
  const memo: [Map<object, Memo>, Map<object, Memo>] = [new Map(), new Map()]
  /** Spec objects whose reading reported problems, with the path where they were first read. */
  const failed = new Map<object, string>()

  function report(message: string, ...extra: JsonPathSegment[]): void {
    problems.push(schemaProblem([...path, ...extra], message))
  }

  function at<T>(segment: JsonPathSegment, read: () => T): T {
    path.push(segment)
    try {
      return read()
    } finally {
      path.pop()
    }
  }

  /** Reads a plain object's own enumerable entries once (getters run once), guarding against cycles. */
  function withObject<T>(value: unknown, what: string, read: (entries: Entries) => T): T | undefined {
    if (typeof value === 'object' && value !== null && ancestors.has(value)) {
      report('the schema contains itself (a cycle)')
      return undefined
    }
    const own = readOwnObject(value)
    if (own.entries === undefined) {
      report(own.got === undefined ? `reading the schema threw: ${own.threw}` : `expected ${what}, got ${own.got}`)
      return undefined
    }
    if (own.symbols) report('symbol keys are not supported')
    ancestors.add(value as object)
    try {
      return read(own.entries)
    } finally {
      ancestors.delete(value as object)
    }
  }

  /** Reads a plain array's elements once; `undefined` (with a problem) when it is not one. */
  function readArray(value: unknown, what: string): readonly unknown[] | undefined {
    const own = readOwnArray(value)
    if (own.items !== undefined) return own.items
    report(own.got === undefined ? `reading the schema threw: ${own.threw}` : `expected ${what}, got ${own.got}`)
    return undefined
  }

  /** Adds to the expanded size; reports (once) and stops the reading when it passes the limit. */
  function grow(units: number): void {
    size += units
    if (size > MAX_SCHEMA_SIZE && !tooLarge) {
      tooLarge = true
      report(
        `the schema is too large: its JSON Schema would expand to more than ${MAX_SCHEMA_SIZE} units (MAX_SCHEMA_SIZE; a sub-schema used at several places counts at each)`,
      )
    }
  }

  /** A DSL parameter map: the top-level implicit open object. */
  function parameters(spec: unknown): ObjectNode | undefined {
    const entries = propertyEntries(spec)
    if (entries === undefined) return undefined
    const properties = propertyNodes(entries, new Set())
    return { kind: 'object', annotations: {}, properties, additionalProperties: true, implicit: true }
  }

  /** The entries of a map of property schemas (DSL `parameters`/`properties`, structured `properties`), read once. */
  function propertyEntries(spec: unknown): Entries | undefined {
    return withObject(spec, 'a map of property schemas like { path: { type: "string" } }', (entries) => entries)
  }

  /** The property nodes of a map's entries (`required`: the names a structured `required` array lists). */
  function propertyNodes(entries: Entries, required: ReadonlySet<string>): PropertyNode[] {
    const properties: PropertyNode[] = []
    for (const [name, value] of entries) {
      grow(1 + name.length)
      const read = at(name, () => readNode(value, dsl))
      if (read !== undefined) properties.push({ name, node: read.node, required: read.required || required.has(name) })
    }
    return properties
  }

  /** One value schema. `asProperty`: a DSL property, where `required: true` is allowed. */
  function readNode(spec: unknown, asProperty: boolean): { node: SchemaNode; required: boolean } | undefined {
    if (tooLarge) return undefined
    const remembered = typeof spec === 'object' && spec !== null ? memo[asProperty ? 1 : 0].get(spec) : undefined
    // A spec object read before (shared): its node again, counted again; read afresh only where it would nest too
    // deep, so that the problem is reported at this place.
    if (remembered !== undefined && depth + remembered.height <= MAX_SCHEMA_DEPTH) {
      grow(remembered.size)
      if (depth + remembered.height > deepest) deepest = depth + remembered.height
      return tooLarge ? undefined : remembered.read
    }
    if (typeof spec === 'object' && spec !== null) {
      // A spec object that failed before: its problems are listed once, where it was first read, so that a DAG of
      // shared broken sub-schemas is not read (and reported) once per path through it.
      const first = failed.get(spec)
      if (first !== undefined) {
        report(`this sub-schema is used again here; its problems are listed at ${first === '' ? 'the root' : `"${first}"`}`)
        return undefined
      }
    }
    if (depth >= MAX_SCHEMA_DEPTH) {
      report(`the schema nests deeper than ${MAX_SCHEMA_DEPTH} levels`)
      return undefined
    }
    depth++
    const problemsBefore = problems.length
    const sizeBefore = size
    const deepestBefore = deepest
    deepest = depth
    try {
      grow(1)
      const read = withObject(spec, 'a schema object like { type: "string" }', (entries) => nodeEntries(entries, asProperty))
      if (read === undefined || problems.length !== problemsBefore) return undefined
      if (dsl) checkAnnotations(read.node)
      if (problems.length === problemsBefore) memo[asProperty ? 1 : 0].set(spec as object, { read, size: size - sizeBefore, height: deepest - depth + 1 })
      return read
    } finally {
      if (problems.length !== problemsBefore && typeof spec === 'object' && spec !== null && !failed.has(spec)) failed.set(spec, formatJsonPath(path))
      depth--
      if (deepestBefore > deepest) deepest = deepestBefore
    }
  }

  function kindOf(entries: Entries): NodeKind | undefined {
    if (dsl && entries.has('oneOf')) {
      if (entries.has('type')) report('a oneOf node has no type of its own; put the type in each branch', 'type')
      return 'oneOf'
    }
    const types: readonly string[] = dsl ? dslTypes : structuredTypes
    if (!entries.has('type')) {
      report(`missing "type" (one of ${types.join(', ')})${dsl ? ' or "oneOf"' : ''}`)
      return undefined
    }
    const type = entries.get('type')
    if (typeof type === 'string' && types.includes(type)) return type as NodeKind
    if (Array.isArray(type)) {
      const instead = dsl ? 'use oneOf with one branch per type' : 'give one type'
      report(`type arrays are not supported; ${instead}`, 'type')
    } else {
      report(`unknown type ${typeof type === 'string' ? JSON.stringify(type) : describeValue(type)}; expected one of ${types.join(', ')}`, 'type')
    }
    return undefined
  }

  function nodeEntries(entries: Entries, asProperty: boolean): { node: SchemaNode; required: boolean } | undefined {
    const kind = kindOf(entries)
    let required = false
    for (const [key, value] of entries) {
      if (key === 'type' || annotationKeys.has(key)) continue
      if (dsl && key === 'required') {
        if (!asProperty) {
          report('"required" is only allowed on a property in parameters or properties', key)
        } else if (value !== true) {
          report('required must be true; leave it out for an optional property', key)
        } else required = true
        continue
      }
      const problem = keyProblem(key, kind)
      if (problem !== undefined) report(problem, key)
    }
    const annotations = readAnnotations(entries)
    if (kind === undefined) return undefined
    let node: SchemaNode | undefined
    switch (kind) {
      case 'json':
        node = { kind, annotations }
        break
      case 'object':
        node = objectNode(entries, annotations)
        break
      case 'array': {
        const items = entries.has('items') ? at('items', () => readNode(entries.get('items'), false)) : undefined
        const constraints = readConstraints(entries, kind, report)
        node = entries.has('items') && items === undefined ? undefined : { kind, annotations, items: items?.node, constraints }
        break
      }
      case 'oneOf':
        node = oneOfNode(entries.get('oneOf'), annotations)
        break
      default:
        node = scalarNode(kind, entries, annotations)
    }
    return node === undefined ? undefined : { node, required }
  }

  /** Why `key` may not appear on a node of `kind`, or `undefined` when it may. */
  function keyProblem(key: string, kind: NodeKind | undefined): string | undefined {
    switch (key) {
      case 'oneOf':
        return dsl ? undefined : '"oneOf" is not supported in the structured-output subset'
      case 'enum':
      case 'const':
        return kind === undefined || scalarKinds.has(kind)
          ? undefined
          : `"${key}" only applies to scalar types (string, number, integer, boolean, null)`
      case 'properties':
      case 'additionalProperties':
        return kind === undefined || kind === 'object' ? undefined : `"${key}" only applies to type "object"`
      case 'required':
        return kind === undefined || kind === 'object' ? undefined : '"required" only applies to type "object"'
      case 'items':
        return kind === undefined || kind === 'array' ? undefined : '"items" only applies to type "array"'
      default:
        return isConstraintKeyword(key) ? constraintPlacementProblem(key, kind) : unsupportedKeyword(key)
    }
  }

  function readAnnotations(entries: Entries): NodeAnnotations {
    const annotations: NodeAnnotations = {}
    for (const [key, value] of entries) {
      if (key === 'title' || key === 'description') {
        if (typeof value === 'string') {
          grow(1 + value.length)
          annotations[key] = value
        } else report(`${key} must be a string, got ${describeValue(value)}`, key)
      } else if (key === 'default') {
        const snapshot = at(key, () => jsonAnnotation(value))
        if (snapshot !== undefined) annotations.default = snapshot
      } else if (key === 'examples') {
        const examples = at(key, () => readArray(value, 'an array of examples'))
        if (examples === undefined) continue
        const values: ReadonlyJsonValue[] = []
        examples.forEach((example, index) => {
          const snapshot = at(key, () => at(index, () => jsonAnnotation(example)))
          if (snapshot !== undefined) values.push(snapshot)
        })
        annotations.examples = values
      }
    }
    return annotations
  }

  function jsonAnnotation(value: unknown): ReadonlyJsonValue | undefined {
    const snapshot = snapshotJson(value, { maxSize: MAX_SCHEMA_SIZE })
    if (snapshot.ok) {
      // As written into the JSON Schema (the snapshot is bounded, so this text is too).
      grow(JSON.stringify(snapshot.value).length)
      return snapshot.value
    }
    report(`must be lossless JSON: ${snapshot.error.message}`)
    return undefined
  }

  function objectNode(entries: Entries, annotations: NodeAnnotations): ObjectNode | undefined {
    let additionalProperties = true
    if (entries.has('additionalProperties')) {
      const value = entries.get('additionalProperties')
      if (typeof value === 'boolean') additionalProperties = value
      else report(`additionalProperties must be true or false, got ${describeValue(value)}`, 'additionalProperties')
    } else if (dsl) {
      report('an object must say additionalProperties: true (other keys allowed, any JSON) or false (no other keys)')
    }
    // The properties object is read once: its names check `required`, its entries become the property nodes.
    let propertyMap: Entries | undefined = new Map()
    if (entries.has('properties')) propertyMap = at('properties', () => propertyEntries(entries.get('properties')))
    let required: ReadonlySet<string> = new Set()
    if (!dsl && entries.has('required')) {
      const declared: ReadonlySet<string> = new Set(propertyMap?.keys())
      required = at('required', () => requiredList(entries.get('required'), declared))
    }
    if (propertyMap === undefined) return undefined
    const properties = at('properties', () => propertyNodes(propertyMap, required))
    return { kind: 'object', annotations, properties, additionalProperties, implicit: false }
  }

  /**
   * The structured subset's `required` array: unique names, each declared in `properties` (`declared`: the names
   * read there).
   */
  function requiredList(value: unknown, declared: ReadonlySet<string>): ReadonlySet<string> {
    const names = new Set<string>()
    const list = readArray(value, 'an array of property names')
    if (list === undefined) return names
    list.forEach((name, index) => {
      if (typeof name !== 'string') report(`expected a property name, got ${describeValue(name)}`, index)
      else if (names.has(name)) report(`"${name}" is listed twice`, index)
      else if (!declared.has(name)) report(`"${name}" is not declared in properties`, index)
      else names.add(name)
    })
    return names
  }

  function oneOfNode(value: unknown, annotations: NodeAnnotations): SchemaNode | undefined {
    const list = at('oneOf', () => readArray(value, 'an array of branch schemas'))
    if (list === undefined) return undefined
    if (list.length < 2) {
      report('oneOf needs at least two branches; with one, use that branch itself', 'oneOf')
      return undefined
    }
    const branches: SchemaNode[] = []
    list.forEach((branch, index) => {
      const read = at('oneOf', () => at(index, () => readNode(branch, false)))
      if (read !== undefined) branches.push(read.node)
    })
    return branches.length === list.length ? { kind: 'oneOf', annotations, branches } : undefined
  }

  function scalarNode(kind: ScalarKind, entries: Entries, annotations: NodeAnnotations): SchemaNode | undefined {
    const leaf = kindCode(kind)
    const test = (value: unknown) => leafMatches(leaf, value)
    let members: JsonPrimitive[] | undefined
    if (entries.has('enum')) {
      if (entries.has('const')) report('use enum or const, not both', 'const')
      const list = at('enum', () => readArray(entries.get('enum'), 'an array of allowed values'))
      if (list !== undefined) {
        members = []
        if (list.length === 0) report('an empty enum allows nothing', 'enum')
        // A Set finds duplicates in linear time. Its equality (SameValueZero) is JSON equality for the members it
        // can hold: strings, finite numbers other than -0 (1 and 1.0 are one number), booleans and null.
        const seen = new Set<unknown>()
        list.forEach((member, index) => {
          if (!test(member)) report(`expected ${expectedText[kind]} (the node's type), got ${describeValue(member)}`, 'enum', index)
          else if (seen.has(member)) report('duplicates an earlier member', 'enum', index)
          else {
            seen.add(member)
            grow(typeof member === 'string' ? 1 + member.length : 1)
            ;(members as JsonPrimitive[]).push(member as JsonPrimitive)
          }
        })
      }
    }
    let hasConst = false
    let constant: JsonPrimitive = null
    if (entries.has('const') && !entries.has('enum')) {
      const value = entries.get('const')
      if (test(value)) {
        hasConst = true
        constant = value as JsonPrimitive
      } else report(`expected ${expectedText[kind]} (the node's type), got ${describeValue(value)}`, 'const')
    }
    const constraints = kind === 'boolean' || kind === 'null' ? undefined : readConstraints(entries, kind, report)
    if (constraints !== undefined) {
      // Next to enum or const the constraints must hold for every literal: the validators then check only the literal.
      if (members !== undefined) members.forEach((member, index) => literalProblem(kind, constraints, member, 'enum', index))
      else if (hasConst) literalProblem(kind, constraints, constant, 'const')
    }
    return { kind, annotations, enum: members, hasConst, const: constant, constraints }
  }

  function literalProblem(kind: ScalarKind, constraints: Constraints, value: JsonPrimitive, ...where: JsonPathSegment[]): void {
    const sink = new Sink(1, 1)
    if (compileNode({ kind, annotations: {}, enum: undefined, hasConst: false, const: null, constraints })(value, sink)) return
    const first = firstOf(sink.violations())
    report(`can never be accepted: it breaks the node's own constraints${first === undefined ? '' : ` (${first.message})`}`, ...where)
  }

  /** DSL only: a `default` and every example must match their own (sound) node. */
  function checkAnnotations(node: SchemaNode): void {
    const { default: fallback, examples } = node.annotations
    if (fallback === undefined && examples === undefined) return
    const check = compileNode(node)
    const candidates: [JsonPathSegment[], ReadonlyJsonValue][] = []
    if (fallback !== undefined) candidates.push([['default'], fallback])
    examples?.forEach((example, index) => candidates.push([['examples', index], example]))
    for (const [where, value] of candidates) {
      const sink = new Sink(1, 1)
      if (check(value, sink)) continue
      const first = firstOf(sink.violations())
      report(`does not match its own schema${first === undefined ? '' : `: ${formatViolation(first)}`}`, ...where)
    }
  }

  return { problems, parameters, node: readNode }
}

function finish<Node extends SchemaNode>(reader: SchemaReader, node: Node | undefined): ReadResult<Node> {
  if (node === undefined || reader.problems.length > 0) {
    const problems = reader.problems.length > 0 ? reader.problems : [schemaProblem([], 'the schema could not be read')]
    return { node: undefined, problems }
  }
  return { node, problems: [] }
}

/** Reads a DSL parameter map (a tool's `parameters`). */
export function readParameterSpec(spec: unknown): ReadResult<ObjectNode> {
  const reader = createReader('dsl')
  return finish(reader, reader.parameters(spec))
}

/** Reads a DSL value schema (array items, `oneOf` branches, `output.schema`). */
export function readValueSpec(spec: unknown): ReadResult {
  const reader = createReader('dsl')
  return finish(reader, reader.node(spec, false)?.node)
}

/** Reads a raw JSON Schema in the structured-output subset. */
export function readStructuredSchema(schema: unknown): ReadResult {
  const reader = createReader('structured')
  return finish(reader, reader.node(schema, false)?.node)
}

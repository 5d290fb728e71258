import type { JsonObject, JsonValue } from '@dsh/tools-core'
import { linearPatternProblem } from './linear-pattern.js'
import { isRecord } from './is-record.js'

/** What the gate does with a tool whose schema has findings: drop it, repair what it can, or let it through. */
export type SchemaPolicy = 'reject' | 'transform' | 'pass'

/** One problem the gate found in a tool's schema (or, with `source: 'tool'`, in the rest of its definition). */
export interface SchemaFinding {
  /** Machine-readable kind. */
  readonly code:
    | 'not-object'
    | 'not-json'
    | 'dialect'
    | 'too-deep'
    | 'too-many-nodes'
    | 'remote-ref'
    | 'unresolved-ref'
    | 'recursive-ref'
    | 'invalid-ref'
    | 'local-ref'
    | 'pattern'
    | 'check'
    | 'invalid-tool'
  /** Where, as a JSON pointer into the schema (`''` for the root), or into the tool definition for `source: 'tool'`. */
  readonly path: string
  /** What is wrong, for a person. */
  readonly message: string
  /** True when `transform` repairs it. */
  readonly repairable: boolean
  /** What it is about: the `inputSchema` when absent, the `outputSchema`, or the tool definition's other fields (`tool`). */
  readonly source?: 'outputSchema' | 'tool' | undefined
}

/**
 * Resource bounds of a schema, measured after `$ref` expansion: each use of a definition counts its nodes (and
 * its depth) again where it is used, so a small DAG of definitions that would expand past them is refused.
 */
export interface SchemaBounds {
  /** Deepest nesting of objects and arrays, after expansion. Default 64. */
  readonly maxDepth: number
  /** Total number of JSON values in the schema after expansion (`$defs` counted once, and again at each use). Default 10,000. */
  readonly maxNodes: number
}

/** The outcome of the gate for one tool. */
export interface SchemaGateResult {
  /** The schema to register (the original, or the transformed one), or `undefined` when the tool is rejected. */
  readonly schema: JsonObject | undefined
  readonly findings: readonly SchemaFinding[]
  /** True when `transform` changed the schema. */
  readonly transformed: boolean
}

/** The outcome of {@link gateOutputSchema}: also the schema a result's `structuredContent` is checked against. */
export interface OutputSchemaGateResult extends SchemaGateResult {
  /**
   * The schema `structuredContent` is checked against: `$ref`s inlined, `$defs` and `$id`/anchors dropped, patterns
   * the linear-time engine cannot run left out; `undefined` when the tool is rejected.
   */
  readonly check: JsonObject | undefined
}

const dialects = new Set([
  'https://json-schema.org/draft/2020-12/schema',
  'https://json-schema.org/draft/2019-09/schema',
  'http://json-schema.org/draft-07/schema',
])

/** Findings kept per schema: a hostile schema may have one per node. */
const maxFindings = 50
/** Characters of a server's string quoted in a finding's message. */
const maxQuoted = 120

function normalizeDialect(uri: string): string {
  return uri.replace(/#$/, '')
}

const isObject: (value: unknown) => value is JsonObject = isRecord

/** `JSON.stringify(text)`, cut to a readable length: a server's strings reach findings, statuses and notes. */
export function quoteBounded(text: string, max = maxQuoted): string {
  return text.length <= max ? JSON.stringify(text) : `${JSON.stringify(text.slice(0, max))}… (${text.length} characters)`
}

/** A JSON pointer as a linked list: a node's path is built only when a finding needs it. */
interface Path {
  readonly parent: Path | undefined
  readonly segment: string | number
}

function pointer(path: Path | undefined): string {
  const segments: string[] = []
  for (let at = path; at !== undefined; at = at.parent) segments.push(`/${String(at.segment).replace(/~/g, '~0').replace(/\//g, '~1')}`)
  return segments.reverse().join('')
}

const child = (parent: Path | undefined, segment: string | number): Path => ({ parent, segment })

/** Where a value sits in a schema, which decides whether its `$ref`s and patterns are keywords or data. */
type Role = 'schema' | 'schemas' | 'schemaMap' | 'data'

/** Keywords whose value is one schema (`items` may also be an array of them, draft-07). */
const schemaKeywords = new Set([
  'items',
  'additionalItems',
  'contains',
  'additionalProperties',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
])
const schemaArrayKeywords = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems'])
const schemaMapKeywords = new Set(['properties', 'patternProperties', 'dependentSchemas', 'dependencies'])
const definitionKeywords = new Set(['$defs', 'definitions'])
const refKeywords = ['$ref', '$dynamicRef', '$recursiveRef'] as const
/** Identifiers and anchors mean nothing once every `$ref` is inlined; a validator would register them globally. */
const identifierKeywords = new Set(['$id', '$anchor', '$dynamicAnchor', '$recursiveAnchor'])

function roleOf(keyword: string, value: unknown): Role {
  if (schemaKeywords.has(keyword)) return Array.isArray(value) ? 'schemas' : 'schema'
  if (schemaArrayKeywords.has(keyword)) return 'schemas'
  if (schemaMapKeywords.has(keyword)) return 'schemaMap'
  return 'data'
}

/** Sets an own enumerable property, whatever its name (`__proto__` included). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

type Resolution = { readonly target: JsonValue } | { readonly problem: 'invalid' | 'unresolved'; readonly detail: string }

const canonicalIndex = /^(?:0|[1-9][0-9]*)$/

/** Resolves a local `#…` JSON pointer inside `root`; never throws (bad percent-encoding is a problem, not a `URIError`). */
function resolveLocal(root: JsonObject, ref: string): Resolution {
  if (ref === '#') return { target: root }
  if (!ref.startsWith('#/')) return { problem: 'unresolved', detail: 'is not a JSON pointer (anchors are not supported)' }
  let node: JsonValue | undefined = root
  for (const raw of ref.slice(2).split('/')) {
    let key: string
    try {
      key = decodeURIComponent(raw)
    } catch {
      return { problem: 'invalid', detail: 'has a malformed percent-encoding' }
    }
    key = key.replace(/~1/g, '/').replace(/~0/g, '~')
    if (Array.isArray(node)) node = canonicalIndex.test(key) ? node[Number(key)] : undefined
    else if (isObject(node)) node = Object.hasOwn(node, key) ? node[key] : undefined
    else node = undefined
    if (node === undefined) return { problem: 'unresolved', detail: 'does not resolve inside the schema' }
  }
  if (typeof node !== 'boolean' && !isObject(node)) return { problem: 'unresolved', detail: 'does not point to a schema' }
  return { target: node }
}

interface InspectOptions {
  readonly bounds: SchemaBounds
  /** Build the expanded copy (refs inlined, `$defs` dropped). */
  readonly build: boolean
  /** Output check mode: patterns must run on the linear-time engine (those that cannot are left out of the copy), identifiers dropped. */
  readonly check: boolean
}

interface Inspection {
  readonly findings: SchemaFinding[]
  /** The bound that stopped the walk, if one did. */
  readonly bound: SchemaFinding | undefined
  readonly hasRefs: boolean
  /** True when the copy leaves something out beyond `$defs` (a pattern). */
  readonly stripped: boolean
  readonly copy: JsonValue | undefined
}

interface Visit {
  readonly value: unknown
  readonly role: Role
  readonly depth: number
  readonly path: Path | undefined
  /** Follow `$ref`s here (not inside `$defs`, which are only used through them). */
  readonly expand: boolean
  /** Where the copy goes: a container and its key (`undefined` when nothing is built here). */
  readonly into: Record<string, unknown> | unknown[] | undefined
  readonly slot: string | number
}

/** Puts a copied value in its place (an own property, whatever its name: `__proto__` included). */
function place(into: Record<string, unknown> | unknown[] | undefined, slot: string | number, value: unknown): void {
  if (into === undefined) return
  if (slot === '__proto__') setOwn(into as Record<string, unknown>, slot, value)
  else (into as Record<string | number, unknown>)[slot] = value
}

/** Ends the expansion of a `$ref` target: recursion is a target reached again while it is being expanded. */
class Leave {
  constructor(readonly target: object) {}
}

/**
 * One iterative walk over a schema: counts nodes and depth of the expanded schema (stopping at the first bound
 * passed), checks every `$ref` (local, resolvable, well-formed, not recursive) and, in check mode, every pattern,
 * and builds the expanded copy. Work and memory are linear in the expanded size, which the bounds cap.
 */
function inspect(root: JsonObject, options: InspectOptions): Inspection {
  const { bounds, build, check } = options
  const findings: SchemaFinding[] = []
  const reported = new Set<object>()
  const resolved = new Map<string, Resolution>()
  const active = new Map<object, number>([[root, 1]])
  let nodes = 0
  let hasRefs = false
  let expanded = false
  let stripped = false
  const note = (finding: SchemaFinding, holder?: object): void => {
    if (holder !== undefined) {
      if (reported.has(holder)) return
      reported.add(holder)
    }
    if (findings.length < maxFindings) findings.push(finding)
  }
  const after = (): string => (expanded ? ' after $ref expansion' : '')
  const top: Record<string, unknown> = {}
  const stack: (Visit | Leave)[] = [{ value: root, role: 'schema', depth: 0, path: undefined, expand: true, into: build ? top : undefined, slot: 'root' }]
  while (stack.length > 0) {
    const item = stack.pop() as Visit | Leave
    if (item instanceof Leave) {
      const count = (active.get(item.target) ?? 1) - 1
      if (count === 0) active.delete(item.target)
      else active.set(item.target, count)
      continue
    }
    const { value, role, depth, path, expand, into, slot } = item
    nodes += 1
    if (nodes > bounds.maxNodes) {
      const bound: SchemaFinding = { code: 'too-many-nodes', path: '', message: `The schema has more than ${bounds.maxNodes} nodes${after()} (schemaBounds.maxNodes)`, repairable: false }
      return { findings, bound, hasRefs, stripped, copy: undefined }
    }
    if (depth > bounds.maxDepth) {
      const bound: SchemaFinding = { code: 'too-deep', path: pointer(path), message: `The schema nests deeper than ${bounds.maxDepth} levels${after()} (schemaBounds.maxDepth)`, repairable: false }
      return { findings, bound, hasRefs, stripped, copy: undefined }
    }
    if (typeof value !== 'object' || value === null) {
      if (value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) place(into, slot, value)
      else note({ code: 'not-json', path: pointer(path), message: `The schema holds a value that is not JSON (${typeof value})`, repairable: false })
      continue
    }
    if (Array.isArray(value)) {
      const out: unknown[] | undefined = into === undefined ? undefined : []
      place(into, slot, out)
      const itemRole: Role = role === 'schemas' ? 'schema' : 'data'
      for (let index = value.length - 1; index >= 0; index -= 1) {
        stack.push({ value: value[index], role: itemRole, depth: depth + 1, path: child(path, index), expand, into: out, slot: index })
      }
      continue
    }
    const record = value as Record<string, unknown>
    if (role === 'schema') {
      const refKey = refKeywords.find((key) => Object.hasOwn(record, key))
      if (refKey !== undefined) {
        const ref = record[refKey]
        const at = child(path, refKey)
        if (typeof ref !== 'string') {
          note({ code: 'invalid-ref', path: pointer(at), message: `${refKey} must be a string, got ${ref === null ? 'null' : typeof ref}`, repairable: false }, record)
        } else {
          hasRefs = true
          if (!ref.startsWith('#')) {
            note({ code: 'remote-ref', path: pointer(at), message: `${refKey} ${quoteBounded(ref)} is not local (only "#…" refs are allowed; nothing is ever fetched)`, repairable: false }, record)
          } else {
            let resolution = resolved.get(ref)
            if (resolution === undefined) resolved.set(ref, (resolution = resolveLocal(root, ref)))
            if ('problem' in resolution) {
              note({ code: resolution.problem === 'invalid' ? 'invalid-ref' : 'unresolved-ref', path: pointer(at), message: `${refKey} ${quoteBounded(ref)} ${resolution.detail}`, repairable: false }, record)
            } else if (expand) {
              const target = resolution.target
              if (typeof target === 'object' && target !== null && active.has(target)) {
                note({ code: 'recursive-ref', path: pointer(at), message: `${refKey} ${quoteBounded(ref)} is recursive and cannot be inlined`, repairable: false }, record)
              } else {
                // Inlined: the target takes this object's place; sibling keywords (2020-12 allows them) are kept by
                // intersecting both. The walk goes on inside the target, counting its nodes again for this use.
                expanded = true
                const keys = Object.keys(record).filter((key) => key !== refKey)
                if (check && keys.length > 0) {
                  // For the check, a $ref beside other keywords is what it is in 2020-12: one more in-place
                  // applicator of this object (so unevaluatedProperties here sees what the target evaluated).
                  const inPlace: Record<string, unknown> = {}
                  for (const key of keys) setOwn(inPlace, key, record[key])
                  const allOf = Array.isArray(record.allOf) ? record.allOf : []
                  setOwn(inPlace, 'allOf', [...allOf, { [refKey]: ref }])
                  stack.push({ value: inPlace, role: 'schema', depth, path, expand, into, slot })
                  continue
                }
                let targetInto = into
                let targetSlot = slot
                let inner = depth
                if (keys.length > 0) {
                  nodes += 1 // the allOf array (the wrapping object is this one)
                  inner = depth + 2
                  const pair: unknown[] | undefined = into === undefined ? undefined : [undefined, undefined]
                  place(into, slot, pair === undefined ? undefined : { allOf: pair })
                  targetInto = pair
                  targetSlot = 0
                  const siblings: Record<string, unknown> = {}
                  for (const key of keys) setOwn(siblings, key, record[key])
                  stack.push({ value: siblings, role: 'schema', depth: inner, path, expand, into: pair, slot: 1 })
                }
                if (typeof target === 'object' && target !== null) {
                  active.set(target, (active.get(target) ?? 0) + 1)
                  stack.push(new Leave(target))
                }
                stack.push({ value: target, role: 'schema', depth: inner, path: at, expand: true, into: targetInto, slot: targetSlot })
                continue
              }
            }
          }
        }
      }
    }
    const keys = Object.keys(record)
    const out: Record<string, unknown> | undefined = into === undefined ? undefined : {}
    place(into, slot, out)
    const visits: Visit[] = []
    for (const key of keys) {
      const item = record[key]
      let childRole: Role = 'data'
      let childExpand = expand
      let keep = out !== undefined
      if (role === 'schemaMap') {
        childRole = Array.isArray(item) ? 'data' : 'schema'
      } else if (role === 'schema') {
        childRole = roleOf(key, item)
        if (definitionKeywords.has(key)) {
          // Used only through $ref: walked (and counted) once, checked, never expanded in place, dropped from copies.
          childRole = 'schemaMap'
          childExpand = false
          keep = false
        } else if (check && (identifierKeywords.has(key) || (key === '$schema' && depth > 0))) {
          keep = false
        } else if (check && key === 'pattern' && typeof item === 'string') {
          const problem = linearPatternProblem(item)
          if (problem !== undefined) {
            note({ code: 'pattern', path: pointer(child(path, key)), message: `pattern ${quoteBounded(item)} cannot run on the linear-time engine (${problem}); it is not checked`, repairable: true })
            stripped = true
            keep = false
          }
        } else if (check && key === 'patternProperties' && isObject(item)) {
          for (const source of Object.keys(item)) {
            const problem = linearPatternProblem(source)
            if (problem !== undefined) {
              note({ code: 'pattern', path: pointer(child(child(path, key), source)), message: `patternProperties key ${quoteBounded(source)} cannot run on the linear-time engine (${problem})`, repairable: false })
            }
          }
        }
      }
      // Children are visited in key order (the stack is filled backwards), so the copy keeps the order of keys.
      visits.push({ value: item, role: childRole, depth: depth + 1, path: child(path, key), expand: childExpand, into: keep ? out : undefined, slot: key })
    }
    for (let index = visits.length - 1; index >= 0; index -= 1) stack.push(visits[index] as Visit)
  }
  return { findings, bound: undefined, hasRefs, stripped, copy: build ? (top.root as JsonValue) : undefined }
}

/** A server's value, shown in a message: short, whatever its size. */
function shown(value: unknown): string {
  if (typeof value === 'string') return quoteBounded(value)
  if (value === undefined || value === null) return 'null'
  if (typeof value === 'object') return Array.isArray(value) ? 'an array' : 'an object'
  return String(value)
}

function checkDialect(schema: JsonObject, findings: SchemaFinding[]): void {
  const dialect = schema.$schema
  if (dialect !== undefined && (typeof dialect !== 'string' || !dialects.has(normalizeDialect(dialect)))) {
    findings.push({ code: 'dialect', path: '/$schema', message: `Unsupported JSON Schema dialect ${shown(dialect)} (2020-12, 2019-09 and draft-07 are accepted)`, repairable: false })
  }
}

const isRefFinding = (finding: SchemaFinding): boolean => finding.code.endsWith('ref')

function withSource(findings: readonly SchemaFinding[], source: 'outputSchema'): SchemaFinding[] {
  return findings.map((finding) => ({ ...finding, source }))
}

/**
 * Checks a server tool's `inputSchema` before it is registered: an object schema (`type: 'object'`, as the
 * registry and every provider require), a known dialect (2020-12, 2019-09 or draft-07), within `bounds` measured
 * after `$ref` expansion (under every policy), and only local `$ref`s that resolve (a remote one is never fetched;
 * a malformed one is a finding, never an exception). `transform` repairs what it can: a missing `type: 'object'` on
 * a schema with `properties` is added, and local `$ref`s are inlined (and `$defs` / `definitions` dropped), which
 * providers without `$ref` support need; recursive refs cannot be inlined. Never throws for any JSON input; the
 * work is linear in the expanded size, which the bounds cap.
 */
export function gateInputSchema(schema: unknown, policy: SchemaPolicy, bounds: SchemaBounds): SchemaGateResult {
  const findings: SchemaFinding[] = []
  if (!isObject(schema)) {
    findings.push({ code: 'not-object', path: '', message: 'The inputSchema is not a JSON object', repairable: false })
    return { schema: undefined, findings, transformed: false }
  }
  const inspection = inspect(schema, { bounds, build: policy === 'transform', check: false })
  if (inspection.bound !== undefined) return { schema: undefined, findings: [inspection.bound], transformed: false } // bounds hold under every policy
  checkDialect(schema, findings)
  if (schema.type !== 'object') {
    const repairable = schema.type === undefined && (isObject(schema.properties) || Object.keys(schema).every((key) => key.startsWith('$')))
    findings.push({ code: 'not-object', path: '/type', message: `The inputSchema must have type "object", got ${shown(schema.type)}`, repairable })
  }
  findings.push(...inspection.findings)
  if (inspection.hasRefs && !findings.some(isRefFinding)) {
    findings.push({ code: 'local-ref', path: '', message: 'The schema uses local $ref, which some providers do not support', repairable: true })
  }
  const blocking = findings.filter((finding) => !finding.repairable)
  if (policy === 'pass') {
    // Only what the registry itself would refuse (a non-object schema) still drops the tool.
    return { schema: schema.type === 'object' ? schema : undefined, findings, transformed: false }
  }
  if (blocking.length > 0 || (policy === 'reject' && findings.length > 0)) return { schema: undefined, findings, transformed: false }
  if (findings.length === 0) return { schema, findings, transformed: false }
  let repaired = inspection.hasRefs && isObject(inspection.copy) ? inspection.copy : { ...schema }
  if (repaired.type === undefined) repaired = { type: 'object', ...repaired }
  return { schema: repaired, findings, transformed: true }
}

/**
 * Checks a server tool's `outputSchema`, the schema its results' `structuredContent` is checked against, by the
 * rules of {@link gateInputSchema} (a JSON object, a known dialect, the bounds after `$ref` expansion, local
 * refs only) with two more, since this client runs it: every `$ref` must be inlinable (a recursive, unresolved or
 * remote one drops the tool under every policy: such a schema cannot be checked within a bound), and every
 * pattern must run on the linear-time engine (a `pattern` that cannot is left out of the check, repaired under
 * `transform`; a `patternProperties` key that cannot drops the tool). It need not be an object schema (the
 * 2026-07-28 protocol allows any). `pass` registers the schema as sent and checks against its expanded form.
 */
export function gateOutputSchema(schema: unknown, policy: SchemaPolicy, bounds: SchemaBounds): OutputSchemaGateResult {
  const rejected = (findings: SchemaFinding[]): OutputSchemaGateResult => ({ schema: undefined, check: undefined, findings: withSource(findings, 'outputSchema'), transformed: false })
  if (!isObject(schema)) return rejected([{ code: 'not-object', path: '', message: 'The outputSchema is not a JSON object', repairable: false }])
  const inspection = inspect(schema, { bounds, build: true, check: true })
  if (inspection.bound !== undefined) return rejected([inspection.bound])
  const findings: SchemaFinding[] = []
  checkDialect(schema, findings)
  findings.push(...inspection.findings)
  if (inspection.hasRefs && !findings.some(isRefFinding)) {
    findings.push({ code: 'local-ref', path: '', message: 'The outputSchema uses local $ref, which is inlined for the check', repairable: true })
  }
  const check = isObject(inspection.copy) ? inspection.copy : undefined
  const blocking = findings.some((finding) => !finding.repairable)
  if (blocking || check === undefined || (policy === 'reject' && findings.length > 0)) return rejected(findings)
  const sourced = withSource(findings, 'outputSchema')
  if (policy === 'pass' || findings.length === 0) return { schema, check, findings: sourced, transformed: false }
  // Registered as checked: what a registry serving the tool again lists is what its results were held to.
  const registered: JsonObject = {}
  for (const key of Object.keys(check)) setOwn(registered, key, check[key])
  return { schema: registered, check, findings: sourced, transformed: true }
}

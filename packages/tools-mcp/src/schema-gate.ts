import type { JsonObject, JsonValue } from '@dsh/tools-core'

/** What the gate does with a tool whose `inputSchema` has findings: drop it, repair what it can, or let it through. */
export type SchemaPolicy = 'reject' | 'transform' | 'pass'

/** One problem the gate found in a tool's schema. */
export interface SchemaFinding {
  /** Machine-readable kind. */
  readonly code: 'not-object' | 'dialect' | 'too-deep' | 'too-many-nodes' | 'remote-ref' | 'unresolved-ref' | 'recursive-ref' | 'local-ref' | 'check'
  /** Where, as a JSON pointer into the schema (`''` for the root). */
  readonly path: string
  /** What is wrong, for a person. */
  readonly message: string
  /** True when `transform` repairs it. */
  readonly repairable: boolean
}

/** Resource bounds of a schema. */
export interface SchemaBounds {
  /** Deepest nesting of objects and arrays. Default 64. */
  readonly maxDepth: number
  /** Total number of JSON values in the schema. Default 10,000. */
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

const dialects = new Set([
  'https://json-schema.org/draft/2020-12/schema',
  'https://json-schema.org/draft/2019-09/schema',
  'http://json-schema.org/draft-07/schema',
])

function normalizeDialect(uri: string): string {
  return uri.replace(/#$/, '')
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function pointer(segments: readonly (string | number)[]): string {
  return segments.map((segment) => `/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('')
}

/** Resolves a local `#/…` pointer inside `root`; `undefined` when it does not resolve. */
function resolveLocal(root: JsonObject, ref: string): JsonValue | undefined {
  if (ref === '#') return root
  if (!ref.startsWith('#/')) return undefined
  let node: JsonValue | undefined = root
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~')
    if (Array.isArray(node)) node = node[Number(key)]
    else if (isObject(node)) node = Object.hasOwn(node, key) ? node[key] : undefined
    else return undefined
  }
  return node
}

function measure(root: JsonValue, bounds: SchemaBounds, findings: SchemaFinding[]): void {
  let nodes = 0
  const stack: { value: JsonValue; depth: number; path: (string | number)[] }[] = [{ value: root, depth: 0, path: [] }]
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop() as (typeof stack)[number]
    nodes += 1
    if (nodes > bounds.maxNodes) {
      findings.push({ code: 'too-many-nodes', path: '', message: `The schema has more than ${bounds.maxNodes} nodes`, repairable: false })
      return
    }
    if (depth > bounds.maxDepth) {
      findings.push({ code: 'too-deep', path: pointer(path), message: `The schema nests deeper than ${bounds.maxDepth} levels`, repairable: false })
      return
    }
    if (Array.isArray(value)) value.forEach((item, index) => stack.push({ value: item, depth: depth + 1, path: [...path, index] }))
    else if (isObject(value)) for (const [key, item] of Object.entries(value)) stack.push({ value: item, depth: depth + 1, path: [...path, key] })
  }
}

function collectRefs(root: JsonObject, findings: SchemaFinding[]): boolean {
  let hasRefs = false
  const visit = (value: JsonValue, path: (string | number)[], seen: readonly string[]): void => {
    if (Array.isArray(value)) return value.forEach((item, index) => visit(item, [...path, index], seen))
    if (!isObject(value)) return
    for (const [key, item] of Object.entries(value)) {
      if ((key === '$ref' || key === '$dynamicRef') && typeof item === 'string') {
        hasRefs = true
        if (!item.startsWith('#')) {
          findings.push({ code: 'remote-ref', path: pointer([...path, key]), message: `${key} ${JSON.stringify(item)} is not local (only "#…" refs are allowed; nothing is ever fetched)`, repairable: false })
        } else if (seen.includes(item)) {
          findings.push({ code: 'recursive-ref', path: pointer([...path, key]), message: `${key} ${JSON.stringify(item)} is recursive and cannot be inlined`, repairable: false })
        } else {
          const target = resolveLocal(root, item)
          if (target === undefined) {
            findings.push({ code: 'unresolved-ref', path: pointer([...path, key]), message: `${key} ${JSON.stringify(item)} does not resolve inside the schema`, repairable: false })
          } else if (findings.length < 50) {
            visit(target, [...path, key], [...seen, item])
          }
        }
      } else {
        visit(item, [...path, key], seen)
      }
    }
  }
  visit(root, [], [])
  return hasRefs
}

function inline(root: JsonObject, value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map((item) => inline(root, item))
  if (!isObject(value)) return value
  const ref = value.$ref
  if (typeof ref === 'string') {
    const { $ref: _ref, ...siblings } = value
    const target = inline(root, resolveLocal(root, ref) as JsonValue)
    // 2020-12 lets $ref sit beside other keywords: keep both by intersecting them.
    return Object.keys(siblings).length === 0 ? target : { allOf: [target, inline(root, siblings)] }
  }
  const out: JsonObject = {}
  for (const [key, item] of Object.entries(value)) out[key] = inline(root, item)
  return out
}

/**
 * Checks a server tool's `inputSchema` before it is registered: an object schema (`type: 'object'`, as the
 * registry and every provider require), a known dialect (2020-12, 2019-09 or draft-07), within `bounds`, and only
 * local `$ref`s that resolve (a remote one is never fetched). `transform` repairs what it can: a missing
 * `type: 'object'` on a schema with `properties` is added, and local `$ref`s are inlined (and `$defs` /
 * `definitions` dropped), which providers without `$ref` support need; recursive refs cannot be inlined.
 */
export function gateInputSchema(schema: unknown, policy: SchemaPolicy, bounds: SchemaBounds): SchemaGateResult {
  const findings: SchemaFinding[] = []
  if (!isObject(schema)) {
    findings.push({ code: 'not-object', path: '', message: 'The inputSchema is not a JSON object', repairable: false })
    return { schema: undefined, findings, transformed: false }
  }
  measure(schema, bounds, findings)
  if (findings.length > 0) return { schema: undefined, findings, transformed: false } // bounds hold under every policy
  const dialect = schema.$schema
  if (dialect !== undefined && (typeof dialect !== 'string' || !dialects.has(normalizeDialect(dialect)))) {
    findings.push({ code: 'dialect', path: '/$schema', message: `Unsupported JSON Schema dialect ${JSON.stringify(dialect)} (2020-12, 2019-09 and draft-07 are accepted)`, repairable: false })
  }
  if (schema.type !== 'object') {
    const repairable = schema.type === undefined && (isObject(schema.properties) || Object.keys(schema).every((key) => key.startsWith('$')))
    findings.push({ code: 'not-object', path: '/type', message: `The inputSchema must have type "object", got ${JSON.stringify(schema.type ?? null)}`, repairable })
  }
  const hasRefs = collectRefs(schema, findings)
  if (hasRefs && !findings.some((finding) => finding.code.endsWith('ref'))) {
    findings.push({ code: 'local-ref', path: '', message: 'The schema uses local $ref, which some providers do not support', repairable: true })
  }
  const blocking = findings.filter((finding) => !finding.repairable)
  if (policy === 'pass') {
    // Only what the registry itself would refuse (a non-object schema) still drops the tool.
    return { schema: schema.type === 'object' ? schema : undefined, findings, transformed: false }
  }
  if (blocking.length > 0 || (policy === 'reject' && findings.length > 0)) return { schema: undefined, findings, transformed: false }
  if (findings.length === 0) return { schema, findings, transformed: false }
  let repaired = hasRefs ? (inline(schema, schema) as JsonObject) : { ...schema }
  if (hasRefs) {
    const { $defs: _defs, definitions: _definitions, ...rest } = repaired
    repaired = rest
  }
  if (repaired.type === undefined) repaired = { type: 'object', ...repaired }
  return { schema: repaired, findings, transformed: true }
}

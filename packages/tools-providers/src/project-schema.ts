import { describeJsonPath } from '@dsh/tools-core'
import { branchesAreDisjoint } from './branch-match.js'
import { copyJson, isRecord, setOwn } from './json-equal.js'
import { openaiStrictLimitProblems } from './openai-strict-limits.js'
import { PROFILE_RULES, type ProfileRules } from './profile-rules.js'
import type { SchemaIssue, SchemaIssueKind, SchemaProfile } from './schema-issue.js'

/** The outcome of {@link projectSchema}: the schema to send, and every construct it could not send as it is. */
export interface SchemaProjection {
  /** The projected schema (a fresh object). For `gemini-legacy`: lowercase types and `nullable`, before the SDK's enum is applied. */
  readonly schema: Record<string, unknown>
  /** The lint: what was lost, widened, narrowed or moved, in schema order. Empty when the projection is faithful. */
  readonly issues: readonly SchemaIssue[]
}

/** How deeply a schema may nest before a profile gives up on it (a cycle or a hostile schema). */
export const MAX_PROJECTION_DEPTH = 64

const jsonTypes: ReadonlySet<string> = new Set(['string', 'number', 'integer', 'boolean', 'null', 'object', 'array'])
const structural: ReadonlySet<string> = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', 'oneOf', 'anyOf'])

/**
 * Who still holds the model to a constraint the provider is no longer told about. The projection sees only the
 * schema, not whether the tool validates its arguments (`defineTool` and Standard Schema tools check every keyword;
 * an MCP tool's check may skip some, a raw JSON-Schema tool without `validateArguments` checks none), so the lint
 * says what is true in every case.
 */
const onlyTheTool = "the provider does not enforce it; only the tool's own argument validation, if it checks it, rejects a value that breaks it"

/**
 * Projects a tool's parameter schema (JSON Schema) for one profile and lints it at the same time.
 *
 * The non-strict profiles (`openai`, `anthropic`, `gemini`) send the schema as it is (`gemini` without a root
 * `$schema`) and report nothing: the provider does not enforce it; the tool's own argument validation, if any, does.
 * `openai-strict` closes every object, makes every property required and optional ones nullable (`anyOf` with
 * `null`; {@link removeOmittedNulls} undoes it), and sends a `oneOf` as `anyOf` only when its branches are provably
 * disjoint. `anthropic-strict` closes every object and moves numeric, length and array bounds into the
 * description. `gemini-legacy` keeps the OpenAPI subset: no unions except `[X, null]` (as `nullable`), no
 * `additionalProperties`, string-only enums. Anything a profile does not know is `unsupported`, never dropped.
 *
 * @param schema - the tool's `parameters`
 * @param profile - the profile to apply
 * @param tool - the tool's name, for the lint messages
 */
export function projectSchema(schema: unknown, profile: SchemaProfile, tool: string): SchemaProjection {
  const rules = PROFILE_RULES[profile]
  if (rules === undefined) {
    const copy = (isRecord(schema) ? copyJson(schema) : {}) as Record<string, unknown>
    if (profile === 'gemini') delete copy['$schema']
    return { schema: copy, issues: [] }
  }
  const issues: SchemaIssue[] = []
  const walker = new Walker(rules, tool, issues)
  const projected = walker.root(schema)
  // The size limits apply to what is sent, so they are measured on the projection (nullable wrappers included).
  if (profile === 'openai-strict') for (const problem of openaiStrictLimitProblems(projected)) walker.report('unsupported', problem.path, problem.keyword, problem.detail)
  return { schema: projected, issues }
}

class Walker {
  constructor(
    private readonly rules: ProfileRules,
    private readonly tool: string,
    private readonly issues: SchemaIssue[],
  ) {}

  report(kind: SchemaIssueKind, path: string, keyword: string, detail: string): void {
    const { profile } = this.rules
    const message = `tool "${this.tool}" loses ${keyword} ${describeJsonPath(path)} on ${profile}: ${detail}`
    this.issues.push(Object.freeze({ tool: this.tool, profile, kind, path, keyword, message }))
  }

  root(schema: unknown): Record<string, unknown> {
    if (!isRecord(schema) || schema['type'] !== 'object') {
      this.report('unsupported', '', 'type', `the ${this.rules.provider} parameters must be an object schema`)
      return { type: 'object', properties: {}, ...(this.rules.closeObjects ? { additionalProperties: false } : {}) }
    }
    return this.node(schema, '', 0, true)
  }

  node(schema: unknown, path: string, depth: number, root = false): Record<string, unknown> {
    if (depth > MAX_PROJECTION_DEPTH) {
      this.report('unsupported', path, 'depth', `the schema nests deeper than ${MAX_PROJECTION_DEPTH} levels`)
      return {}
    }
    if (!isRecord(schema)) {
      this.report('unsupported', path, 'schema', `a boolean schema (${JSON.stringify(schema)}) cannot be sent`)
      return {}
    }
    const nullableType = asNullableType(schema)
    if (nullableType !== undefined) return this.node(nullableType, path, depth + 1, root)
    const out: Record<string, unknown> = {}
    const notes: string[] = []
    const union = this.union(schema, path, depth)
    if (union !== undefined) Object.assign(out, union)
    else this.typed(schema, out, path, depth, root)
    for (const key of Object.keys(schema)) {
      if (structural.has(key) || key === 'description' || (root && key === '$schema')) continue
      const value = schema[key]
      if (key === 'enum' || key === 'const') this.literal(schema, key, out, notes, path)
      else if (this.rules.keep.has(key)) setOwn(out, key, copyJson(value))
      else if (this.rules.describe.has(key)) {
        notes.push(`${key}: ${JSON.stringify(value)}`)
        this.report('widened', path, key, `moved into the description; ${onlyTheTool}`)
      } else if (this.rules.annotations.has(key)) {
        notes.push(`${key === 'examples' ? 'examples' : 'default'}: ${JSON.stringify(value)}`)
        this.report('moved', path, key, 'moved into the description (an annotation: validation is unchanged)')
      } else this.report('unsupported', path, key, `${this.rules.provider} does not accept "${key}"`)
    }
    const description = schema['description']
    if (description !== undefined && typeof description !== 'string') this.report('unsupported', path, 'description', 'a description must be a string')
    // A branch merged into this node (gemini-legacy's "X or null") may bring its own description: keep both.
    const texts = [description, out['description']].filter((text): text is string => typeof text === 'string' && text !== '')
    if (notes.length > 0) texts.push(`(${notes.join('; ')})`)
    if (texts.length > 0 || typeof description === 'string') out['description'] = texts.join(' ')
    return out
  }

  literal(schema: Record<string, unknown>, key: 'enum' | 'const', out: Record<string, unknown>, notes: string[], path: string): void {
    const value = schema[key]
    if (this.rules.literals === 'json-schema') {
      setOwn(out, key, copyJson(value))
      return
    }
    const values = key === 'const' ? [value] : value
    if (schema['type'] === 'string' && Array.isArray(values) && values.every((entry) => typeof entry === 'string')) {
      out['enum'] = [...values]
      return
    }
    notes.push(`${key === 'const' ? 'must be' : 'one of'}: ${JSON.stringify(value)}`)
    this.report('widened', path, key, `${this.rules.provider} only lists strings; moved into the description; ${onlyTheTool}`)
  }

  union(schema: Record<string, unknown>, path: string, depth: number): Record<string, unknown> | undefined {
    const keyword = Object.hasOwn(schema, 'oneOf') ? 'oneOf' : Object.hasOwn(schema, 'anyOf') ? 'anyOf' : undefined
    if (keyword === undefined) return undefined
    const branches = schema[keyword]
    if (!Array.isArray(branches) || branches.length === 0 || Object.hasOwn(schema, 'type') || (keyword === 'oneOf' && Object.hasOwn(schema, 'anyOf'))) {
      this.report('unsupported', path, keyword, `only a plain ${keyword} with a list of branches (and no "type" beside it) can be sent`)
      return {}
    }
    if (this.rules.unions === 'nullable') {
      const nullIndex = branches.findIndex(isNullOnly)
      const other = branches[nullIndex === 0 ? 1 : 0]
      if (branches.length !== 2 || nullIndex === -1 || !isRecord(other) || Object.hasOwn(other, 'oneOf') || Object.hasOwn(other, 'anyOf') || acceptsNull(other)) {
        // A branch that accepts null itself would make null match both: the oneOf rejects it, nullable would not.
        this.report('unsupported', path, keyword, `${this.rules.provider} has no unions; only "one of X or null" can be sent (as nullable)`)
        return {}
      }
      return { ...this.node(other, path, depth + 1), nullable: true }
    }
    if (keyword === 'oneOf' && !branchesAreDisjoint(branches)) {
      this.report('unsupported', path, 'oneOf', 'its branches may overlap, and anyOf (all the provider accepts) would let a value match several; tell them apart by type or by a required const property')
      return {}
    }
    return { anyOf: branches.map((branch) => this.node(branch, path, depth + 1)) }
  }

  typed(schema: Record<string, unknown>, out: Record<string, unknown>, path: string, depth: number, root: boolean): void {
    const type = schema['type']
    if (typeof type !== 'string' || !jsonTypes.has(type)) {
      const what = type === undefined ? 'a schema without a type (any JSON value)' : `the type ${JSON.stringify(type)}`
      this.report('unsupported', path, 'type', `${what} cannot be sent; ${this.rules.provider} needs one JSON type per schema`)
      return
    }
    if (type === 'null' && this.rules.unions === 'nullable') {
      this.report('unsupported', path, 'type', `${this.rules.provider} has no null type; only "one of X or null" can be sent (as nullable)`)
      return
    }
    out['type'] = type
    for (const key of ['properties', 'required', 'additionalProperties'] as const) {
      if (type !== 'object' && Object.hasOwn(schema, key)) this.report('unsupported', path, key, `"${key}" on a schema of type ${type}`)
    }
    if (type !== 'array' && Object.hasOwn(schema, 'items')) this.report('unsupported', path, 'items', `"items" on a schema of type ${type}`)
    if (type === 'object') this.object(schema, out, path, depth, root)
    if (type === 'array') {
      if (!isRecord(schema['items'])) this.report('unsupported', path, 'items', `an array without an items schema cannot be sent; ${this.rules.provider} needs one`)
      else out['items'] = this.node(schema['items'], `${path}[]`, depth + 1)
    }
  }

  object(schema: Record<string, unknown>, out: Record<string, unknown>, path: string, depth: number, root: boolean): void {
    const properties = schema['properties'] ?? {}
    const required = schema['required'] ?? []
    if (!isRecord(properties) || !Array.isArray(required) || !required.every((name) => typeof name === 'string')) {
      this.report('unsupported', path, 'properties', '"properties" must be an object and "required" a list of names')
      return
    }
    const requiredSet = new Set(required as string[])
    const projected: Record<string, unknown> = {}
    for (const name of Object.keys(properties)) {
      const at = path === '' ? name : `${path}.${name}`
      const property = this.node(properties[name], at, depth + 1)
      if (this.rules.requireAll && !requiredSet.has(name)) {
        if (acceptsNull(properties[name])) {
          this.report('narrowed', at, 'null', 'an optional property that accepts null: an explicit null reaches the tool as "omitted"')
        }
        setOwn(projected, name, { anyOf: [property, { type: 'null' }] })
      } else setOwn(projected, name, property)
    }
    out['properties'] = projected
    const missing = [...requiredSet].filter((name) => !Object.hasOwn(properties, name))
    if (missing.length > 0 && this.rules.closeObjects) {
      this.report('unsupported', path, 'required', `required ${missing.map((name) => `"${name}"`).join(', ')} without a schema in a closed object`)
    }
    const names = this.rules.requireAll ? Object.keys(properties) : [...requiredSet]
    // Strict mode wants `required` listed on every object, even when it is empty.
    if (names.length > 0 || this.rules.requireAll) out['required'] = names
    this.additional(schema['additionalProperties'], out, path, root)
  }

  additional(value: unknown, out: Record<string, unknown>, path: string, root: boolean): void {
    if (value !== undefined && typeof value !== 'boolean') {
      this.report('unsupported', path, 'additionalProperties', 'a schema for the other keys of an object cannot be sent')
    } else if (this.rules.closeObjects) {
      // The top level of a DSL schema is implicitly open; strict closes it (its undeclared keys were never described).
      if (value === true || (value === undefined && !root)) {
        this.report('unsupported', path, 'additionalProperties', `an open object (other keys allowed): ${this.rules.provider} closes every object`)
      }
      out['additionalProperties'] = false
    } else if (value === false) {
      this.report('widened', path, 'additionalProperties', `${this.rules.provider} is not told that other keys are rejected; only the tool's own argument validation, if it checks them, rejects them`)
    } else if (value === true) {
      this.report('narrowed', path, 'additionalProperties', `${this.rules.provider} is not told that other keys are allowed`)
    }
  }
}

/** `{ type: 'null' }` with nothing else but annotations. */
function isNullOnly(schema: unknown): boolean {
  return isRecord(schema) && schema['type'] === 'null' && Object.keys(schema).every((key) => ['type', 'title', 'description'].includes(key))
}

/** Whether the schema (of the original) can accept `null`. */
function acceptsNull(schema: unknown): boolean {
  if (!isRecord(schema)) return schema === true
  const branches = schema['oneOf'] ?? schema['anyOf']
  if (Array.isArray(branches)) return branches.some(acceptsNull)
  if (Object.hasOwn(schema, 'const')) return schema['const'] === null
  if (Array.isArray(schema['enum'])) return schema['enum'].includes(null)
  const type = schema['type']
  return type === undefined || type === 'null' || (Array.isArray(type) && type.includes('null'))
}

const annotationKeys: ReadonlySet<string> = new Set(['title', 'description', 'default', 'examples'])

/**
 * `{ type: [T, 'null'], …T's keywords }` (a type list raw JSON Schema uses for "T or null") rewritten as
 * `{ oneOf: [{ type: T, … }, { type: 'null' }] }` with the annotations outside, which every profile can send
 * (`anyOf`, or `nullable`); `type: [T]` as `type: T`. Other type lists, or one beside `enum`/`const`, stay as they
 * are (and are unsupported).
 */
function asNullableType(schema: Record<string, unknown>): Record<string, unknown> | undefined {
  const type = schema['type']
  if (!Array.isArray(type) || Object.hasOwn(schema, 'enum') || Object.hasOwn(schema, 'const')) return undefined
  if (type.length === 1 && typeof type[0] === 'string') return { ...schema, type: type[0] }
  const other = type.find((entry) => entry !== 'null')
  if (type.length !== 2 || !type.includes('null') || typeof other !== 'string' || other === 'null') return undefined
  const outer: Record<string, unknown> = {}
  const inner: Record<string, unknown> = { type: other }
  for (const key of Object.keys(schema)) {
    if (key === 'type') continue
    setOwn(annotationKeys.has(key) ? outer : inner, key, schema[key])
  }
  return { ...outer, oneOf: [inner, { type: 'null' }] }
}

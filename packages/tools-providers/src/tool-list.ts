import type { ToolSchema } from '@dsh/tools-core'
import { ProviderInputError, readingInput } from './input-error.js'
import { copyJson, isRecord } from './json-equal.js'
import { projectSchema } from './project-schema.js'
import { ProviderSchemaError } from './schema-error.js'
import type { SchemaIssue, SchemaProfile } from './schema-issue.js'
import { ProviderToolNameError } from './tool-name-error.js'
import type { ToolNameRule } from './tool-names.js'

/** What a strict (or legacy) profile does with a tool it cannot express. */
export type ProfileFallback = 'error' | 'non-strict'

/** One tool of a list as built: its schema for the provider, and how it was built. */
export interface BuiltTool {
  readonly name: string
  readonly description: string
  /** The tool's original parameter schema (for the inverse mapping). */
  readonly original: ToolSchema['parameters']
  /** The profile actually applied: the strict one, or the non-strict one it fell back to. */
  readonly profile: SchemaProfile
  /** The schema to send. */
  readonly parameters: Record<string, unknown>
}

/** The tools of a list, and the lint of the whole list. */
export interface BuiltToolList {
  readonly tools: readonly BuiltTool[]
  readonly issues: readonly SchemaIssue[]
}

/** Reads a list of tool schemas defensively (a caller's programming error is a typed error, never a crash). */
export function readToolSchemas(schemas: unknown, what: string): { name: string; description: string; parameters: ToolSchema['parameters'] }[] {
  if (!Array.isArray(schemas)) throw new ProviderInputError(`${what} expects an array of tool schemas ({ name, description, parameters }), got ${typeof schemas}`)
  return schemas.map((schema: unknown, index) => {
    if (!isRecord(schema)) throw new ProviderInputError(`${what}: tool ${index} is not an object`)
    const { name, description, parameters } = schema
    if (typeof name !== 'string') throw new ProviderInputError(`${what}: tool ${index} has no string name`)
    if (typeof description !== 'string') throw new ProviderInputError(`${what}: tool "${name}" has no string description`)
    if (!isRecord(parameters) || parameters['type'] !== 'object') {
      throw new ProviderInputError(`${what}: tool "${name}" has no object parameter schema ({ type: 'object', … })`)
    }
    // A detached copy: the inverse mapping must use the schema that was sent, whatever the caller does later.
    return { name, description, parameters: copyJson(parameters) as ToolSchema['parameters'] }
  })
}

/** Throws {@link ProviderToolNameError} listing every name the provider rejects and every repeated name. */
export function checkToolNames(names: readonly string[], rule: ToolNameRule): void {
  const problems: string[] = []
  const bad: string[] = []
  const seen = new Set<string>()
  for (const name of names) {
    if (!rule.pattern.test(name)) {
      problems.push(`- ${JSON.stringify(name)}: ${rule.provider} accepts ${rule.rule}`)
      bad.push(name)
    } else if (seen.has(name)) {
      problems.push(`- ${JSON.stringify(name)}: two tools of one list share the name`)
      bad.push(name)
    }
    seen.add(name)
  }
  if (problems.length > 0) {
    throw new ProviderToolNameError(`${rule.provider} would reject the tool list (${problems.length} ${problems.length === 1 ? 'name' : 'names'}):\n${problems.join('\n')}`, bad)
  }
}

/**
 * Builds the tools of one list with a profile: names checked by the provider's rule, each schema projected, and
 * every `unsupported` construct either an error ({@link ProviderSchemaError}, listing all of them) or, with
 * `fallback: 'non-strict'`, that tool sent with the non-strict profile (its issues stay in the lint).
 */
export function buildToolList(options: {
  readonly schemas: unknown
  readonly what: string
  readonly rule: ToolNameRule
  readonly profile: SchemaProfile
  readonly nonStrict: SchemaProfile
  readonly fallback: ProfileFallback | undefined
}): BuiltToolList {
  return readingInput(options.what, () => build(options))
}

function build(options: Parameters<typeof buildToolList>[0]): BuiltToolList {
  const { what, rule, profile, nonStrict } = options
  const fallback = options.fallback ?? 'error'
  if (fallback !== 'error' && fallback !== 'non-strict') throw new ProviderInputError(`${what}: fallback must be 'error' or 'non-strict', got ${JSON.stringify(fallback)}`)
  const schemas = readToolSchemas(options.schemas, what)
  checkToolNames(schemas.map((schema) => schema.name), rule)
  const issues: SchemaIssue[] = []
  const unsupported: SchemaIssue[] = []
  const tools = schemas.map((schema): BuiltTool => {
    const projection = projectSchema(schema.parameters, profile, schema.name)
    issues.push(...projection.issues)
    const failed = projection.issues.filter((issue) => issue.kind === 'unsupported')
    if (failed.length > 0 && fallback === 'error') unsupported.push(...failed)
    const used = failed.length > 0 ? projectSchema(schema.parameters, nonStrict, schema.name) : projection
    return Object.freeze({
      name: schema.name,
      description: schema.description,
      original: schema.parameters,
      profile: failed.length > 0 ? nonStrict : profile,
      parameters: used.schema,
    })
  })
  if (unsupported.length > 0) throw new ProviderSchemaError(unsupported)
  return { tools: Object.freeze(tools), issues: Object.freeze(issues) }
}

/**
 * The definition-time lint of a list for one profile, without building it: every construct the profile cannot
 * send as it is ("loses X on provider Y"). Names are not checked here; building the list checks them.
 *
 * @param schemas - the tools, as `ctx.tools.schemas(agent)` returns them
 * @param profile - the profile to lint against
 */
export function lintToolSchemas(schemas: readonly ToolSchema[], profile: SchemaProfile): readonly SchemaIssue[] {
  return readingInput('lintToolSchemas', () =>
    Object.freeze(readToolSchemas(schemas, 'lintToolSchemas').flatMap((schema) => projectSchema(schema.parameters, profile, schema.name).issues)),
  )
}

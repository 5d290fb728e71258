import { isRecord } from './json-equal.js'

/**
 * The size limits OpenAI documents for a strict (Structured Outputs) schema, as of late 2026: at most 5,000
 * object properties in all, at most 10 levels of object nesting, at most 120,000 characters of property names,
 * enum values and const values together, at most 1,000 enum values in all, and, for one string enum with more than
 * 250 values, at most 15,000 characters of values. Older model snapshots enforced smaller limits (100 properties,
 * 5 levels); the figures are not published per model, so a list that must work with those snapshots should stay
 * within the old figures.
 */
export const OPENAI_STRICT_LIMITS = Object.freeze({
  properties: 5000,
  nesting: 10,
  characters: 120_000,
  enumValues: 1000,
  largeEnumValues: 250,
  largeEnumCharacters: 15_000,
})

/** One exceeded limit: where (the first place it was exceeded), which keyword, and the sentence for the lint. */
export interface LimitProblem {
  readonly path: string
  readonly keyword: 'properties' | 'nesting' | 'enum' | 'characters'
  readonly detail: string
}

const valueLength = (value: unknown): number => (typeof value === 'string' ? value.length : JSON.stringify(value)?.length ?? 0)

/**
 * Measures a projected `openai-strict` schema against {@link OPENAI_STRICT_LIMITS}. Nesting counts object schemas
 * on a path, the top level being the first: a property's object inside the parameters is level 2, whether it is
 * reached directly, through `items` or through an `anyOf` branch (the nullable wrapper of an optional property
 * adds no level). OpenAI does not publish how it counts; this reading counts every object a value can nest.
 */
export function openaiStrictLimitProblems(schema: Record<string, unknown>): LimitProblem[] {
  const limits = OPENAI_STRICT_LIMITS
  const problems: LimitProblem[] = []
  let properties = 0
  let characters = 0
  let enumValues = 0
  let deepest: { path: string; level: number } | undefined
  let tooMany: string | undefined
  const walk = (node: unknown, path: string, level: number): void => {
    if (!isRecord(node)) return
    const isObject = node['type'] === 'object' || isRecord(node['properties'])
    const here = isObject ? level + 1 : level
    if (isObject && here > limits.nesting && deepest === undefined) deepest = { path, level: here }
    if (Array.isArray(node['enum'])) {
      const values: unknown[] = node['enum']
      enumValues += values.length
      const length = values.reduce<number>((sum, value) => sum + valueLength(value), 0)
      characters += length
      if (values.length > limits.largeEnumValues && values.every((value) => typeof value === 'string') && length > limits.largeEnumCharacters) {
        problems.push({ path, keyword: 'enum', detail: `an enum of ${values.length} strings totals ${length} characters; OpenAI allows at most ${limits.largeEnumCharacters} for an enum of more than ${limits.largeEnumValues} values` })
      }
    }
    if (Object.hasOwn(node, 'const')) characters += valueLength(node['const'])
    if (isRecord(node['properties'])) {
      for (const name of Object.keys(node['properties'])) {
        properties += 1
        characters += name.length
        if (properties > limits.properties && tooMany === undefined) tooMany = path === '' ? name : `${path}.${name}`
        walk(node['properties'][name], path === '' ? name : `${path}.${name}`, here)
      }
    }
    if (isRecord(node['items'])) walk(node['items'], `${path}[]`, here)
    if (Array.isArray(node['anyOf'])) for (const branch of node['anyOf']) walk(branch, path, here)
  }
  walk(schema, '', 0)
  if (tooMany !== undefined) problems.push({ path: tooMany, keyword: 'properties', detail: `the schema has ${properties} object properties; OpenAI allows at most ${limits.properties} in one strict schema` })
  if (deepest !== undefined) problems.push({ path: deepest.path, keyword: 'nesting', detail: `objects nest ${deepest.level} levels deep here; OpenAI allows at most ${limits.nesting} in a strict schema` })
  if (enumValues > limits.enumValues) problems.push({ path: '', keyword: 'enum', detail: `the schema has ${enumValues} enum values; OpenAI allows at most ${limits.enumValues} in one strict schema` })
  if (characters > limits.characters) {
    problems.push({ path: '', keyword: 'characters', detail: `its property names, enum values and const values total ${characters} characters; OpenAI allows at most ${limits.characters} in one strict schema` })
  }
  return problems
}

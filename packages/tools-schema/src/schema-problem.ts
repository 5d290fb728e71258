import { formatJsonPath, type JsonPathSegment } from '@dsh/tools-core'

/** One reason a schema was rejected at definition time, with where it is inside the schema. */
export interface SchemaProblem {
  /** Where inside the schema, formatted like `servers.items.properties.host.pattern`; `''` is the schema itself. */
  readonly path: string
  /** The same place as segments. */
  readonly segments: readonly JsonPathSegment[]
  /** What is wrong and what to do instead. */
  readonly message: string
}

/** Builds a {@link SchemaProblem}. */
export function schemaProblem(segments: readonly JsonPathSegment[], message: string): SchemaProblem {
  return { path: formatJsonPath(segments), segments: [...segments], message }
}

/** `- path: message` lines, one per item (`root` names the empty path), plus `- … and N more` for `omitted`. */
export function formatLines(items: readonly { readonly path: string; readonly message: string }[], root: string, omitted = 0): string {
  const lines = items.map((item) => `- ${item.path === '' ? root : item.path}: ${item.message}`)
  if (omitted > 0) lines.push(`- … and ${omitted} more`)
  return lines.join('\n')
}

/** `- path: message` lines, one per problem (`(schema)` for the root). */
export function formatSchemaProblems(problems: readonly SchemaProblem[]): string {
  return formatLines(problems, '(schema)')
}

/** `1 problem`, `3 problems`. */
export function countNoun(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}

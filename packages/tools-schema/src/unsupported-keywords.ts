// Keywords → the hint shown when a schema uses one. Kept as one compact table: it is data, and it ships to every
// consumer of the bundle.
const table = [
  'format:formats are not checked; use pattern, or check the value in code after validation',
  'contains prefixItems:use items (one schema for every element), with minItems, maxItems or uniqueItems',
  'minProperties maxProperties patternProperties propertyNames:object constraints are not supported; check them in code after validation',
  '$ref $defs definitions $dynamicRef $anchor:references are not supported; write the schema inline',
  '$schema $id $comment:schema metadata is not supported; the emitted schema carries none',
  'not if then else:conditional schemas are not supported; use oneOf',
  'anyOf:use oneOf with branches that cannot overlap',
  'allOf:merge the parts into one schema',
  "nullable:use oneOf with a { type: 'null' } branch",
]

const hints: ReadonlyMap<string, string> = new Map(
  table.flatMap((row) => {
    const split = row.indexOf(':')
    const hint = row.slice(split + 1)
    return row
      .slice(0, split)
      .split(' ')
      .map((keyword) => [keyword, hint] as const)
  }),
)

/** `"pattern" is not supported: string constraints are …`, or a plain message for an unknown key. */
export function unsupportedKeyword(keyword: string): string {
  const hint = hints.get(keyword)
  return hint === undefined ? `unknown keyword ${JSON.stringify(keyword)}` : `${JSON.stringify(keyword)} is not supported: ${hint}`
}

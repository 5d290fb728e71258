import type { JsonObject, ToolOutputSchema, ToolSchema } from '@dsh/tools-core'

/** One tool of the SDK: the identifier the program calls (`tools.<identifier>`) and the registry name behind it. */
export interface SdkTool {
  readonly identifier: string
  readonly tool: string
}

/** A tool left out of the SDK, and why (two names that map to one identifier, a name that cannot be one). */
export interface SdkOmission {
  readonly tool: string
  readonly why: string
}

/** The SDK a program is written against: the text the model reads, and the tools it maps. */
export interface CodeSdk {
  /** TypeScript declarations (`declare const tools: { … }`), deterministic for the same tools. */
  readonly text: string
  /** Every callable tool, in the SDK's order (by registry name). */
  readonly tools: readonly SdkTool[]
  /** Tools left out, with why. */
  readonly omitted: readonly SdkOmission[]
  /** True when the SDK lists names only and the program discovers the rest with `tools.$search` / `tools.$describe`. */
  readonly compact: boolean
}

/** What the SDK is built from, for each tool a program may call. */
export interface SdkSource {
  readonly schema: ToolSchema
  readonly outputSchema?: ToolOutputSchema | undefined
}

/** Options of {@link renderSdk}. */
export interface RenderSdkOptions {
  /** Past this many tools, the SDK lists names only (with one-line descriptions) and offers `$search` / `$describe`. */
  readonly compactAfter: number
}

const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in ' +
    'instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package ' +
    'private protected public await arguments eval undefined NaN Infinity constructor prototype __proto__ then toString valueOf hasOwnProperty'
  ).split(' '),
)

/**
 * The identifier a registry name is called by: every character that cannot be in a JavaScript identifier becomes
 * `_`, a leading digit gets a `_` before it, and a reserved or dangerous name (`then`, `constructor`, `__proto__`,
 * keywords) gets a trailing `_`. Names starting with `$` are the SDK's own (`$search`, `$describe`): they get a `_`.
 */
export function toolIdentifier(name: string): string {
  let identifier = name.replace(/[^A-Za-z0-9_$]/g, '_')
  if (identifier === '' || /^[0-9]/.test(identifier)) identifier = `_${identifier}`
  if (identifier.startsWith('$')) identifier = `_${identifier}`
  if (RESERVED.has(identifier)) identifier = `${identifier}_`
  return identifier
}

/** A description as a JSDoc comment body: `*\/` cannot end the comment early, and each line gets its ` * `. */
function jsdoc(text: string, indent: string): string {
  const safe = text.replace(/\*\//g, '*\\/').replace(/\r\n?/g, '\n').trim()
  if (safe === '') return ''
  const lines = safe.split('\n')
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`
  return `${indent}/**\n${lines.map((line) => `${indent} * ${line}`.trimEnd()).join('\n')}\n${indent} */\n`
}

const MAX_TYPE_DEPTH = 8

/** A property key as TypeScript writes it: bare when it is an identifier, quoted otherwise. */
function propertyKey(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : JSON.stringify(key)
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function literal(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value === null ? JSON.stringify(value) : 'unknown'
}

/**
 * A JSON Schema as a TypeScript type, for the subset tools use (objects, arrays, scalars, `enum`, `const`, `oneOf`,
 * `anyOf`, type arrays, `additionalProperties`); anything else is `unknown` (total: never throws).
 */
export function schemaType(schema: unknown, indent = '', depth = 0): string {
  if (!isObject(schema) || depth > MAX_TYPE_DEPTH) return 'unknown'
  if (Object.hasOwn(schema, 'const')) return literal(schema['const'])
  const enumValues = schema['enum']
  if (Array.isArray(enumValues) && enumValues.length > 0) return enumValues.map(literal).join(' | ')
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = schema[key]
    if (Array.isArray(branches) && branches.length > 0) return branches.map((branch) => schemaType(branch, indent, depth + 1)).join(' | ')
  }
  const type = schema['type']
  if (Array.isArray(type)) return type.map((one) => schemaType({ ...schema, type: one }, indent, depth + 1)).join(' | ')
  switch (type) {
    case 'string':
      return 'string'
    case 'number':
    case 'integer':
      return 'number'
    case 'boolean':
      return 'boolean'
    case 'null':
      return 'null'
    case 'array': {
      const items = schemaType(schema['items'], indent, depth + 1)
      return items.includes(' ') ? `Array<${items}>` : `${items}[]`
    }
    case 'object':
    case undefined:
      return objectType(schema, indent, depth)
    default:
      return 'unknown'
  }
}

function objectType(schema: JsonObject, indent: string, depth: number): string {
  const properties = isObject(schema['properties']) ? schema['properties'] : undefined
  if (properties === undefined && schema['type'] !== 'object') return 'unknown'
  const required = new Set(Array.isArray(schema['required']) ? schema['required'].filter((name): name is string => typeof name === 'string') : [])
  const inner = `${indent}  `
  const lines: string[] = []
  for (const [key, property] of Object.entries(properties ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const description = isObject(property) && typeof property['description'] === 'string' ? property['description'] : ''
    lines.push(`${jsdoc(description, inner)}${inner}${propertyKey(key)}${required.has(key) ? '' : '?'}: ${schemaType(property, inner, depth + 1)}`)
  }
  const extra = schema['additionalProperties']
  if (extra !== false && (isObject(extra) || properties === undefined)) lines.push(`${inner}[key: string]: ${isObject(extra) ? schemaType(extra, inner, depth + 1) : 'unknown'}`)
  if (lines.length === 0) return '{}'
  return `{\n${lines.join('\n')}\n${indent}}`
}

const PREAMBLE = `/** What a tool without an output schema returns: its content blocks (and its structured value, if it gave one). */
type ToolResult = { content: Array<{ type: 'text'; text: string } | { type: string; [key: string]: unknown }>; structuredContent?: unknown }
/** A sub-call that failed rejects with this: catch it to go on (\`err.code\`: DENIED, INVALID_ARGS, UNKNOWN_TOOL, …). */
interface ToolCallError extends Error { name: string; code: string; message: string }
`

const DISCOVERY = `  /** Finds tools whose name or description contains every word of \`query\`: their names and first description lines. */
  $search(query: string): Promise<Array<{ name: string; description: string }>>
  /** The full declaration of one tool (as in this SDK), or null for a name that is not here. */
  $describe(name: string): Promise<string | null>
`

/**
 * Renders the SDK a program is written against from the tools it may call (`ctx.tools.schemas(agent, { nested: true })`
 * and their output schemas), sorted by registry name so the same tools always give the same text. Each tool is one
 * async function of `tools`: its description as JSDoc, its parameters and output as TypeScript types. Two names that
 * map to one identifier are both left out (and named in `omitted`), never one silently shadowing the other. Past
 * `compactAfter` tools, it lists names with the first line of their descriptions, and `$search` / `$describe` give the rest.
 */
export function renderSdk(sources: readonly SdkSource[], options: RenderSdkOptions): CodeSdk {
  const sorted = [...sources].sort((a, b) => (a.schema.name < b.schema.name ? -1 : a.schema.name > b.schema.name ? 1 : 0))
  const byIdentifier = new Map<string, SdkSource[]>()
  for (const source of sorted) {
    const identifier = toolIdentifier(source.schema.name)
    const group = byIdentifier.get(identifier)
    if (group === undefined) byIdentifier.set(identifier, [source])
    else group.push(source)
  }
  const tools: SdkTool[] = []
  const omitted: SdkOmission[] = []
  const kept: Array<{ identifier: string; source: SdkSource }> = []
  for (const source of sorted) {
    const identifier = toolIdentifier(source.schema.name)
    const group = byIdentifier.get(identifier) as SdkSource[]
    if (group.length > 1) {
      const others = group.filter((other) => other !== source).map((other) => JSON.stringify(other.schema.name))
      omitted.push({ tool: source.schema.name, why: `its name and ${others.join(', ')} both become the identifier ${identifier}` })
      continue
    }
    tools.push({ identifier, tool: source.schema.name })
    kept.push({ identifier, source })
  }
  const compact = kept.length > options.compactAfter
  let body = ''
  for (const { identifier, source } of kept) {
    body += compact ? compactEntry(identifier, source) : declaration(identifier, source, '  ')
  }
  if (compact) body += DISCOVERY
  const notes = omitted.map((omission) => `// Not callable from a program: ${omission.tool} (${omission.why}).\n`).join('')
  const text = `${PREAMBLE}${notes}declare const tools: {\n${body}}\n`
  return Object.freeze({ text, tools: Object.freeze(tools), omitted: Object.freeze(omitted), compact })
}

/** One tool's full declaration, as the SDK and `$describe` show it. */
export function declaration(identifier: string, source: SdkSource, indent: string): string {
  const { schema, outputSchema } = source
  const description = `${schema.description}${schema.name === identifier ? '' : `\n(tool: ${schema.name})`}`
  const args = schemaType(schema.parameters, indent)
  const output = outputSchema === undefined ? 'ToolResult' : schemaType(outputSchema, indent)
  return `${jsdoc(description, indent)}${indent}${identifier}(args: ${args}): Promise<${output}>\n`
}

function compactEntry(identifier: string, source: SdkSource): string {
  const first = source.schema.description.split('\n', 1)[0] ?? ''
  const line = first.length > 120 ? `${first.slice(0, 117)}...` : first
  return `${jsdoc(`${line} (see $describe(${JSON.stringify(source.schema.name)}))`, '  ')}  ${identifier}(args: object): Promise<unknown>\n`
}

import { isRecord } from '../json-equal.js'
import type { GeminiLegacySchema, GeminiTypeName, GeminiTypeNames } from './types.js'

const counts: ReadonlySet<string> = new Set(['minLength', 'maxLength', 'minItems', 'maxItems'])

/** The plain type names. */
export const GEMINI_TYPE_NAMES: GeminiTypeNames<GeminiTypeName> = Object.freeze({
  STRING: 'STRING',
  NUMBER: 'NUMBER',
  INTEGER: 'INTEGER',
  BOOLEAN: 'BOOLEAN',
  ARRAY: 'ARRAY',
  OBJECT: 'OBJECT',
})

/** The `gemini-legacy` projection (lowercase JSON types) in the API's form: type names, counts as strings. */
export function toLegacySchema<Name extends string>(schema: Record<string, unknown>, types: GeminiTypeNames<Name>): GeminiLegacySchema<Name> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' && typeof value === 'string') out['type'] = types[value.toUpperCase() as GeminiTypeName]
    else if (counts.has(key) && typeof value === 'number') out[key] = String(value)
    else if (key === 'items' && isRecord(value)) out['items'] = toLegacySchema(value, types)
    else if (key === 'properties' && isRecord(value)) {
      const properties: Record<string, unknown> = {}
      for (const name of Object.keys(value)) {
        const property = value[name]
        Object.defineProperty(properties, name, { value: isRecord(property) ? toLegacySchema(property, types) : property, enumerable: true, writable: true, configurable: true })
      }
      out['properties'] = properties
    } else out[key] = value
  }
  return out as GeminiLegacySchema<Name>
}

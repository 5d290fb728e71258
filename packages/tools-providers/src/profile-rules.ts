import type { SchemaProfile } from './schema-issue.js'

/** What one strict (or legacy) profile does with each construct. */
export interface ProfileRules {
  readonly profile: SchemaProfile
  /** The provider, as the lint names it. */
  readonly provider: string
  /** Keywords sent unchanged. */
  readonly keep: ReadonlySet<string>
  /** Value constraints moved into the description (`widened`). */
  readonly describe: ReadonlySet<string>
  /** Annotations moved into the description (`moved`). */
  readonly annotations: ReadonlySet<string>
  /** Every object closed (`additionalProperties: false`); an explicitly open one is unsupported. */
  readonly closeObjects: boolean
  /** Every property required; optional ones made nullable (`anyOf` with `null`). */
  readonly requireAll: boolean
  /** `oneOf` sent as `anyOf` when its branches are provably disjoint; otherwise only `[X, null]` as `nullable`. */
  readonly unions: 'anyOf' | 'nullable'
  /** `const` and non-string `enum`: kept, or (OpenAPI subset) `const` of a string as a one-value enum. */
  readonly literals: 'json-schema' | 'string-enum'
}

const annotations = new Set(['default', 'examples'])

/** The strict profiles' rules. The non-strict ones send the schema as it is and have none. */
export const PROFILE_RULES: Readonly<Partial<Record<SchemaProfile, ProfileRules>>> = {
  'openai-strict': {
    profile: 'openai-strict',
    provider: 'OpenAI (strict)',
    keep: new Set(['title', 'description', 'enum', 'const', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems']),
    describe: new Set(['minLength', 'maxLength', 'uniqueItems', 'format']),
    annotations,
    closeObjects: true,
    requireAll: true,
    unions: 'anyOf',
    literals: 'json-schema',
  },
  'anthropic-strict': {
    profile: 'anthropic-strict',
    provider: 'Anthropic (strict)',
    keep: new Set(['title', 'description', 'enum', 'const', 'pattern']),
    describe: new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'minItems', 'maxItems', 'uniqueItems', 'format']),
    annotations,
    closeObjects: true,
    requireAll: false,
    unions: 'anyOf',
    literals: 'json-schema',
  },
  'gemini-legacy': {
    profile: 'gemini-legacy',
    provider: 'Gemini (OpenAPI parameters)',
    keep: new Set(['title', 'description', 'pattern', 'minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems']),
    describe: new Set(['exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'uniqueItems', 'format']),
    annotations,
    closeObjects: false,
    requireAll: false,
    unions: 'nullable',
    literals: 'string-enum',
  },
}

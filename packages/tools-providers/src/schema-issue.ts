/** The schema profiles: how a tool's JSON Schema is projected for one provider. */
export type SchemaProfile =
  | 'openai'
  | 'openai-strict'
  | 'anthropic'
  | 'anthropic-strict'
  | 'gemini'
  | 'gemini-legacy'

/**
 * What a profile does to one construct of a schema that it cannot send as it is:
 * - `unsupported`: the profile cannot express it; building the list fails (`PROVIDER_UNSUPPORTED_SCHEMA`) unless
 *   a fallback was asked for;
 * - `widened`: the provider's schema accepts values the tool's schema rejects (a bound moved into the
 *   description); the provider no longer holds the model to it, so only the tool's own argument validation rejects
 *   such a value, if it checks that keyword (`defineTool` and Standard Schema tools check every keyword; a raw
 *   JSON-Schema tool without `validateArguments` checks none);
 * - `narrowed`: the provider's schema rejects values the tool would accept (an explicit `null` for an optional
 *   property that accepts `null`, an open object the provider is not told about);
 * - `moved`: an annotation (`default`, `examples`) moved into the description; validation is unchanged.
 */
export type SchemaIssueKind = 'unsupported' | 'widened' | 'narrowed' | 'moved'

/** One construct a profile could not send as it is: a line of the definition-time lint. */
export interface SchemaIssue {
  /** The tool whose schema it is. */
  readonly tool: string
  /** The profile that was applied. */
  readonly profile: SchemaProfile
  /** What happens to the construct. */
  readonly kind: SchemaIssueKind
  /** Where in the arguments the construct applies: `servers[].host`; `''` is the top level. */
  readonly path: string
  /** The keyword or construct concerned: `minimum`, `oneOf`, `additionalProperties`, … */
  readonly keyword: string
  /** One sentence: `tool "x" loses minimum at "a.b" on anthropic-strict: …`. */
  readonly message: string
}

import type { ToolSchema } from '@dsh/tools-core'
import { assertOptionsObject, ProviderInputError, readingInput } from '../input-error.js'
import { copyJson, isRecord } from '../json-equal.js'
import { acceptedCall, describeJsonType, malformedCall, nameProblem, repeatedIdCall, type ParseCallsOptions, type ParsedToolCall, type RawCall } from '../parsed-call.js'
import type { SchemaIssue } from '../schema-issue.js'
import { buildToolList, type BuiltToolList, type ProfileFallback } from '../tool-list.js'
import { GEMINI_TOOL_NAME } from '../tool-names.js'
import { GEMINI_TYPE_NAMES, toLegacySchema } from './legacy-schema.js'
import type { GeminiCallSource, GeminiFunctionDeclaration, GeminiTool, GeminiTypeName, GeminiTypeNames } from './types.js'

/** What the Gemini call parser takes besides the shared options. */
export interface GeminiParseCallsOptions extends ParseCallsOptions {
  /** The call id for a call Gemini sent without one (default: `gemini-` and a random UUID). */
  readonly makeCallId?: ((index: number) => string) | undefined
}

/** A tool list for Gemini, and the call parser that belongs to it. */
export interface GeminiTools<Name extends string = GeminiTypeName> {
  /** The entry for `config.tools`: `[{ functionDeclarations }]` (a fresh copy on each read). */
  readonly tools: GeminiTool<Name>[]
  /** The declarations alone (a fresh copy on each read). */
  readonly functionDeclarations: GeminiFunctionDeclaration<Name>[]
  /** The definition-time lint: what the profile could not send as it is. */
  readonly issues: readonly SchemaIssue[]
  /**
   * Converts function calls into execution inputs, in order: the `functionCall`s of a candidate's content `parts`
   * (other parts are skipped) or `response.functionCalls`. Gemini's `id` is the call id when it sent one (else one
   * is made; `providerCallId` stays `undefined`, and the response then carries no id); missing `args` are `{}`. A
   * call with no name or with `args` that are not an object is an error result instead; no policy ran.
   *
   * @throws {@link ProviderInputError} when `source` is not an array of objects.
   */
  parseCalls(source: GeminiCallSource, options?: GeminiParseCallsOptions): ParsedToolCall[]
}

/** Options of {@link geminiLegacyTools}. */
export interface GeminiLegacyToolsOptions<Name extends string> {
  /** The type names to write: the SDK's `Type` enum, so the result needs no cast (default: the plain strings). */
  readonly types?: GeminiTypeNames<Name> | undefined
  /** What a tool the OpenAPI subset cannot express does: `error` (default) or `non-strict` (sent as `parametersJsonSchema`). */
  readonly fallback?: ProfileFallback | undefined
}

/**
 * Builds a Gemini tool list with the `gemini` profile: each schema as `parametersJsonSchema` (full JSON Schema,
 * root `$schema` removed), each name checked against Gemini's rule.
 *
 * @param schemas - the tools, as `ctx.tools.schemas(agent)` returns them
 * @throws {@link ProviderToolNameError} or {@link ProviderInputError}.
 */
export function geminiTools(schemas: readonly ToolSchema[]): GeminiTools<never> {
  const built = buildToolList({ schemas, what: 'geminiTools', rule: GEMINI_TOOL_NAME, profile: 'gemini', nonStrict: 'gemini', fallback: undefined })
  // No declaration of this list has a legacy `parameters` schema, so no type name is ever written (`never`).
  return geminiList(built, GEMINI_TYPE_NAMES as unknown as GeminiTypeNames<never>)
}

/**
 * Builds a Gemini tool list with the `gemini-legacy` profile: each schema in the legacy `parameters` field (the
 * OpenAPI 3.0 subset: no unions but "X or null" as `nullable`, no `additionalProperties`, string enums only, counts
 * as strings).
 *
 * @param schemas - the tools, as `ctx.tools.schemas(agent)` returns them
 * @param options - the SDK's `Type` enum, and the fallback
 * @throws {@link ProviderToolNameError}, {@link ProviderSchemaError} or {@link ProviderInputError}.
 */
export function geminiLegacyTools<Name extends string = GeminiTypeName>(
  schemas: readonly ToolSchema[],
  options: GeminiLegacyToolsOptions<Name> = {},
): GeminiTools<Name> {
  assertOptionsObject(options, 'geminiLegacyTools')
  const types = options.types ?? (GEMINI_TYPE_NAMES as unknown as GeminiTypeNames<Name>)
  if (typeof types !== 'object' || types === null || !Object.keys(GEMINI_TYPE_NAMES).every((key) => typeof types[key as GeminiTypeName] === 'string')) {
    throw new ProviderInputError('geminiLegacyTools: types must map STRING, NUMBER, INTEGER, BOOLEAN, ARRAY and OBJECT to strings (pass the SDK\'s Type enum)')
  }
  const built = buildToolList({ schemas, what: 'geminiLegacyTools', rule: GEMINI_TOOL_NAME, profile: 'gemini-legacy', nonStrict: 'gemini', fallback: options.fallback })
  return geminiList(built, types)
}

function geminiList<Name extends string>(built: BuiltToolList, types: GeminiTypeNames<Name>): GeminiTools<Name> {
  const declarations = (): GeminiFunctionDeclaration<Name>[] =>
    built.tools.map((tool) =>
      tool.profile === 'gemini-legacy'
        ? { name: tool.name, description: tool.description, parameters: toLegacySchema(copyJson(tool.parameters) as Record<string, unknown>, types) }
        : { name: tool.name, description: tool.description, parametersJsonSchema: copyJson(tool.parameters) as Record<string, unknown> },
    )
  return Object.freeze({
    get tools(): GeminiTool<Name>[] {
      return [{ functionDeclarations: declarations() }]
    },
    get functionDeclarations(): GeminiFunctionDeclaration<Name>[] {
      return declarations()
    },
    issues: built.issues,
    parseCalls: (source: GeminiCallSource, options: GeminiParseCallsOptions = {}) => readingInput('parseCalls', () => parseFunctionCalls(source, options)),
  })
}

function parseFunctionCalls(source: unknown, options: unknown): ParsedToolCall[] {
  const what = 'parseCalls'
  if (!isRecord(options)) throw new ProviderInputError(`${what}: options must be an object`)
  // The global Web Crypto, not node:crypto: the subpath stays usable in browsers and edge runtimes.
  const { makeCallId = () => `gemini-${globalThis.crypto.randomUUID()}` } = options as GeminiParseCallsOptions
  if (typeof makeCallId !== 'function') throw new ProviderInputError(`${what}: makeCallId must be a function`)
  if (!Array.isArray(source)) throw new ProviderInputError(`${what} expects the content's parts or response.functionCalls`)
  const calls: ParsedToolCall[] = []
  const taken = new Set<string>()
  const providerIds = new Set<string>()
  // A generated id is made unique in the step (a suffix when makeCallId repeats itself or a provider id).
  const generatedId = (): string => {
    const base = makeCallId(calls.length)
    if (typeof base !== 'string' || base === '') throw new ProviderInputError(`${what}: makeCallId returned ${JSON.stringify(base)}, not a non-empty string`)
    let id = base
    for (let n = 2; taken.has(id); n++) id = `${base}-${n}`
    return id
  }
  source.forEach((entry: unknown, index) => {
    if (!isRecord(entry)) throw new ProviderInputError(`${what}: element ${index} is not an object`)
    const call = Object.hasOwn(entry, 'functionCall') ? entry['functionCall'] : Object.hasOwn(entry, 'name') ? entry : undefined
    if (call === undefined) return
    if (!isRecord(call)) throw new ProviderInputError(`${what}: the functionCall of part ${index} is not an object`)
    const providerCallId = typeof call['id'] === 'string' && call['id'] !== '' ? call['id'] : undefined
    // Gemini answers calls by position, so a repeated id needs no shared answer: the repeated call gets an id of
    // its own inside the step (its functionResponse still carries Gemini's id) and is refused.
    const repeated = providerCallId !== undefined && providerIds.has(providerCallId)
    const callId = providerCallId !== undefined && !taken.has(providerCallId) ? providerCallId : generatedId()
    if (providerCallId !== undefined) providerIds.add(providerCallId)
    taken.add(callId)
    const raw: RawCall = { callId, providerCallId, name: call['name'] }
    const badName = nameProblem(raw.name)
    const args = call['args'] ?? {}
    if (repeated && providerCallId !== undefined) calls.push(repeatedIdCall(raw, providerCallId))
    else if (badName !== undefined) calls.push(malformedCall(raw, badName))
    else if (!isRecord(args)) calls.push(malformedCall(raw, `its args are ${describeJsonType(args)}, not a JSON object`))
    else calls.push(acceptedCall(raw, raw.name as string, args, options as ParseCallsOptions))
  })
  return calls
}

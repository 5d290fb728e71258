/**
 * Structural types of the Gemini wire shapes this subpath reads and writes. They are our own (installing this
 * package never pulls `@google/genai`); type tests check them against the SDK's types.
 */

/** The OpenAPI type names of Gemini's legacy `parameters` schema. */
export type GeminiTypeName = 'STRING' | 'NUMBER' | 'INTEGER' | 'BOOLEAN' | 'ARRAY' | 'OBJECT'

/**
 * The values to write for each type name: pass the SDK's `Type` enum (`import { Type } from '@google/genai'`) so
 * the schemas are typed with it and go into the SDK call without a cast; omitted, the plain strings are used.
 */
export type GeminiTypeNames<Name extends string> = { readonly [Key in GeminiTypeName]: Name }

/** A schema of the legacy `parameters` field (the OpenAPI 3.0 subset), typed with the type names chosen. */
export interface GeminiLegacySchema<Name extends string = GeminiTypeName> {
  /** The type. */
  type?: Name
  /** A short name. */
  title?: string
  /** What the value means, with the constraints Gemini cannot carry. */
  description?: string
  /** True when `null` is allowed too. */
  nullable?: boolean
  /** The allowed strings. */
  enum?: string[]
  /** A regular expression strings must match. */
  pattern?: string
  /** The smallest number allowed. */
  minimum?: number
  /** The largest number allowed. */
  maximum?: number
  /** The shortest string allowed (int64 as a decimal string, as the API takes it). */
  minLength?: string
  /** The longest string allowed. */
  maxLength?: string
  /** The fewest items allowed. */
  minItems?: string
  /** The most items allowed. */
  maxItems?: string
  /** The properties of an object. */
  properties?: { [name: string]: GeminiLegacySchema<Name> }
  /** The required properties. */
  required?: string[]
  /** The schema of every item of an array. */
  items?: GeminiLegacySchema<Name>
}

/** A function declaration: JSON Schema in `parametersJsonSchema`, or the legacy OpenAPI `parameters`. */
export interface GeminiFunctionDeclaration<Name extends string = GeminiTypeName> {
  /** The tool's name. */
  name: string
  /** The tool's description. */
  description: string
  /** The full JSON Schema (the `gemini` profile, and the fallback of `gemini-legacy`). */
  parametersJsonSchema?: { [keyword: string]: unknown }
  /** The OpenAPI-subset schema (the `gemini-legacy` profile). */
  parameters?: GeminiLegacySchema<Name>
}

/** The tool entry for `config.tools`. */
export interface GeminiTool<Name extends string = GeminiTypeName> {
  /** The functions. */
  functionDeclarations: GeminiFunctionDeclaration<Name>[]
}

/** What the call parser accepts: the parts of a candidate's content, or `response.functionCalls`. */
export type GeminiCallSource = readonly GeminiPartLike[]

/** A part (only those with `functionCall` are read) or a function call itself. */
export interface GeminiPartLike {
  /** The function call of a part. */
  readonly functionCall?: GeminiFunctionCallLike | undefined
  /** The name, when the element is a function call itself. */
  readonly name?: string | undefined
  /** The arguments, when the element is a function call itself. */
  readonly args?: Record<string, unknown> | undefined
  /** The id, when the element is a function call itself. */
  readonly id?: string | undefined
}

/** A Gemini function call (`FunctionCall`). */
export interface GeminiFunctionCallLike {
  /** The call id, when Gemini sent one. */
  readonly id?: string | undefined
  /** The function name. */
  readonly name?: string | undefined
  /** The arguments. */
  readonly args?: Record<string, unknown> | undefined
}

/** Inline bytes. */
export interface GeminiInlineData {
  /** The MIME type. */
  mimeType: string
  /** Base64 bytes. */
  data: string
}

/** A `functionResponse`: one call's result. */
export interface GeminiFunctionResponse {
  /** The call's id, when Gemini sent one. */
  id?: string
  /** The function name. */
  name: string
  /** `{ output }` for a result, `{ error }` for an error result (each the result's text). */
  response: { output: string } | { error: string }
  /** Images, audio, video and PDFs of the result, with the `'function-response-parts'` media placement (Gemini 3). */
  parts?: { inlineData: GeminiInlineData }[]
}

/** One part of the content that answers a step. */
export type GeminiPart = { functionResponse: GeminiFunctionResponse } | { text: string } | { inlineData: GeminiInlineData }

/**
 * The content that answers a step: every `functionResponse` first, then (with the `'separate-parts'` media
 * placement) the results' media as `inlineData` parts, then the additional context.
 */
export interface GeminiContent {
  /** Discriminant. */
  role: 'user'
  /** The parts. */
  parts: GeminiPart[]
}

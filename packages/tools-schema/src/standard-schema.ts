/**
 * The Standard Schema and Standard JSON Schema v1 interfaces (https://standardschema.dev), declared structurally:
 * zod 4, valibot and arktype implement them, and tools-schema never imports any of those libraries.
 */

/** One problem a Standard Schema reports. */
export interface StandardSchemaIssue {
  /** What is wrong, in the schema library's words. */
  readonly message: string
  /** Where, as keys or `{ key }` segments; absent for the value itself. */
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined
}

/** What `~standard.validate` returns: the (possibly transformed) value, or the issues. */
export type StandardSchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardSchemaIssue> }

/** Options of the Standard JSON Schema converters. */
export interface StandardJsonSchemaOptions {
  /**
   * The JSON Schema dialect asked for. tools-schema only ever asks for `"draft-2020-12"`, and the type says so, so a
   * schema whose converter declares a narrower set of targets (such as the MCP SDK's `StandardSchemaWithJSON`, or
   * a library that lists the dialects it supports) is still accepted.
   */
  readonly target: 'draft-2020-12'
  /** Vendor-specific options. */
  readonly libraryOptions?: Record<string, unknown> | undefined
}

/** The `~standard` property of a {@link StandardSchemaWithJsonSchema}. */
export interface StandardSchemaWithJsonSchemaProps<Input = unknown, Output = Input> {
  /** The version of the standard: 1. */
  readonly version: 1
  /** The schema library (`"zod"`, `"valibot"`, …). */
  readonly vendor: string
  /** The inferred types (type level only). */
  readonly types?: { readonly input: Input; readonly output: Output } | undefined
  /** Validates a value. tools-schema needs a synchronous answer (see {@link defineTool}). */
  readonly validate: (value: unknown) => StandardSchemaResult<Output> | Promise<StandardSchemaResult<Output>>
  /** The JSON Schema converters: what the schema accepts (`input`) and what it produces (`output`). May throw. */
  readonly jsonSchema: {
    readonly input: (options: StandardJsonSchemaOptions) => unknown
    readonly output: (options: StandardJsonSchemaOptions) => unknown
  }
}

/**
 * A schema that implements both Standard Schema (validation) and Standard JSON Schema (conversion), such as a zod 4
 * schema. {@link defineTool} accepts one as `parameters` and as `output.schema`.
 */
export interface StandardSchemaWithJsonSchema<Input = unknown, Output = Input> {
  /** The standard's properties. */
  readonly '~standard': StandardSchemaWithJsonSchemaProps<Input, Output>
}

/**
 * The `input` or `output` type a Standard Schema declares (`unknown` when it declares none), read by inference
 * rather than by indexing: indexing `(Output & StandardSchemaWithJsonSchema)['~standard']` while `Output` is still
 * being inferred made the compiler expand an arktype `Type` until it gave up ("excessively deep") for an inline
 * `output: { schema: type({ … }) }`. Not distributive: a union of schemas is not split.
 */
export type StandardTypeOf<Schema, Side extends 'input' | 'output'> = [Schema] extends [{ readonly '~standard': { readonly types?: infer Types } }]
  ? NonNullable<Types> extends { readonly [Key in Side]: infer Type }
    ? Type
    : unknown
  : never

/** The type a {@link StandardSchemaWithJsonSchema} accepts (`z.input<typeof schema>` for zod). */
export type InferStandardInput<Schema extends StandardSchemaWithJsonSchema> = StandardTypeOf<Schema, 'input'>

/** The type a {@link StandardSchemaWithJsonSchema} produces (`z.output<typeof schema>` for zod). */
export type InferStandardOutput<Schema extends StandardSchemaWithJsonSchema> = StandardTypeOf<Schema, 'output'>

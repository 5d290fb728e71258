import type { ReadonlyJsonValue } from '@dsh/tools-core'

/** The node types of the schema DSL. `json` accepts any lossless JSON value. */
export type SchemaType = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'object' | 'array' | 'json'

/**
 * Annotations every node may carry. They travel to the model in the JSON Schema; none of them changes validation.
 * `default` and each of `examples` must be lossless JSON that matches the node itself (checked at definition
 * time). Defaults are documentation for the model: they are never filled in.
 */
export interface SchemaAnnotations<Value> {
  /** What the value means, written for the model. */
  readonly description?: string
  /** A short human-readable name. */
  readonly title?: string
  /** The value the tool assumes when the property is left out. Documented, never applied. */
  readonly default?: Value
  /** Example values. */
  readonly examples?: readonly Value[]
}

/**
 * What the type checker says about a JSON Schema keyword the DSL does not support: the same hint as the
 * definition-time error, as the only string the property accepts, so that writing the keyword fails with
 * `Type 'true' is not assignable to type '"nullable" is not supported: use oneOf with { type: 'null' }'`.
 */
export interface UnsupportedKeywordHints {
  readonly format: 'formats are not checked; use pattern, or check the value in code after validation'
  readonly prefixItems: 'use items (one schema for every element), with minItems, maxItems or uniqueItems'
  readonly contains: 'use items (one schema for every element), with minItems, maxItems or uniqueItems'
  readonly minProperties: 'object constraints are not supported; check them in code after validation'
  readonly maxProperties: 'object constraints are not supported; check them in code after validation'
  readonly patternProperties: 'object constraints are not supported; check them in code after validation'
  readonly propertyNames: 'object constraints are not supported; check them in code after validation'
  readonly anyOf: 'use oneOf with branches that cannot overlap'
  readonly allOf: 'merge the parts into one schema'
  readonly not: 'conditional schemas are not supported; use oneOf'
  readonly $ref: 'references are not supported; write the schema inline'
  readonly $defs: 'references are not supported; write the schema inline'
  readonly nullable: "use oneOf with a { type: 'null' } branch"
}

/**
 * JSON Schema keywords the DSL does not support, each typed as its hint (see {@link UnsupportedKeywordHints}), so
 * that writing one is a type error naming the problem (the definition-time check rejects them, and every other
 * unknown key, at run time too).
 */
export type UnsupportedSchemaKeywords = {
  readonly [Keyword in keyof UnsupportedKeywordHints]?: `"${Keyword}" is not supported: ${UnsupportedKeywordHints[Keyword]}`
}

/** Where each keyword belongs, for the type errors of a misplaced one. */
export interface KeywordPlacements {
  readonly properties: 'type "object"'
  readonly additionalProperties: 'type "object"'
  readonly items: 'type "array"'
  readonly enum: 'scalar types (string, number, integer, boolean, null)'
  readonly const: 'scalar types (string, number, integer, boolean, null)'
  readonly oneOf: 'a node of its own, without type: { oneOf: [a, b] }'
  readonly minLength: 'type "string"'
  readonly maxLength: 'type "string"'
  readonly pattern: 'type "string"'
  readonly minimum: 'types "number" and "integer"'
  readonly maximum: 'types "number" and "integer"'
  readonly exclusiveMinimum: 'types "number" and "integer"'
  readonly exclusiveMaximum: 'types "number" and "integer"'
  readonly multipleOf: 'types "number" and "integer"'
  readonly minItems: 'type "array"'
  readonly maxItems: 'type "array"'
  readonly uniqueItems: 'type "array"'
}

/**
 * Keywords that belong to other node types, each typed as the message saying where it belongs, so that a
 * misplaced one is a type error naming the problem (`"minimum" only applies to types "number" and "integer"`).
 */
export type MisplacedSchemaKeywords<Keyword extends string> = {
  readonly [Key in Keyword]?: Key extends keyof KeywordPlacements ? `"${Key}" only applies to ${KeywordPlacements[Key]}` : never
}

/** The value constraints of strings: lengths in Unicode code points, and a pattern. */
export interface StringConstraintSpec {
  /** The fewest characters (Unicode code points, as JSON Schema counts them: a surrogate pair is one). */
  readonly minLength?: number
  /** The most characters (code points). */
  readonly maxLength?: number
  /**
   * An ECMA-262 regular expression, compiled with the `u` flag, that the string must match somewhere (anchor it
   * with `^…$` to match the whole string). A pattern that does not compile is a definition error.
   */
  readonly pattern?: string
}

/** The value constraints of numbers and integers (finite bounds; `multipleOf` greater than 0). */
export interface NumberConstraintSpec {
  /** The value is at least this. */
  readonly minimum?: number
  /** The value is at most this. */
  readonly maximum?: number
  /** The value is greater than this. */
  readonly exclusiveMinimum?: number
  /** The value is less than this. */
  readonly exclusiveMaximum?: number
  /**
   * The value divided by this is an integer (computed in double precision, as ajv does: `0.3` is not a multiple
   * of `0.1`; a quotient of 10^21 or more never is).
   */
  readonly multipleOf?: number
}

/** The value constraints of arrays. */
export interface ArrayConstraintSpec {
  /** The fewest elements. */
  readonly minItems?: number
  /** The most elements. */
  readonly maxItems?: number
  /** `true`: no two elements are equal as JSON (objects in any key order, `1` and `1.0` are one number). */
  readonly uniqueItems?: boolean
}

type ValueConstraintKeyword = StringConstraintKeyword | NumberConstraintKeyword | ArrayConstraintKeyword
type StringConstraintKeyword = keyof StringConstraintSpec
type NumberConstraintKeyword = keyof NumberConstraintSpec
type ArrayConstraintKeyword = keyof ArrayConstraintSpec

type ScalarMisplaced = MisplacedSchemaKeywords<'properties' | 'additionalProperties' | 'items' | 'oneOf' | ArrayConstraintKeyword>

/** `{ type: 'string' }`, optionally narrowed to literals by `enum` or `const`. */
export interface StringSchemaSpec
  extends SchemaAnnotations<string>,
    StringConstraintSpec,
    UnsupportedSchemaKeywords,
    ScalarMisplaced,
    MisplacedSchemaKeywords<NumberConstraintKeyword> {
  /** Discriminant. */
  readonly type: 'string'
  /** The allowed strings (at least one, no duplicates). Inferred as a union of literals. */
  readonly enum?: readonly string[]
  /** The one allowed string. Inferred as that literal. */
  readonly const?: string
}

/** `{ type: 'number' }`: any finite JSON number. */
export interface NumberSchemaSpec
  extends SchemaAnnotations<number>,
    NumberConstraintSpec,
    UnsupportedSchemaKeywords,
    ScalarMisplaced,
    MisplacedSchemaKeywords<StringConstraintKeyword> {
  /** Discriminant. */
  readonly type: 'number'
  /** The allowed numbers (finite, at least one, no duplicates). */
  readonly enum?: readonly number[]
  /** The one allowed number. */
  readonly const?: number
}

/** `{ type: 'integer' }`: a JSON number with no fractional part. Inferred as `number`. */
export interface IntegerSchemaSpec
  extends SchemaAnnotations<number>,
    NumberConstraintSpec,
    UnsupportedSchemaKeywords,
    ScalarMisplaced,
    MisplacedSchemaKeywords<StringConstraintKeyword> {
  /** Discriminant. */
  readonly type: 'integer'
  /** The allowed integers (at least one, no duplicates). */
  readonly enum?: readonly number[]
  /** The one allowed integer. */
  readonly const?: number
}

/** `{ type: 'boolean' }`. */
export interface BooleanSchemaSpec
  extends SchemaAnnotations<boolean>,
    UnsupportedSchemaKeywords,
    ScalarMisplaced,
    MisplacedSchemaKeywords<StringConstraintKeyword | NumberConstraintKeyword> {
  /** Discriminant. */
  readonly type: 'boolean'
  /** The allowed booleans. */
  readonly enum?: readonly boolean[]
  /** The one allowed boolean. */
  readonly const?: boolean
}

/** `{ type: 'null' }`: only `null`. */
export interface NullSchemaSpec
  extends SchemaAnnotations<null>,
    UnsupportedSchemaKeywords,
    ScalarMisplaced,
    MisplacedSchemaKeywords<StringConstraintKeyword | NumberConstraintKeyword> {
  /** Discriminant. */
  readonly type: 'null'
  /** `[null]`, the only possible list. */
  readonly enum?: readonly null[]
  /** `null`, the only possible literal. */
  readonly const?: null
}

/** `{ type: 'json' }`: any lossless JSON value (emitted as the empty schema `{}`). */
export interface JsonValueSchemaSpec
  extends SchemaAnnotations<ReadonlyJsonValue>,
    UnsupportedSchemaKeywords,
    MisplacedSchemaKeywords<'enum' | 'const' | 'properties' | 'additionalProperties' | 'items' | 'oneOf' | ValueConstraintKeyword> {
  /** Discriminant. */
  readonly type: 'json'
}

/**
 * `{ type: 'object', additionalProperties, properties? }`. Every explicit object declares whether it is open
 * (`additionalProperties: true`: other keys may hold any JSON value) or closed (`false`: no other keys).
 */
export interface ObjectSchemaSpec
  extends SchemaAnnotations<{ readonly [key: string]: ReadonlyJsonValue }>,
    UnsupportedSchemaKeywords,
    MisplacedSchemaKeywords<'enum' | 'const' | 'items' | 'oneOf' | ValueConstraintKeyword> {
  /** Discriminant. */
  readonly type: 'object'
  /** The declared properties; each is optional unless it says `required: true`. */
  readonly properties?: ParameterSchemaSpec
  /** `true`: undeclared keys are allowed (any JSON value); `false`: they are violations. Always explicit. */
  readonly additionalProperties: boolean
}

/** `{ type: 'array', items? }`: a JSON array; without `items`, of any JSON values. */
export interface ArraySchemaSpec
  extends SchemaAnnotations<readonly ReadonlyJsonValue[]>,
    ArrayConstraintSpec,
    UnsupportedSchemaKeywords,
    MisplacedSchemaKeywords<'enum' | 'const' | 'properties' | 'additionalProperties' | 'oneOf' | StringConstraintKeyword | NumberConstraintKeyword> {
  /** Discriminant. */
  readonly type: 'array'
  /** The schema of every element. */
  readonly items?: ValueSchemaSpec
}

/**
 * `{ oneOf: [a, b, …] }`: the value matches exactly one of two or more branches (write branches that cannot
 * overlap, for example objects told apart by a `const` property). Used instead of `type`.
 */
export interface OneOfSchemaSpec
  extends SchemaAnnotations<ReadonlyJsonValue>,
    UnsupportedSchemaKeywords,
    MisplacedSchemaKeywords<'enum' | 'const' | 'properties' | 'additionalProperties' | 'items' | ValueConstraintKeyword> {
  /** Not allowed next to `oneOf`. */
  readonly type?: never
  /** Two or more branches. */
  readonly oneOf: readonly [ValueSchemaSpec, ValueSchemaSpec, ...ValueSchemaSpec[]]
}

/** A schema for one value: a typed node or a `oneOf`. Used for array items, `oneOf` branches and tool output. */
export type ValueSchemaSpec =
  | StringSchemaSpec
  | NumberSchemaSpec
  | IntegerSchemaSpec
  | BooleanSchemaSpec
  | NullSchemaSpec
  | JsonValueSchemaSpec
  | ObjectSchemaSpec
  | ArraySchemaSpec
  | OneOfSchemaSpec

/** One property of a parameter map: a value schema plus `required: true` when the property must be present. */
export type SchemaProp = ValueSchemaSpec & {
  /** Marks the property required (omit it for optional; `false` is not accepted). */
  readonly required?: true
}

/**
 * A parameter map: property name → {@link SchemaProp}. A tool's `parameters`, and the `properties` of an object
 * node. As a tool's `parameters` it is an implicit open object: keys it does not declare are allowed.
 */
export interface ParameterSchemaSpec {
  readonly [name: string]: SchemaProp
}

/**
 * The type error of a raw JSON Schema (`{ type: 'object', properties }`) passed where a parameter map belongs: the
 * only string a parameter map written that way is assignable to.
 */
export type RawJsonSchemaHint =
  'a parameter map names each property ({ path: { type: "string", required: true } }), it is not a JSON Schema: pass the schema\'s properties, with required: true on the required ones'

/** The seed's name for {@link ParameterSchemaSpec}. */
export type SchemaSpec = ParameterSchemaSpec

import type { JsonValue } from '@dsh/tools-core'
import type { ParameterSchemaSpec } from './schema-spec.js'

/**
 * How deep {@link InferValue} looks (objects, arrays and `oneOf`s nested in each other). Below that, values are
 * typed `JsonValue`, so that inference of wide or very deep specs stays cheap for the compiler.
 */
export type MaxInferDepth = 12

type Deeper<Depth extends readonly unknown[]> = [...Depth, unknown]

/** Flattens an intersection into one object type, for readable hovers and exact type equality. */
export type Simplify<T> = { [Key in keyof T]: T[Key] } & {}

type RequiredKeys<Spec> = {
  [Key in keyof Spec]-?: Spec[Key] extends { readonly required: true } ? Key : never
}[keyof Spec]

type InferProperties<Spec, Depth extends readonly unknown[]> = Simplify<
  { -readonly [Key in keyof Spec as Key extends RequiredKeys<Spec> ? Key : never]: InferValueAt<Spec[Key], Depth> } & {
    -readonly [Key in keyof Spec as Key extends RequiredKeys<Spec> ? never : Key]?: InferValueAt<Spec[Key], Depth>
  }
>

type InferObject<Spec, Depth extends readonly unknown[]> =
  Spec extends { readonly additionalProperties: false }
    ? Spec extends { readonly properties: infer Properties }
      ? InferProperties<Properties, Depth>
      : { [key: string]: never }
    : Spec extends { readonly properties: infer Properties }
      ? Simplify<InferProperties<Properties, Depth> & { [key: string]: JsonValue }>
      : { [key: string]: JsonValue }

type InferTyped<Spec, Type, Depth extends readonly unknown[]> = Type extends 'string'
  ? string
  : Type extends 'number' | 'integer'
    ? number
    : Type extends 'boolean'
      ? boolean
      : Type extends 'null'
        ? null
        : Type extends 'object'
          ? InferObject<Spec, Depth>
          : Type extends 'array'
            ? Spec extends { readonly items: infer Items }
              ? InferValueAt<Items, Deeper<Depth>>[]
              : JsonValue[]
            : JsonValue

type InferValueAt<Spec, Depth extends readonly unknown[]> = Depth['length'] extends MaxInferDepth
  ? JsonValue
  : Spec extends { readonly oneOf: infer Branches extends readonly unknown[] }
    ? InferValueAt<Branches[number], Deeper<Depth>>
    : Spec extends { readonly const: infer Literal }
      ? Literal
      : Spec extends { readonly enum: readonly (infer Member)[] }
        ? Member
        : Spec extends { readonly type: infer Type }
          ? InferTyped<Spec, Type, Deeper<Depth>>
          : never

/**
 * The TypeScript type of values matching a {@link ValueSchemaSpec}: `enum`/`const` give literal unions, `oneOf`
 * a union, `integer` gives `number`, `json` gives `JsonValue`, a closed object its declared properties
 * (`required: true` ones required), an open object those plus `[key: string]: JsonValue`.
 */
export type InferValue<Spec> = InferValueAt<Spec, []>

/**
 * The type of a tool's arguments from its parameter map: properties with `required: true` are required keys,
 * all others optional. (The map is open at run time; undeclared keys are not part of the type.)
 */
export type InferArgs<Spec extends ParameterSchemaSpec> = InferProperties<Spec, []>

import { parameterNode, valueNode } from './compile-schema.js'
import type { ParameterSchemaSpec, RawJsonSchemaHint, ValueSchemaSpec } from './schema-spec.js'

/**
 * Checks a parameter map at definition time and returns it unchanged, with its literal types kept (no
 * `as const` needed), so `InferArgs<typeof parameters>` works on a map declared apart from `defineTool`.
 *
 * @throws {@link JsonSchemaError} listing every problem of the spec, with paths.
 */
export function defineParameters<const Spec extends ParameterSchemaSpec | { readonly type: string }>(
  spec: Spec & (Spec extends { readonly type: string } ? RawJsonSchemaHint : unknown),
): Spec {
  parameterNode(spec)
  return spec as Spec
}

/**
 * Checks a value spec at definition time and returns it unchanged, with its literal types kept, so
 * `InferValue<typeof schema>` works on a schema declared on its own.
 *
 * @throws {@link JsonSchemaError} listing every problem of the spec, with paths.
 */
export function defineValueSchema<const Spec extends ValueSchemaSpec>(spec: Spec): Spec {
  valueNode(spec)
  return spec
}

import { deepFreeze, type JsonObject } from '@dsh/tools-core'
import type { InferArgs, InferValue } from './infer-args.js'
import type { SchemaNode } from './schema-node.js'
import type { ParameterSchemaSpec, ValueSchemaSpec } from './schema-spec.js'
import { nodeToJsonSchema } from './schema-spec-to-json-schema.js'
import type { InferStandardOutput, StandardSchemaWithJsonSchema, StandardTypeOf } from './standard-schema.js'
import { validatorFor } from './validator-backend.js'
import type { Violation } from './violation.js'

/** What a tool's `parameters` may be: a DSL parameter map, or a Standard Schema with JSON Schema (zod 4, …). */
export type ToolParametersSpec = ParameterSchemaSpec | StandardSchemaWithJsonSchema

/** What a tool's `output.schema` may be: a DSL value schema, or a Standard Schema with JSON Schema (zod 4, …). */
export type ToolOutputSchemaSpec = ValueSchemaSpec | StandardSchemaWithJsonSchema

// A distributive conditional on the output schema would be deferred while `Output` is inferred, and the body's
// contextual return type with it (literals in a returned content block would widen): the output helpers use
// `[Output]` and an intersection instead.

/** The type of the arguments `execute` receives for `parameters: Spec` (a Standard Schema's output type). */
export type ToolArgsOf<Spec> = Spec extends StandardSchemaWithJsonSchema
  ? InferStandardOutput<Spec>
  : Spec extends ParameterSchemaSpec
    ? InferArgs<Spec>
    : never

/** The validated value of `output.schema: Output`, as `render` and `invoke` see it (a Standard Schema's output type). */
export type ToolOutputValueOf<Output> = [Output] extends [StandardSchemaWithJsonSchema]
  ? StandardTypeOf<Output, 'output'>
  : InferValue<Output>

/** What the body returns for `output.schema: Output` (a Standard Schema's input type, which it validates). */
export type ToolOutputReturnOf<Output> = [Output] extends [StandardSchemaWithJsonSchema]
  ? NonUnknown<StandardTypeOf<Output, 'input'>>
  : InferValue<Output>

/**
 * `T`, with a constraint other than `unknown`: while `Output` is still being inferred, the body's contextual return
 * type is the union of the branches' constraints, and an `unknown` there would widen the literals of a returned
 * content block (`{ type: 'text' }`) of every tool without `output`.
 */
type NonUnknown<T> = T & ({} | null)

/** What a tool's schema says about a value: the value the body gets, or the violations. Never throws. */
export type SchemaCheckResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly violations: readonly Violation[]; readonly omitted: number }

/** A tool's parameter or output schema, whatever it was written in: its JSON Schema and its check. */
export interface ToolSchemaCheck {
  /** The JSON Schema (detached, deep-frozen). */
  readonly jsonSchema: JsonObject
  /** Checks a value; with a Standard Schema, `value` is its output as a detached deep-frozen snapshot. */
  check(value: unknown): SchemaCheckResult
}

/** The check of a DSL schema: its compiled validator; the value passes through unchanged. */
export function dslSchemaCheck(node: SchemaNode): ToolSchemaCheck {
  const validator = validatorFor(node)
  return {
    jsonSchema: deepFreeze(nodeToJsonSchema(node)) as JsonObject,
    check(value) {
      if (validator.is(value)) return { ok: true, value }
      const result = validator.validate(value)
      return result.ok ? { ok: true, value } : { ok: false, violations: result.violations, omitted: result.omitted }
    },
  }
}

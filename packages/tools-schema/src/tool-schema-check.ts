import { SNAPSHOT_PROTOTYPE, snapshotJson, type JsonObject } from '@dsh/tools-core'
import { nonJsonMessage } from './value-rules.js'
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

/**
 * A JSON Schema this package has just built, as a finished `snapshotJson` snapshot: detached, deep-frozen, and marked,
 * so the registry's own snapshot of it at `register` reuses it instead of copying it again (one tree per tool, not
 * two). A schema past the snapshot limits stays as it was built; `register` then names the problem.
 */
function builtSnapshot(value: JsonObject): JsonObject {
  const snapshot = snapshotJson(value)
  return snapshot.ok ? (snapshot.value as JsonObject) : value
}

/**
 * True for the root of a `snapshotJson` copy (frozen, of `SNAPSHOT_PROTOTYPE`): what the registry hands a tool. A
 * caller that builds such an object by hand with ordinary objects inside vouches for them.
 */
export function isSnapshot(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === SNAPSHOT_PROTOTYPE && Object.isFrozen(value)
}

/**
 * The check of a DSL schema: its compiled validator. A snapshot (what the registry passes) goes through unchanged;
 * any other value (a direct `tool.execute(args)`) is snapshotted first, so the body never reads a key through a
 * polluted `Object.prototype` and never sees a value the caller changes later.
 */
export function dslSchemaCheck(node: SchemaNode): ToolSchemaCheck {
  // Code is generated once the tool proves hot, never at definition: defining a tool costs no code generation.
  const validator = validatorFor(node, undefined, 'when-hot')
  return {
    jsonSchema: builtSnapshot(nodeToJsonSchema(node) as JsonObject),
    check(given) {
      let value = given
      if (!isSnapshot(given)) {
        const snapshot = snapshotJson(given)
        if (!snapshot.ok) {
          const { path, segments } = snapshot.error
          return { ok: false, violations: [{ path, segments, keyword: 'json', message: nonJsonMessage(snapshot.error) }], omitted: 0 }
        }
        value = snapshot.value
      }
      if (validator.is(value)) return { ok: true, value }
      const result = validator.validate(value)
      return result.ok ? { ok: true, value } : { ok: false, violations: result.violations, omitted: result.omitted }
    },
  }
}

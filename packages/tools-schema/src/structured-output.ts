import { snapshotJson, type ReadonlyJsonValue } from '@dsh/tools-core'
import { compile } from './compile-schema.js'
import { nonJsonMessage } from './value-rules.js'
import { OutputSchemaError } from './output-schema-error.js'
import { readStructuredSchema } from './read-schema.js'
import type { SchemaNode } from './schema-node.js'
import { schemaProblem, type SchemaProblem } from './schema-problem.js'
import { StructuredValueError } from './structured-value-error.js'
import type { ValidateOptions, Validator } from './validator.js'

/** A JSON scalar: what `enum` and `const` may hold in the structured-output subset. */
export type StructuredScalar = string | number | boolean | null

/** The node types of the structured-output subset. */
export type StructuredSchemaType = 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null'

/**
 * One node of the structured-output subset: plain JSON Schema restricted to keywords the validator enforces.
 * `properties`, `required` and `additionalProperties` belong to `object` nodes, `items` to `array` nodes, `enum`
 * and `const` to scalar nodes (and must match the node's type); the value constraints to the types they apply to
 * (`minLength`, `maxLength`, `pattern` to strings; `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
 * `multipleOf` to numbers and integers; `minItems`, `maxItems`, `uniqueItems` to arrays), all enforced. `description`, `title`, `default` and `examples`
 * are annotations: allowed, never enforced, but they must be JSON (they travel to the model).
 */
export interface StructuredSchemaNode {
  /** The node's type: one string (type arrays are not supported). */
  type: StructuredSchemaType
  /** The declared properties of an object. */
  properties?: Record<string, StructuredSchemaNode>
  /** Properties that must be present: unique names, each declared in `properties`. */
  required?: readonly string[]
  /** `false` forbids undeclared keys; absent or `true` allows them (JSON Schema's default). */
  additionalProperties?: boolean
  /** The schema of every element of an array; absent means any JSON value. */
  items?: StructuredSchemaNode
  /** The allowed literals (at least one, no duplicates, each of the node's type). */
  enum?: readonly StructuredScalar[]
  /** The one allowed literal, of the node's type. */
  const?: StructuredScalar
  /** Strings: the fewest characters (Unicode code points). */
  minLength?: number
  /** Strings: the most characters (Unicode code points). */
  maxLength?: number
  /** Strings: an ECMA-262 regular expression (`u` flag) the string must match; it must compile. */
  pattern?: string
  /** Numbers and integers: the value is at least this. */
  minimum?: number
  /** Numbers and integers: the value is at most this. */
  maximum?: number
  /** Numbers and integers: the value is greater than this. */
  exclusiveMinimum?: number
  /** Numbers and integers: the value is less than this. */
  exclusiveMaximum?: number
  /** Numbers and integers: the value divided by this (greater than 0) is an integer. */
  multipleOf?: number
  /** Arrays: the fewest elements. */
  minItems?: number
  /** Arrays: the most elements. */
  maxItems?: number
  /** Arrays: `true` when no two elements may be equal as JSON. */
  uniqueItems?: boolean
  /** Annotation: what the value means. */
  description?: string
  /** Annotation: a short name. */
  title?: string
  /** Annotation: any JSON value; never applied. */
  default?: unknown
  /** Annotation: an array of JSON values. */
  examples?: unknown
}

/** A structured-output schema: an object-rooted {@link StructuredSchemaNode}. */
export type StructuredOutputSchema = StructuredSchemaNode & { type: 'object' }

const cache = new WeakMap<object, SchemaNode>()

function compileStructured(schema: unknown, rootObject: boolean): Validator<ReadonlyJsonValue> {
  const fail = (problems: readonly SchemaProblem[]): Error =>
    new OutputSchemaError(rootObject && !isObjectRooted(schema) ? [rootProblem(), ...problems] : problems)
  const { node, validator } = compile(schema, { read: readStructuredSchema, cache, fail }, true)
  if (rootObject && node.kind !== 'object') throw new OutputSchemaError([rootProblem()])
  return validator as Validator<ReadonlyJsonValue>
}

/** Whether the schema says `type: "object"`, from its own data property (no getter runs a second time). */
function isObjectRooted(schema: unknown): boolean {
  try {
    return typeof schema === 'object' && schema !== null && Object.getOwnPropertyDescriptor(schema, 'type')?.value === 'object'
  } catch {
    return false
  }
}

function rootProblem() {
  return schemaProblem(['type'], 'a structured-output schema must have type "object"')
}

/**
 * Asserts that `schema` is a node of the structured-output subset (any root type). Lists every violation, with
 * its path, in one {@link OutputSchemaError} (code `UNSUPPORTED_OUTPUT_SCHEMA`): keywords outside the subset,
 * keywords on the wrong type, wrong-typed `enum`/`const` members, annotations that are not JSON, cycles, non-plain
 * objects (a `Date`, a `Map`). Reads own enumerable properties only.
 */
export function assertStructuredSchemaNode(schema: unknown): asserts schema is StructuredSchemaNode {
  compileStructured(schema, false)
}

/**
 * Asserts that `schema` is a structured-output schema: an object-rooted node of the supported subset. Rejects
 * everything else loudly, listing every violation in one {@link OutputSchemaError}.
 */
export function assertSupportedOutputSchema(schema: unknown): asserts schema is StructuredOutputSchema {
  compileStructured(schema, true)
}

/** The outcome of {@link validateStructuredValue}. */
export type StructuredValueResult =
  | {
      /** The value matches. */
      readonly ok: true
      /** A detached, deep-frozen lossless copy of the value. */
      readonly value: ReadonlyJsonValue
    }
  | {
      /** The value does not match, or is not lossless JSON. */
      readonly ok: false
      /** The violations, in a message written for the model that produced the value. */
      readonly error: StructuredValueError
    }

/**
 * Validates a produced value (a subagent's result, a forced tool's arguments) against a structured-output schema:
 * first as lossless JSON (a detached copy is taken, so getters run once), then against the schema. Never throws
 * for any `value`; throws {@link OutputSchemaError} when the schema is outside the subset. The compiled schema is
 * cached per schema object.
 */
export function validateStructuredValue(
  schema: StructuredSchemaNode,
  value: unknown,
  options?: ValidateOptions,
): StructuredValueResult {
  const validator = compileStructured(schema, false)
  const snapshot = snapshotJson(value)
  if (!snapshot.ok) {
    const { path, segments } = snapshot.error
    const violation = { path, segments, keyword: 'json' as const, message: nonJsonMessage(snapshot.error) }
    return { ok: false, error: new StructuredValueError({ violations: [violation] }) }
  }
  const result = validator.validate(snapshot.value, options)
  if (result.ok) return { ok: true, value: snapshot.value }
  return { ok: false, error: new StructuredValueError({ violations: result.violations, omitted: result.omitted }) }
}

import type { JsonPrimitive, ReadonlyJsonValue } from '@dsh/tools-core'
import type { Constraints } from './constraints.js'

/**
 * The checked, internal form of a schema: what both front ends (the DSL and the structured-output subset) read
 * a schema into, and what validators are compiled from and JSON Schema is emitted from.
 */
export type SchemaNode = ScalarNode | JsonNode | ObjectNode | ArrayNode | OneOfNode

/** Annotations carried to the emitted JSON Schema; they never change validation. */
export interface NodeAnnotations {
  title?: string
  description?: string
  default?: ReadonlyJsonValue
  examples?: readonly ReadonlyJsonValue[]
}

export type ScalarKind = 'string' | 'number' | 'integer' | 'boolean' | 'null'

export interface ScalarNode {
  readonly kind: ScalarKind
  readonly annotations: NodeAnnotations
  /** Allowed literals, when the node has `enum`. */
  readonly enum: readonly JsonPrimitive[] | undefined
  /** True when the node has `const` (which may be `null`). */
  readonly hasConst: boolean
  readonly const: JsonPrimitive
  /**
   * Value constraints (string lengths and pattern; number bounds), `undefined` when none. Next to `enum`/`const`
   * they hold for every member (checked at definition time), so validators need not check them there.
   */
  readonly constraints: Constraints | undefined
}

export interface JsonNode {
  readonly kind: 'json'
  readonly annotations: NodeAnnotations
}

export interface PropertyNode {
  readonly name: string
  readonly node: SchemaNode
  readonly required: boolean
}

export interface ObjectNode {
  readonly kind: 'object'
  readonly annotations: NodeAnnotations
  readonly properties: readonly PropertyNode[]
  readonly additionalProperties: boolean
  /** True for the top-level parameter map: open without saying so (no `additionalProperties` emitted). */
  readonly implicit: boolean
}

export interface ArrayNode {
  readonly kind: 'array'
  readonly annotations: NodeAnnotations
  /** The element schema; `undefined` means any JSON value. */
  readonly items: SchemaNode | undefined
  /** `minItems`, `maxItems`, `uniqueItems`; `undefined` when none. */
  readonly constraints: Constraints | undefined
}

export interface OneOfNode {
  readonly kind: 'oneOf'
  readonly annotations: NodeAnnotations
  readonly branches: readonly SchemaNode[]
}

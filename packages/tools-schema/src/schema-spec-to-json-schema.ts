import type { JsonObject, JsonValue, ReadonlyJsonValue, ToolParametersSchema } from '@dsh/tools-core'
import { parameterNode, valueNode } from './compile-schema.js'
import { constraintKeywords, type Constraints } from './constraints.js'
import type { NodeAnnotations, SchemaNode } from './schema-node.js'
import type { ParameterSchemaSpec, ValueSchemaSpec } from './schema-spec.js'

/**
 * The JSON Schema of a tool's parameters: `{ type: 'object', properties, required? }`. Assignable to tools-core's
 * `ToolParametersSchema`.
 */
export type ParametersJsonSchema = ToolParametersSchema & {
  /** One schema per declared property, in the spec's order. */
  properties: { [name: string]: JsonObject }
  /** The required properties, in the spec's order; absent when none is required. */
  required?: string[]
}

function copy(value: ReadonlyJsonValue): JsonValue {
  return structuredClone(value) as JsonValue
}

function set(target: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  else target[key] = value
}

function head(schema: JsonObject, annotations: NodeAnnotations): void {
  if (annotations.title !== undefined) schema['title'] = annotations.title
  if (annotations.description !== undefined) schema['description'] = annotations.description
}

function tail(schema: JsonObject, annotations: NodeAnnotations): JsonObject {
  if (annotations.default !== undefined) schema['default'] = copy(annotations.default)
  if (annotations.examples !== undefined) schema['examples'] = annotations.examples.map(copy)
  return schema
}

function objectBody(node: Extract<SchemaNode, { kind: 'object' }>, schema: JsonObject): void {
  const properties: JsonObject = {}
  const required: string[] = []
  for (const property of node.properties) {
    set(properties, property.name, emit(property.node))
    if (property.required) required.push(property.name)
  }
  schema['properties'] = properties
  if (required.length > 0) schema['required'] = required
}

function constraintsOf(schema: JsonObject, constraints: Constraints | undefined): void {
  if (constraints === undefined) return
  for (const keyword of constraintKeywords) {
    const value = constraints[keyword]
    if (value !== undefined) schema[keyword] = value
  }
}

/**
 * Emits plain JSON Schema (draft 2020-12 vocabulary) for a checked node. Keys come in a fixed order: `type`,
 * `title`, `description`, `enum`, `const`, `properties`, `required`, `additionalProperties`, `items`, `oneOf`,
 * `default`, `examples`; value constraints (`minLength` … `uniqueItems`) follow `const` on scalars
 * and `items` on arrays, in the order of JSON Schema's validation vocabulary. A `json` node is `{}` (plus its annotations).
 */
function emit(node: SchemaNode): JsonObject {
  const schema: JsonObject = {}
  switch (node.kind) {
    case 'json':
      head(schema, node.annotations)
      break
    case 'oneOf':
      head(schema, node.annotations)
      schema['oneOf'] = node.branches.map(emit)
      break
    case 'object':
      schema['type'] = 'object'
      head(schema, node.annotations)
      objectBody(node, schema)
      if (!node.implicit) schema['additionalProperties'] = node.additionalProperties
      break
    case 'array':
      schema['type'] = 'array'
      head(schema, node.annotations)
      if (node.items !== undefined) schema['items'] = emit(node.items)
      constraintsOf(schema, node.constraints)
      break
    default:
      schema['type'] = node.kind
      head(schema, node.annotations)
      if (node.enum !== undefined) schema['enum'] = [...node.enum]
      if (node.hasConst) schema['const'] = node.const
      constraintsOf(schema, node.constraints)
  }
  return tail(schema, node.annotations)
}

/**
 * Converts a parameter map to the JSON Schema sent to the model: `{ type: 'object', properties, required }`,
 * `required` listing the `required: true` properties (absent when there are none). The top level is an implicit
 * open object, so no `additionalProperties` is emitted there; every nested object carries its own. Returns a
 * fresh object on each call.
 *
 * @throws {@link JsonSchemaError} listing every problem of the spec, with paths.
 */
export function schemaSpecToJsonSchema(parameters: ParameterSchemaSpec): ParametersJsonSchema {
  return emit(parameterNode(parameters)) as ParametersJsonSchema
}

/**
 * Converts a value spec (array items, a `oneOf`, a tool's `output.schema`) to plain JSON Schema. Returns a fresh
 * object on each call.
 *
 * @throws {@link JsonSchemaError} listing every problem of the spec, with paths.
 */
export function valueSchemaSpecToJsonSchema(spec: ValueSchemaSpec): JsonObject {
  return emit(valueNode(spec))
}

/** Emits the JSON Schema of an already checked node (for `defineTool`). */
export function nodeToJsonSchema(node: SchemaNode): JsonObject {
  return emit(node)
}

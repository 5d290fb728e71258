import { snapshotJson, type ToolAnnotations, type ToolDefinition, type ToolSchema } from '@dsh/tools-core'
import { describeThrown, describeValue, quote } from './describe-value.js'
import { InvalidToolDefinitionError } from './invalid-tool-definition-error.js'
import { FieldReadError, isRecord, readOwn } from './own-field.js'

export type { ToolAnnotations }

/**
 * What `register` accepts: a {@link ToolDefinition} (which may carry MCP {@link ToolAnnotations}; `readOnlyHint: true`
 * makes the tool parallel-safe unless `concurrencySafe` says otherwise, the other hints are checked and carried for
 * MCP clients).
 */
export type ToolRegistration = ToolDefinition & {
  /**
   * `false` registers a tool that answers calls by its name but is not offered: it is left out of `schemas()` (of
   * the registry and of every scope), of the system-prompt feed's schemas and of the "Available tools" list of an
   * unknown-tool answer; `get`, `outputSchema`, `executionMode` and `execute` see it like any tool. For a tool that
   * exists but must not be shown to a model, such as an MCP tool whose changed definition awaits approval and whose
   * body explains that. Default `true`.
   */
  readonly listed?: boolean | undefined
}

/** How calls of a tool may be scheduled within one step: with other parallel-safe calls, or alone and in order. */
export type ToolExecutionMode = 'parallel' | 'serial'

/** A checked registration: the definition, its frozen model-facing schema, and what the pipeline needs. */
export interface ToolRecord {
  readonly name: string
  /** The definition as registered (never mutated). */
  readonly definition: ToolDefinition
  /** The model-facing projection, detached from the definition and deep-frozen. */
  readonly schema: Readonly<ToolSchema>
  /** The body as it was when registered. */
  readonly execute: ToolDefinition['execute']
  /** The definition's validation hook (`validateArguments`) as it was when registered; `undefined` for a raw tool. */
  readonly validateArguments: ToolDefinition['validateArguments']
  /** The definition's `outputSchema` as a detached frozen snapshot (a checked object schema), `undefined` when it declares none. */
  readonly outputSchema: object | undefined
  readonly mode: ToolExecutionMode
  /** False for a registration with `listed: false`: resolvable by name, never in a schema projection. */
  readonly listed: boolean
}

const namePattern = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/
const maxTimeoutMs = 2_147_483_647

function invalid(field: string, message: string, cause?: unknown): InvalidToolDefinitionError {
  return new InvalidToolDefinitionError(field, message, cause === undefined ? undefined : { cause })
}

/** An own field of the definition (an inherited one is not declared), or InvalidToolDefinitionError naming it. */
function read(definition: object, key: string, field = key): unknown {
  try {
    return readOwn(definition, key, field)
  } catch (error) {
    const cause = error instanceof FieldReadError ? error.cause : error
    throw invalid(field, `Reading the tool definition's "${field}" threw: ${describeThrown(cause)}`, cause)
  }
}

/** {@link isRecord}; a revoked proxy (which cannot be read at all) is not an object to read fields from. */
function isObjectField(value: unknown, field: string): value is object {
  try {
    return isRecord(value, field)
  } catch {
    return false
  }
}

function checkName(name: unknown): string {
  if (typeof name !== 'string') {
    throw invalid('name', `A tool name must be a string, got ${describeValue(name)}`)
  }
  if (!namePattern.test(name)) {
    throw invalid(
      'name',
      `Tool name ${quote(name)} is not accepted by model providers: it must match ^[A-Za-z_][A-Za-z0-9_-]{0,63}$ ` +
        '(a letter or underscore, then up to 63 letters, digits, underscores or hyphens)',
    )
  }
  return name
}

/**
 * A JSON Schema object with `type: 'object'` as a detached frozen lossless-JSON snapshot (which always serializes:
 * `snapshotJson` bounds depth and size); the field names where it is wrong.
 */
function checkSchemaObject(name: string, field: 'parameters' | 'outputSchema', schema: unknown): object {
  let snapshot: ReturnType<typeof snapshotJson>
  try {
    snapshot = snapshotJson(schema)
  } catch (error) {
    throw invalid(field, `The ${field} of tool ${quote(name)} cannot be read: ${describeThrown(error)}`, error)
  }
  if (!snapshot.ok) {
    const at = snapshot.error.path === '' ? field : `${field}.${snapshot.error.path}`
    throw invalid(at, `The ${field} of tool ${quote(name)} ${field === 'parameters' ? 'are' : 'is'} not lossless JSON: ${snapshot.error.message}`)
  }
  const value = snapshot.value
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(field, `The ${field} of tool ${quote(name)} must be a JSON Schema object, got ${describeValue(value)}`)
  }
  const type = readOwn(value, 'type')
  if (type !== 'object') {
    throw invalid(
      `${field}.type`,
      `The ${field} of tool ${quote(name)} must be an object schema ({ type: 'object', … }), got type ${describeValue(type)}`,
    )
  }
  return value
}

function checkTimeout(name: string, timeoutMs: unknown): void {
  if (timeoutMs === undefined) return
  if (typeof timeoutMs !== 'number' || !Number.isInteger(timeoutMs) || timeoutMs <= 0 || timeoutMs > maxTimeoutMs) {
    throw invalid(
      'timeoutMs',
      `The timeoutMs of tool ${quote(name)} must be a positive integer of at most ${maxTimeoutMs} milliseconds, ` +
        `got ${describeValue(timeoutMs)}`,
    )
  }
}

function optionalBoolean(field: string, name: string, value: unknown): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value
  throw invalid(field, `The ${field} of tool ${quote(name)} must be a boolean, got ${describeValue(value)}`)
}

function optionalFunction(field: string, name: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'function') {
    throw invalid(field, `The ${field} of tool ${quote(name)} must be a function, got ${describeValue(value)}`)
  }
}

function optionalString(field: string, name: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'string') {
    throw invalid(field, `The ${field} of tool ${quote(name)} must be a string, got ${describeValue(value)}`)
  }
}

const hints = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const

/** Checks `title` and the MCP `annotations` (other keys of `annotations` are carried, unread); returns `readOnlyHint`. */
function checkAnnotations(definition: object, name: string): boolean | undefined {
  optionalString('title', name, read(definition, 'title'))
  const annotations = read(definition, 'annotations')
  if (annotations === undefined) return undefined
  if (!isObjectField(annotations, 'annotations')) {
    throw invalid('annotations', `The annotations of tool ${quote(name)} must be an object, got ${describeValue(annotations)}`)
  }
  optionalString('annotations.title', name, read(annotations, 'title', 'annotations.title'))
  let readOnly: boolean | undefined
  for (const hint of hints) {
    const value = optionalBoolean(`annotations.${hint}`, name, read(annotations, hint, `annotations.${hint}`))
    if (hint === 'readOnlyHint') readOnly = value
  }
  return readOnly
}

function checkMode(definition: object, name: string): ToolExecutionMode {
  const declared = optionalBoolean('concurrencySafe', name, read(definition, 'concurrencySafe'))
  const readOnly = checkAnnotations(definition, name)
  return (declared ?? readOnly) === true ? 'parallel' : 'serial'
}

/**
 * Checks a definition the way a model provider would check its schema later, and records what the pipeline
 * needs. The definition is read once, field by field (own properties only: a field inherited from a polluted
 * `Object.prototype` is not declared), and never mutated; the model-facing parameters are a
 * detached deep-frozen snapshot. Throws {@link InvalidToolDefinitionError}.
 */
export function createToolRecord(definition: unknown): ToolRecord {
  if (!isObjectField(definition, '')) {
    throw invalid('', `A tool definition must be an object, got ${describeValue(definition)}`)
  }
  const name = checkName(read(definition, 'name'))
  const description = read(definition, 'description')
  if (typeof description !== 'string') {
    throw invalid('description', `The description of tool ${quote(name)} must be a string, got ${describeValue(description)}`)
  }
  const parameters = checkSchemaObject(name, 'parameters', read(definition, 'parameters'))
  const execute = read(definition, 'execute')
  if (typeof execute !== 'function') {
    throw invalid('execute', `The execute of tool ${quote(name)} must be a function, got ${describeValue(execute)}`)
  }
  const validateArguments = read(definition, 'validateArguments')
  optionalFunction('validateArguments', name, validateArguments)
  checkTimeout(name, read(definition, 'timeoutMs'))
  optionalFunction('presentCall', name, read(definition, 'presentCall'))
  optionalFunction('presentResult', name, read(definition, 'presentResult'))
  const mode = checkMode(definition, name)
  const listed = optionalBoolean('listed', name, read(definition, 'listed')) !== false
  const outputSchema = read(definition, 'outputSchema')
  const checkedOutput = outputSchema === undefined ? undefined : checkSchemaObject(name, 'outputSchema', outputSchema)
  return {
    name,
    definition: definition as ToolDefinition,
    schema: Object.freeze({ name, description, parameters: parameters as ToolSchema['parameters'] }),
    execute: execute as ToolDefinition['execute'],
    validateArguments: validateArguments as ToolDefinition['validateArguments'],
    outputSchema: checkedOutput,
    mode,
    listed,
  }
}

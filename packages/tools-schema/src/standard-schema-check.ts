import { formatJsonPath, SNAPSHOT_PROTOTYPE, snapshotJson, type JsonPathSegment, type ReadonlyJsonValue } from '@dsh/tools-core'
import { describeValue, errorText } from './describe-value.js'
import { schemaProblem, type SchemaProblem } from './schema-problem.js'
import type { StandardJsonSchemaOptions } from './standard-schema.js'
import { readConvertedJsonSchema, type ConvertedJsonSchema } from './standard-schema-json.js'
import {
  converterOptionsFor,
  isZodAsyncError,
  issueMessage,
  missingJsonSchemaAdvice,
  zodAsyncFunction,
  zodResult,
  zodSafeParse,
} from './standard-schema-vendors.js'
import { observedThenable } from './thenable.js'
import { nonJsonMessage } from './value-rules.js'
import { DEFAULT_MAX_VIOLATIONS } from './validator.js'
import type { SchemaCheckResult, ToolSchemaCheck } from './tool-schema-check.js'
import type { Violation } from './violation.js'

interface StandardProps {
  readonly vendor: string
  readonly validate: (value: unknown) => unknown
  readonly input: (options: StandardJsonSchemaOptions) => unknown
  readonly output: (options: StandardJsonSchemaOptions) => unknown
  readonly holder: unknown
  readonly converters: unknown
  /** The library's synchronous parse that throws what a refinement threw (zod's `safeParse`), when there is one. */
  readonly parse: ((value: unknown) => unknown) | undefined
  /** Set once validation has answered with a promise: the schema is asynchronous, and is not run again. */
  async: boolean
}

const unsendable = 'transforms, custom types and refinements with no JSON Schema form cannot be sent to a model'

/** True when `value` carries a `~standard` property (own or inherited, as zod defines it): a Standard Schema. */
export function hasStandardProps(value: unknown): boolean {
  if ((typeof value !== 'object' || value === null) && typeof value !== 'function') return false
  try {
    return '~standard' in value
  } catch {
    return false
  }
}

function readProps(value: unknown, segments: readonly JsonPathSegment[], problems: SchemaProblem[]): StandardProps | undefined {
  const report = (message: string) => {
    problems.push(schemaProblem(segments, message))
    return undefined
  }
  try {
    const props: unknown = (value as { '~standard': unknown })['~standard']
    if ((typeof props !== 'object' || props === null) && typeof props !== 'function') {
      return report(`"~standard" must be the Standard Schema properties object, got ${describeValue(props)}`)
    }
    const { version, vendor, validate, jsonSchema } = props as Record<string, unknown>
    if (version !== 1) return report(`only Standard Schema version 1 is supported, got ${describeValue(version)}`)
    const name = typeof vendor === 'string' ? vendor : 'the schema library'
    if (typeof validate !== 'function') return report(`a Standard Schema needs a "~standard.validate" function, got ${describeValue(validate)}`)
    if ((typeof jsonSchema !== 'object' || jsonSchema === null) && typeof jsonSchema !== 'function') {
      return report(
        `a ${name} schema without Standard JSON Schema ("~standard.jsonSchema") cannot be sent to a model: ${missingJsonSchemaAdvice(name)}`,
      )
    }
    const { input, output } = jsonSchema as Record<string, unknown>
    if (typeof input !== 'function' || typeof output !== 'function') {
      return report(`"~standard.jsonSchema" must have "input" and "output" functions, got ${describeValue(input)} and ${describeValue(output)}`)
    }
    return {
      vendor: name,
      validate: validate as StandardProps['validate'],
      input: input as StandardProps['input'],
      output: output as StandardProps['output'],
      holder: props,
      converters: jsonSchema,
      parse: zodSafeParse(name, value),
      async: false,
    }
  } catch (error) {
    return report(`reading its "~standard" properties threw: ${errorText(error)}`)
  }
}

function convert(props: StandardProps, side: 'input' | 'output'): ConvertedJsonSchema {
  let converted: unknown
  try {
    converted = props[side].call(props.converters, converterOptionsFor(props.vendor))
  } catch (error) {
    return { problem: `${props.vendor} cannot convert its ${side} to JSON Schema (${errorText(error)}); ${unsendable}` }
  }
  if (observedThenable(converted)) return { problem: `${props.vendor}'s ${side} JSON Schema converter returned a promise; it must answer synchronously` }
  return readConvertedJsonSchema(converted, side, props.vendor)
}

/**
 * Reads a Standard Schema that offers JSON Schema, as a tool's `parameters` (`role: 'parameters'`: it must describe
 * an object, and its input JSON Schema is what the model is sent) or `output.schema` (its output JSON Schema).
 * Both sides are converted once, here: a side that cannot be converted (zod throws for transforms, `z.custom`,
 * dates, …) is a problem recorded at `segments`. Never throws.
 */
export function readStandardSchema(
  value: unknown,
  role: 'parameters' | 'output',
  segments: readonly JsonPathSegment[],
  problems: SchemaProblem[],
): ToolSchemaCheck | undefined {
  const props = readProps(value, segments, problems)
  if (props === undefined) return undefined
  if (props.vendor === 'zod' && zodAsyncFunction(value)) {
    problems.push(schemaProblem(segments, `the zod schema has an async refinement or check: ${asyncAdvice}`))
    return undefined
  }
  const input = convert(props, 'input')
  const output = convert(props, 'output')
  const found = [input.problem, output.problem].filter((problem) => problem !== undefined)
  for (const problem of found) problems.push(schemaProblem(segments, problem))
  if (input.schema === undefined || output.schema === undefined) return undefined
  const sent = role === 'parameters' ? input.schema : output.schema
  if (role === 'parameters' && sent.type !== 'object') {
    const got = sent.type === undefined ? 'no "type"' : `"type": ${JSON.stringify(sent.type)}`
    problems.push(schemaProblem(segments, `must describe an object (JSON Schema "type": "object"), got ${got}`))
    return undefined
  }
  return { jsonSchema: sent, check: (checked) => checkStandard(props, checked) }
}

const asyncAdvice =
  'a tool schema must validate synchronously (the registry checks arguments before any policy runs, and presenters are synchronous); make it synchronous, or check in the tool body'

function failure(violations: Violation[], omitted = 0): SchemaCheckResult {
  return { ok: false, violations, omitted }
}

function rootViolation(keyword: Violation['keyword'], message: string): Violation {
  return { path: '', segments: [], keyword, message }
}

/**
 * A fresh, mutable copy of a lossless JSON snapshot: `~standard.validate` may write into what it is given (arktype
 * applies defaults and morphs in place), which must neither throw on the frozen snapshot nor reach the caller. Its
 * objects inherit nothing (`SNAPSHOT_PROTOTYPE`): zod, valibot and arktype read a missing key as an ordinary
 * property read, which on an `Object.prototype` object would find a polluted prototype's value.
 */
function mutableCopy(value: ReadonlyJsonValue): unknown {
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) return Array.from(value as readonly ReadonlyJsonValue[], mutableCopy)
  const copy = Object.create(SNAPSHOT_PROTOTYPE) as Record<string, unknown>
  for (const key of Object.keys(value)) {
    const entry = mutableCopy((value as Record<string, ReadonlyJsonValue>)[key] as ReadonlyJsonValue)
    if (key === '__proto__') Object.defineProperty(copy, key, { value: entry, enumerable: true, writable: true, configurable: true })
    else copy[key] = entry
  }
  return copy
}

/**
 * Validates with `~standard.validate`, on a detached copy of a lossless JSON snapshot of `value` (so the schema
 * never sees a getter, a proxy or a value that changes later, and what it changes is its own), and snapshots its
 * output the same way (detached, deep-frozen).
 */
function checkStandard(props: StandardProps, value: unknown): SchemaCheckResult {
  const snapshot = snapshotJson(value)
  if (!snapshot.ok) {
    const { path, segments } = snapshot.error
    return failure([{ path, segments, keyword: 'json', message: nonJsonMessage(snapshot.error) }])
  }
  if (props.async) return asyncFailure(props)
  let result: unknown
  try {
    result = props.parse === undefined ? props.validate.call(props.holder, mutableCopy(snapshot.value)) : zodResult(props.parse(mutableCopy(snapshot.value)))
  } catch (error) {
    if (isZodAsyncError(error)) {
      props.async = true
      return asyncFailure(props)
    }
    return failure([rootViolation('schema', `the ${props.vendor} schema threw while validating: ${errorText(error)}`)])
  }
  try {
    if (observedThenable(result)) {
      // Refused, but never left as an unhandled rejection; and never run again.
      props.async = true
      return asyncFailure(props)
    }
    const issues = (result as { issues?: unknown }).issues
    if (issues === undefined) {
      const output = snapshotJson((result as { value?: unknown }).value)
      if (output.ok) return { ok: true, value: output.value }
      const { path, segments } = output.error
      return failure([{ path, segments, keyword: 'json', message: `the ${props.vendor} schema's output ${nonJsonMessage(output.error)}` }])
    }
    return issueViolations(props.vendor, issues, snapshot.value)
  } catch (error) {
    return failure([rootViolation('schema', `reading the ${props.vendor} validation result threw: ${errorText(error)}`)])
  }
}

function asyncFailure(props: StandardProps): SchemaCheckResult {
  const message = `the ${props.vendor} schema validates asynchronously (an async refinement, check or transform): ${asyncAdvice}`
  return failure([rootViolation('schema', message)])
}

function issueViolations(vendor: string, issues: unknown, value: ReadonlyJsonValue): SchemaCheckResult {
  if (!Array.isArray(issues) || issues.length === 0) {
    return failure([rootViolation('schema', `the ${vendor} schema rejected the value without naming an issue`)])
  }
  const violations: Violation[] = []
  for (const issue of (issues as unknown[]).slice(0, DEFAULT_MAX_VIOLATIONS)) violations.push(issueViolation(vendor, issue, value))
  return failure(violations, issues.length - violations.length)
}

function segmentOf(piece: unknown): JsonPathSegment {
  const key = typeof piece === 'object' && piece !== null ? (piece as { key?: unknown }).key : piece
  if (typeof key === 'number' && Number.isInteger(key) && key >= 0) return key
  if (typeof key === 'symbol') return key.description ?? 'symbol'
  return String(key)
}

/** The value at `segments`, read through own properties of a JSON snapshot; `undefined` when there is none. */
function valueAt(value: ReadonlyJsonValue, segments: readonly JsonPathSegment[]): ReadonlyJsonValue | undefined {
  let current: ReadonlyJsonValue | undefined = value
  for (const segment of segments) {
    if (typeof current !== 'object' || current === null || !Object.prototype.hasOwnProperty.call(current, segment)) return undefined
    current = (current as Record<string, ReadonlyJsonValue>)[segment]
  }
  return current
}

function issueViolation(vendor: string, issue: unknown, value: ReadonlyJsonValue): Violation {
  const { message, path } = issue as { message?: unknown; path?: unknown }
  const segments = Array.isArray(path) ? Array.from(path as unknown[], segmentOf) : []
  const found = valueAt(value, segments)
  const at = formatJsonPath(segments)
  const text = typeof message === 'string' && message !== '' ? issueMessage(vendor, message, at, found !== undefined) : 'does not match the schema'
  // Our messages name the offending value; the library's name its rule.
  return { path: at, segments, keyword: 'schema', message: found === undefined ? text : `${text}, got ${describeValue(found)}` }
}

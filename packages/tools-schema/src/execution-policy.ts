import { snapshotJson, type JsonObject, type JsonPathSegment, type ToolExecutionPolicy } from '@dsh/tools-core'
import { describeValue } from './describe-value.js'
import { readOwnObject } from './read-own.js'
import type { ToolSchemaCheck } from './tool-schema-check.js'
import type { Violation } from './violation.js'

/** The largest `timeoutMs`: 2,147,483,647 ms, the most a Node.js timer can wait. */
export const MAX_TIMEOUT_MS = 2_147_483_647

/** The parameter `background: 'optional'` adds: the model's way to ask for the background. */
export const RUN_IN_BACKGROUND = 'run_in_background'

const policyKeys: ReadonlySet<string> = new Set(['background', 'autoBackgroundAfterMs', 'maxRuntimeMs'])
const backgrounds: ReadonlySet<unknown> = new Set(['forbidden', 'optional', 'required'])

const runInBackgroundSchema = {
  type: 'boolean',
  description:
    'Run this call in the background: the result is a task id at once, and task_output reads the output and the final result later. Use it for work that takes long.',
}

/**
 * `execution` of a tool spec as a frozen copy of its own fields (`undefined` when absent), reporting every field that
 * is wrong: an unknown key, a `background` that is not `'forbidden'`, `'optional'` or `'required'`, a budget that is
 * not a positive integer of milliseconds ≤ `MAX_TIMEOUT_MS`.
 */
export function readExecutionPolicy(value: unknown, report: (segments: JsonPathSegment[], message: string) => void): ToolExecutionPolicy | undefined {
  if (value === undefined) return undefined
  const own = readOwnObject(value)
  if (own.entries === undefined) {
    report(['execution'], own.got === undefined ? `reading it threw: ${own.threw}` : `must be an object ({ background?, autoBackgroundAfterMs?, maxRuntimeMs? }), got ${own.got}`)
    return undefined
  }
  const policy: { -readonly [K in keyof ToolExecutionPolicy]: ToolExecutionPolicy[K] } = {}
  for (const [key, field] of own.entries) {
    if (!policyKeys.has(key)) {
      report(['execution', key], `unknown field ${JSON.stringify(key)} (allowed: ${[...policyKeys].join(', ')})`)
    } else if (key === 'background') {
      if (backgrounds.has(field)) policy.background = field as ToolExecutionPolicy['background']
      else report(['execution', key], `must be 'forbidden', 'optional' or 'required', got ${describeValue(field)}`)
    } else if (field !== undefined) {
      if (Number.isInteger(field) && (field as number) > 0 && (field as number) <= MAX_TIMEOUT_MS) policy[key as 'maxRuntimeMs'] = field as number
      else report(['execution', key], `must be a positive integer of milliseconds ≤ ${MAX_TIMEOUT_MS}, got ${describeValue(field)}`)
    }
  }
  if (policy.background !== 'optional' && policy.background !== 'required' && policy.autoBackgroundAfterMs !== undefined) {
    report(['execution', 'autoBackgroundAfterMs'], `needs background: 'optional' or 'required' (a forbidden background never moves a call there)`)
  }
  return Object.freeze(policy)
}

/**
 * The parameters of a tool whose `background` is `'optional'`: its JSON Schema with a `run_in_background` boolean
 * property added (what the model is sent), and a check that accepts that key (a boolean), checks the rest against the
 * tool's own schema, and gives the body the rest. `undefined` (with a problem reported) when the schema already has a
 * `run_in_background` property, or is not an object schema with `properties`.
 */
export function withRunInBackground(parameters: ToolSchemaCheck, report: (segments: JsonPathSegment[], message: string) => void): ToolSchemaCheck | undefined {
  const root = parameters.jsonSchema
  const properties = root['properties']
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) {
    report(['execution', 'background'], `'optional' adds a ${RUN_IN_BACKGROUND} parameter, which needs an object schema with "properties"`)
    return undefined
  }
  if (Object.hasOwn(properties, RUN_IN_BACKGROUND)) {
    report(['parameters', RUN_IN_BACKGROUND], `is reserved by execution.background 'optional', which adds it (rename the parameter, or drop 'optional')`)
    return undefined
  }
  const listed = snapshotJson({ ...root, properties: { ...(properties as JsonObject), [RUN_IN_BACKGROUND]: runInBackgroundSchema } })
  if (!listed.ok) {
    report(['parameters'], `the schema with ${RUN_IN_BACKGROUND} added is not lossless JSON: ${listed.error.message}`)
    return undefined
  }
  return {
    jsonSchema: listed.value as JsonObject,
    check(value) {
      if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, RUN_IN_BACKGROUND)) return parameters.check(value)
      const flag = (value as Record<string, unknown>)[RUN_IN_BACKGROUND]
      if (typeof flag !== 'boolean') {
        const violation: Violation = { path: RUN_IN_BACKGROUND, segments: [RUN_IN_BACKGROUND], keyword: 'type', message: `must be a boolean, got ${describeValue(flag)}` }
        return { ok: false, violations: [violation], omitted: 0 }
      }
      const rest: Record<string, unknown> = {}
      for (const key of Object.keys(value)) if (key !== RUN_IN_BACKGROUND) rest[key] = (value as Record<string, unknown>)[key]
      // A snapshot of the rest (its values are the snapshot's own, reused as they are), so the check sees what the
      // registry would have handed it.
      const snapshot = snapshotJson(rest)
      return parameters.check(snapshot.ok ? snapshot.value : rest)
    },
  }
}

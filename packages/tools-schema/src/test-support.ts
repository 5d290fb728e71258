// Helpers the tests share (not exported from the package).
import { createToolExecutionToken, type ToolExecution } from '@dsh/tools-core'
import { defineTool, type ToolSpec } from './define-tool.js'
import type { StandardSchemaWithJsonSchema } from './standard-schema.js'
import { ToolArgsError } from './tool-args-error.js'
import { ToolDefinitionError } from './tool-definition-error.js'

/** A tool execution of `name` with `args`, as the registry would hand it to `execute`. */
export function execution(name: string, args: unknown): ToolExecution {
  return { callId: 'call_1', name, arguments: args, token: createToolExecutionToken(), signal: new AbortController().signal }
}

/** The problems (`path: message`) of the ToolDefinitionError that `spec` gives; throws when it is accepted. */
export function definitionProblems(spec: Record<string, unknown>): string[] {
  try {
    defineTool(spec as unknown as ToolSpec<StandardSchemaWithJsonSchema>)
  } catch (error) {
    if (ToolDefinitionError.isInstance(error)) return error.problems.map((problem) => `${problem.path}: ${problem.message}`)
    throw error
  }
  throw new Error('defineTool accepted the spec')
}

/** The ToolArgsError `promise` rejects with; throws when it settles otherwise. */
export async function argsError(promise: Promise<unknown>): Promise<ToolArgsError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  if (!ToolArgsError.isInstance(error)) throw new Error(`expected a ToolArgsError, got ${String(error)}`)
  return error
}

/** A finite number as `[n, s]` with `|value| = n / 10^s` and `s >= 0`, from its shortest round-trip text. */
function scaled(value: number): [bigint, number] {
  const [mantissa = '', exponent = '0'] = String(Math.abs(value)).split('e')
  const [whole = '', fraction = ''] = mantissa.split('.')
  const scale = fraction.length - Number(exponent)
  const digits = BigInt(whole + fraction)
  return scale >= 0 ? [digits, scale] : [digits * 10n ** BigInt(-scale), 0]
}

/**
 * The test oracle of `multipleOf` (JSON Schema's definition, written apart from constraints.ts): `value / divisor`
 * is an integer for the decimals the numbers are, `(a / 10^s) / (b / 10^t) = a·10^t / (b·10^s)`.
 */
export function decimalMultiple(value: number, divisor: number): boolean {
  const [a, s] = scaled(value)
  const [b, t] = scaled(divisor)
  return (a * 10n ** BigInt(t)) % (b * 10n ** BigInt(s)) === 0n
}

/**
 * JSON equality as JSON Schema defines it for `uniqueItems` and `const` (written apart from constraints.ts): equal
 * numbers by value, strings, booleans and null by value, arrays element by element, objects by the same own keys
 * with equal values in any order. Own keys only: a property named `constructor` or `toString` is data.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
    return a.every((item, index) => jsonEqual(item, b[index]))
  }
  const keysA = Object.keys(a)
  const keysB = Object.keys(b)
  if (keysA.length !== keysB.length) return false
  return keysA.every((key) => Object.hasOwn(b, key) && jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
}

/** The test oracle of `uniqueItems`: no two elements are {@link jsonEqual} (pair by pair). */
export function jsonUnique(items: readonly unknown[]): boolean {
  for (let later = 1; later < items.length; later++) for (let earlier = 0; earlier < later; earlier++) if (jsonEqual(items[earlier], items[later])) return false
  return true
}

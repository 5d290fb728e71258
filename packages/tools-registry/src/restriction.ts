import type { ToolRestriction } from '@dsh/tools-core'
import { describeValue } from './describe-value.js'
import { InvalidToolPolicyError } from './invalid-tool-policy-error.js'
import { FieldReadError, isArray, isRecord, ownElements, readOwn } from './own-field.js'

/** A {@link ToolRestriction} compiled into private sets, so later changes to the caller's arrays change nothing. */
export interface CompiledRestriction {
  readonly allow: ReadonlySet<string> | undefined
  readonly deny: ReadonlySet<string> | undefined
  /** True for `appliesTo: 'direct'`: nested calls and nested listings see through it. */
  readonly direct: boolean
  readonly hint: string | undefined
}

function compileNames(restriction: object, key: 'allow' | 'deny'): ReadonlySet<string> | undefined {
  const names: unknown = readOwn(restriction, key)
  if (names === undefined) return undefined
  if (!isArray(names, key)) {
    throw new InvalidToolPolicyError(`A restriction's ${key} must be an array of tool names, got ${describeValue(names)}`)
  }
  const set = new Set<string>()
  for (const name of ownElements(names, key)) {
    if (typeof name !== 'string') {
      throw new InvalidToolPolicyError(`A restriction's ${key} must hold tool names (strings), found ${describeValue(name)}`)
    }
    set.add(name)
  }
  return set
}

/**
 * Checks and compiles a restriction, reading own properties only. Throws {@link InvalidToolPolicyError}, also when
 * a field cannot be read (a throwing getter, a revoked proxy): the message names the field.
 */
export function compileRestriction(restriction: ToolRestriction): CompiledRestriction {
  try {
    if (!isRecord(restriction, 'the restriction')) {
      throw new InvalidToolPolicyError(`A restriction must be an object { allow?, deny? }, got ${describeValue(restriction)}`)
    }
    const appliesTo: unknown = readOwn(restriction, 'appliesTo')
    if (appliesTo !== undefined && appliesTo !== 'all' && appliesTo !== 'direct') {
      throw new InvalidToolPolicyError(`A restriction's appliesTo must be 'all' or 'direct', got ${describeValue(appliesTo)}`)
    }
    const hint: unknown = readOwn(restriction, 'hint')
    if (hint !== undefined && typeof hint !== 'string') {
      throw new InvalidToolPolicyError(`A restriction's hint must be a string, got ${describeValue(hint)}`)
    }
    return { allow: compileNames(restriction, 'allow'), deny: compileNames(restriction, 'deny'), direct: appliesTo === 'direct', hint }
  } catch (error) {
    if (!(error instanceof FieldReadError)) throw error
    throw new InvalidToolPolicyError(`A restriction cannot be read: ${error.message}`, { cause: error.cause })
  }
}

/** True when `restriction` admits the global tool `name`. */
export function admitsOne(restriction: CompiledRestriction, name: string): boolean {
  if (restriction.allow !== undefined && !restriction.allow.has(name)) return false
  return restriction.deny === undefined || !restriction.deny.has(name)
}

/**
 * True when every restriction admits the global tool `name` (restrictions intersect); for a `nested` view, the
 * `appliesTo: 'direct'` restrictions do not count.
 */
export function admits(restrictions: readonly CompiledRestriction[], name: string, nested = false): boolean {
  for (const restriction of restrictions) {
    if (nested && restriction.direct) continue
    if (!admitsOne(restriction, name)) return false
  }
  return true
}

import type { JsonPathSegment } from '@dsh/tools-core'
import type { ConstraintKeyword } from './constraints.js'
import { countNoun, formatLines } from './schema-problem.js'

/** Which rule a value broke. */
export type ViolationKeyword =
  /** The value has the wrong JSON type (or is not JSON at all: a Date, a function, NaN, -0, …). */
  | 'type'
  /** A required property is missing. */
  | 'required'
  /** A closed object has a property it does not declare. */
  | 'additionalProperties'
  /** The value is not one of the allowed literals. */
  | 'enum'
  /** The value is not the one allowed literal. */
  | 'const'
  /** The value matches no `oneOf` branch, or more than one. */
  | 'oneOf'
  /** A `json` value (or an extra property of an open object) is not lossless JSON. */
  | 'json'
  /** Reading the value threw (a throwing getter, a revoked proxy). */
  | 'unreadable'
  /** A Standard Schema (zod, valibot, …) rejected the value: its message, at its path. */
  | 'schema'
  /** A value constraint does not hold (`minLength`, `pattern`, `minimum`, `uniqueItems`, …: the keyword broken). */
  | ConstraintKeyword

/** One way a value fails its schema. */
export interface Violation {
  /** Where in the value, formatted like `servers[1].host`; `''` is the value itself. */
  readonly path: string
  /** The same place as segments. */
  readonly segments: readonly JsonPathSegment[]
  /** The rule broken. */
  readonly keyword: ViolationKeyword
  /** What is wrong, in words a model can act on: `expected a string, got the number 42`. */
  readonly message: string
}

/** `servers[1].host: expected a string, got the number 42` (`(root)` stands for the empty path). */
export function formatViolation(violation: Violation): string {
  return `${violation.path === '' ? '(root)' : violation.path}: ${violation.message}`
}

/** `- …` lines for a list of violations, plus `- … and N more` when some were left out. */
export function formatViolations(violations: readonly Violation[], omitted = 0): string {
  return formatLines(violations, '(root)', omitted)
}

/** `3 problems` for a violation list and its omitted count. */
export function countViolations(violations: readonly Violation[], omitted: number): string {
  return countNoun(violations.length + omitted, 'problem')
}

/**
 * The first item of a list, or `undefined` for an empty one. Never `list[0]` on an empty list: that reads index
 * 0 through the prototype, where a polluted `Object.prototype` may hold one.
 */
export function firstOf<T>(list: readonly T[]): T | undefined {
  return list.length > 0 ? list[0] : undefined
}

import { DshError, type DshErrorOptions, type ErrorCode } from '@dsh/tools-core'
import { countViolations, formatViolations, type Violation } from './violation.js'

/**
 * The shared body of the errors that report value violations (`ToolArgsError`, `ToolOutputError`,
 * `StructuredValueError`): the message lists them, one `- path: message` line each. Not exported: each public
 * subclass carries its own brand.
 */
export abstract class ViolationListError extends DshError {
  /** The violations listed in the message. */
  readonly violations: readonly Violation[]
  /** How many violations were left out of the list. */
  readonly omitted: number

  constructor(
    code: ErrorCode,
    heading: string,
    footer: string,
    details: { readonly violations: readonly Violation[]; readonly omitted?: number | undefined },
    options?: DshErrorOptions,
  ) {
    const omitted = details.omitted ?? 0
    super(
      code,
      `${heading} (${countViolations(details.violations, omitted)}):\n${formatViolations(details.violations, omitted)}\n${footer}`,
      options,
    )
    this.violations = Object.freeze([...details.violations])
    this.omitted = omitted
  }
}

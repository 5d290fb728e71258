import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import { ViolationListError } from './violation-list-error.js'
import type { Violation } from './violation.js'

/** What a {@link StructuredValueError} reports. */
export interface StructuredValueErrorDetails {
  /** The violations listed (at most the validator's cap). */
  readonly violations: readonly Violation[]
  /** How many more violations there were beyond the listed ones. */
  readonly omitted?: number | undefined
}

const structuredValueErrorBrand: symbol = errorBrand('StructuredValueError')

/**
 * A structured value (say, a subagent's result) does not match its structured-output schema, or is not lossless
 * JSON (code `INVALID_STRUCTURED_VALUE`). Returned by `validateStructuredValue`; its message is written for the
 * model that produced the value.
 */
export class StructuredValueError extends ViolationListError {
  static override readonly brand: symbol = structuredValueErrorBrand

  /** True when `value` is a {@link StructuredValueError} from any installed copy of tools-schema. */
  static override isInstance(value: unknown): value is StructuredValueError {
    return DshError.hasBrand(value, structuredValueErrorBrand)
  }

  override readonly name: string = 'StructuredValueError'

  /**
   * @param details - the violations and the count of omitted ones
   * @param options - `cause`
   */
  constructor(details: StructuredValueErrorDetails, options?: DshErrorOptions) {
    super(
      'INVALID_STRUCTURED_VALUE',
      'The value does not match the required output schema',
      'Produce a value that matches the schema.',
      details,
      options,
    )
  }
}

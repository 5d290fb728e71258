import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const invalidDecisionErrorBrand: symbol = errorBrand('InvalidDecisionError')

/**
 * A policy hook did not decide properly (code `INVALID_DECISION`), so the call fails closed: a
 * `tools/pre-execute` or `tools/post-execute` listener returned nothing, an unknown `kind`, a `deny` without a
 * reason, or threw; or a guard returned something other than `undefined` or a reason, or threw.
 */
export class InvalidDecisionError extends DshError {
  static override readonly brand: symbol = invalidDecisionErrorBrand

  /** True when `value` is an {@link InvalidDecisionError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is InvalidDecisionError {
    return DshError.hasBrand(value, invalidDecisionErrorBrand)
  }

  override readonly name: string = 'InvalidDecisionError'
  declare readonly code: 'INVALID_DECISION'

  /**
   * @param message - which hook misbehaved, and how
   * @param options - `cause`
   */
  constructor(message: string, options?: DshErrorOptions) {
    super('INVALID_DECISION', message, options)
  }
}

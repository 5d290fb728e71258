import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const timeoutPolicyConfigErrorBrand: symbol = errorBrand('TimeoutPolicyConfigError')

/**
 * The timeout policy's configuration was rejected (code `INVALID_CONFIG`) when the plugin loaded or its
 * configuration was updated. `issues` lists every problem, each starting with the key it concerns
 * (`graceMs: must be an integer from 0 to 2147483647, got -1`).
 */
export class TimeoutPolicyConfigError extends DshError {
  static override readonly brand: symbol = timeoutPolicyConfigErrorBrand

  /** True when `value` is a {@link TimeoutPolicyConfigError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is TimeoutPolicyConfigError {
    return DshError.hasBrand(value, timeoutPolicyConfigErrorBrand)
  }

  override readonly name: string = 'TimeoutPolicyConfigError'
  declare readonly code: 'INVALID_CONFIG'
  /** Every problem found, one per entry. */
  readonly issues: readonly string[]

  /**
   * @param issues - every problem found, each starting with the key it concerns
   * @param options - `cause`
   */
  constructor(issues: readonly string[], options?: DshErrorOptions) {
    super('INVALID_CONFIG', `invalid timeout policy config:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`, options)
    this.issues = Object.freeze([...issues])
  }
}

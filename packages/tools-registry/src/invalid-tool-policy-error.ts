import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const invalidToolPolicyErrorBrand: symbol = errorBrand('InvalidToolPolicyError')

/**
 * A scope, restriction or guard that cannot be installed (code `INVALID_CONFIG`): an agent that is not an
 * object, a restriction whose `allow`/`deny` is not a list of strings, a guard that is not a function.
 * Thrown by `scope`, `restrict` and `guard`.
 */
export class InvalidToolPolicyError extends DshError {
  static override readonly brand: symbol = invalidToolPolicyErrorBrand

  /** True when `value` is an {@link InvalidToolPolicyError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is InvalidToolPolicyError {
    return DshError.hasBrand(value, invalidToolPolicyErrorBrand)
  }

  override readonly name: string = 'InvalidToolPolicyError'
  declare readonly code: 'INVALID_CONFIG'

  /**
   * @param message - what is wrong and what is expected
   * @param options - `cause`
   */
  constructor(message: string, options?: DshErrorOptions) {
    super('INVALID_CONFIG', message, options)
  }
}

import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const invalidToolResultErrorBrand: symbol = errorBrand('InvalidToolResultError')

/**
 * A tool body or a `tools/execute` wrapper produced something that is not a result (code `INVALID_RESULT`):
 * not content blocks, a malformed block, or content, meta or context that is not lossless JSON.
 */
export class InvalidToolResultError extends DshError {
  static override readonly brand: symbol = invalidToolResultErrorBrand

  /** True when `value` is an {@link InvalidToolResultError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is InvalidToolResultError {
    return DshError.hasBrand(value, invalidToolResultErrorBrand)
  }

  override readonly name: string = 'InvalidToolResultError'
  declare readonly code: 'INVALID_RESULT'

  /**
   * @param message - what was produced, and where it is wrong
   * @param options - `cause`
   */
  constructor(message: string, options?: DshErrorOptions) {
    super('INVALID_RESULT', message, options)
  }
}

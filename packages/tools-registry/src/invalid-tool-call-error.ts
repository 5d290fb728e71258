import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const invalidToolCallErrorBrand: symbol = errorBrand('InvalidToolCallError')

/**
 * The input handed to `execute()` is not a tool call (code `INVALID_CALL`): not an object, a `callId` or `name`
 * that is not a string, an `agent` without an id, a `signal` that is not an `AbortSignal`, or an input whose
 * fields could not be read. Nothing else runs: no policy is asked and no tool is looked up.
 */
export class InvalidToolCallError extends DshError {
  static override readonly brand: symbol = invalidToolCallErrorBrand

  /** True when `value` is an {@link InvalidToolCallError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is InvalidToolCallError {
    return DshError.hasBrand(value, invalidToolCallErrorBrand)
  }

  override readonly name: string = 'InvalidToolCallError'
  declare readonly code: 'INVALID_CALL'

  /**
   * @param message - what is wrong with the call
   * @param options - `cause`
   */
  constructor(message: string, options?: DshErrorOptions) {
    super('INVALID_CALL', message, options)
  }
}

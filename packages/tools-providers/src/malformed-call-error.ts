import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import { PROVIDER_ERROR_CODES } from './error-codes.js'

const malformedToolCallErrorBrand: symbol = errorBrand('MalformedToolCallError')

/**
 * A tool call the model sent cannot run (code `PROVIDER_MALFORMED_CALL`): its arguments are not JSON, not one JSON
 * object, not representable losslessly, or it has no name. The call parsers never throw it: they return an error
 * result carrying `{ name: 'MalformedToolCallError', code: 'PROVIDER_MALFORMED_CALL' }` and a text the model can
 * act on, and no policy runs. The class exists so code can throw and recognise the same failure.
 */
export class MalformedToolCallError extends DshError {
  static override readonly brand: symbol = malformedToolCallErrorBrand

  /** True when `value` is a {@link MalformedToolCallError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is MalformedToolCallError {
    return DshError.hasBrand(value, malformedToolCallErrorBrand)
  }

  override readonly name: string = 'MalformedToolCallError'
  declare readonly code: typeof PROVIDER_ERROR_CODES.MALFORMED_CALL

  /**
   * @param message - what is wrong with the call, written for the model
   * @param options - `cause`
   */
  constructor(message: string, options?: DshErrorOptions) {
    super(PROVIDER_ERROR_CODES.MALFORMED_CALL, message, options)
  }
}

import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import { PROVIDER_ERROR_CODES } from './error-codes.js'

const providerToolNameErrorBrand: symbol = errorBrand('ProviderToolNameError')

/**
 * A tool list could not be built because a provider would reject a name in it (code `PROVIDER_INVALID_TOOL_NAME`):
 * the message lists every offending name with the provider's rule, and two tools sharing one name. `names` holds
 * the offending names.
 */
export class ProviderToolNameError extends DshError {
  static override readonly brand: symbol = providerToolNameErrorBrand

  /** True when `value` is a {@link ProviderToolNameError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is ProviderToolNameError {
    return DshError.hasBrand(value, providerToolNameErrorBrand)
  }

  override readonly name: string = 'ProviderToolNameError'
  declare readonly code: typeof PROVIDER_ERROR_CODES.INVALID_TOOL_NAME
  /** The offending names, in list order. */
  readonly names: readonly string[]

  /**
   * @param message - every problem, with the provider's rule
   * @param names - the offending names
   * @param options - `cause`
   */
  constructor(message: string, names: readonly string[], options?: DshErrorOptions) {
    super(PROVIDER_ERROR_CODES.INVALID_TOOL_NAME, message, options)
    this.names = Object.freeze([...names])
  }
}

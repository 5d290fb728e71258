import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import { PROVIDER_ERROR_CODES } from './error-codes.js'

const providerInputErrorBrand: symbol = errorBrand('ProviderInputError')

/**
 * A conversion was handed something that is not what its type says (code `PROVIDER_INVALID_INPUT`): a tool list
 * that is not an array of tool schemas, a provider message that is not the SDK's shape, a result that is not a
 * tool execution result, a result with no matching call. A programming error of the caller, never a model's: what
 * a model controls (a name, the argument text) becomes a `PROVIDER_MALFORMED_CALL` result instead.
 */
export class ProviderInputError extends DshError {
  static override readonly brand: symbol = providerInputErrorBrand

  /** True when `value` is a {@link ProviderInputError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is ProviderInputError {
    return DshError.hasBrand(value, providerInputErrorBrand)
  }

  override readonly name: string = 'ProviderInputError'
  declare readonly code: typeof PROVIDER_ERROR_CODES.INVALID_INPUT

  /**
   * @param message - what is wrong and where
   * @param options - `cause`
   */
  constructor(message: string, options?: DshErrorOptions) {
    super(PROVIDER_ERROR_CODES.INVALID_INPUT, message, options)
  }
}

/** Throws {@link ProviderInputError} unless `options` is an object (a caller passing junk gets a typed error). */
export function assertOptionsObject(options: unknown, what: string): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) throw new ProviderInputError(`${what}: options must be an object`)
}

/**
 * Runs `read` over caller-supplied data; anything it throws that is not already a coded error (a getter that
 * throws, a revoked proxy, a stack overflow on a hostile structure) becomes a {@link ProviderInputError}, so a
 * conversion only ever fails with a typed error.
 */
export function readingInput<T>(what: string, read: () => T): T {
  try {
    return read()
  } catch (error) {
    if (DshError.isInstance(error)) throw error
    const detail = error instanceof Error ? error.message : String(error)
    throw new ProviderInputError(`${what}: reading the input failed (${detail})`, { cause: error })
  }
}

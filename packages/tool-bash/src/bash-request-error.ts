import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const bashRequestErrorBrand: symbol = errorBrand('BashRequestError')

/**
 * A command request was rejected before anything ran (code `INVALID_ARGS`): an empty command, a command holding
 * a NUL byte or longer than 131071 bytes (the most one exec argument may hold on Linux), a timeout that is not an
 * integer from 1 to the configured maximum, a `cwd` that is not a non-empty string (and, from the `bash` tool, an
 * empty `workdir`), a `signal` that is not an `AbortSignal`.
 */
export class BashRequestError extends DshError {
  static override readonly brand: symbol = bashRequestErrorBrand

  /** True when `value` is a {@link BashRequestError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is BashRequestError {
    return DshError.hasBrand(value, bashRequestErrorBrand)
  }

  override readonly name: string = 'BashRequestError'
  /** The request field at fault: `command`, `timeoutMs`, `cwd` or `signal` (`workdir` when the `bash` tool rejects its argument). */
  readonly field: string

  constructor(field: string, message: string, options?: DshErrorOptions) {
    super('INVALID_ARGS', message, options)
    this.field = field
  }
}

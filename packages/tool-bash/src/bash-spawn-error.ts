import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import { BASH_ERROR_CODES } from './bash-error-codes.js'

const bashSpawnErrorBrand: symbol = errorBrand('BashSpawnError')

/**
 * A command could not be started (code `BASH_SPAWN_FAILED`): its working directory does not exist or is not a
 * directory, the shell could not be executed, the system refused a new process, or the executor was disposed.
 * The message says which, with the path; `cause` holds the system error when there is one.
 */
export class BashSpawnError extends DshError {
  static override readonly brand: symbol = bashSpawnErrorBrand

  /** True when `value` is a {@link BashSpawnError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is BashSpawnError {
    return DshError.hasBrand(value, bashSpawnErrorBrand)
  }

  override readonly name: string = 'BashSpawnError'
  /** The working directory the command was meant to run in. */
  readonly cwd: string

  constructor(message: string, cwd: string, options?: DshErrorOptions) {
    super(BASH_ERROR_CODES.SPAWN_FAILED, message, options)
    this.cwd = cwd
  }
}

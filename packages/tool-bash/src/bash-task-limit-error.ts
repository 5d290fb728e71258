import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import { BASH_ERROR_CODES } from './bash-error-codes.js'

const bashTaskLimitErrorBrand: symbol = errorBrand('BashTaskLimitError')

/**
 * `bash` with `run_in_background` was refused because the calling agent already has as many background tasks
 * running as the plugin allows (code `BASH_TASK_LIMIT`, config `maxBackgroundTasks`). Nothing was started.
 */
export class BashTaskLimitError extends DshError {
  static override readonly brand: symbol = bashTaskLimitErrorBrand

  /** True when `value` is a {@link BashTaskLimitError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is BashTaskLimitError {
    return DshError.hasBrand(value, bashTaskLimitErrorBrand)
  }

  override readonly name: string = 'BashTaskLimitError'
  /** The limit in effect: background tasks one agent may have running at once. */
  readonly limit: number

  constructor(limit: number, message: string, options?: DshErrorOptions) {
    super(BASH_ERROR_CODES.TASK_LIMIT, message, options)
    this.limit = limit
  }
}

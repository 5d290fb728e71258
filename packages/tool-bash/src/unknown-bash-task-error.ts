import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import { BASH_ERROR_CODES } from './bash-error-codes.js'

const unknownBashTaskErrorBrand: symbol = errorBrand('UnknownBashTaskError')

/**
 * `bash_output` or `bash_kill` named a background task the calling agent does not have (code `BASH_UNKNOWN_TASK`): no
 * such id, a task another agent started, a finished task whose final output was already read, or one of the
 * caller's finished tasks that was dropped unread (past `finishedTaskRetentionMs` or `maxFinishedTasks`). The
 * message is the same in every case except the last, where it tells the owner (only) that the task expired and
 * why, so an agent cannot learn whether another agent's task exists; it lists the caller's own tasks.
 */
export class UnknownBashTaskError extends DshError {
  static override readonly brand: symbol = unknownBashTaskErrorBrand

  /** True when `value` is an {@link UnknownBashTaskError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is UnknownBashTaskError {
    return DshError.hasBrand(value, unknownBashTaskErrorBrand)
  }

  override readonly name: string = 'UnknownBashTaskError'
  /** The task id that was asked for. */
  readonly taskId: string

  constructor(taskId: string, message: string, options?: DshErrorOptions) {
    super(BASH_ERROR_CODES.UNKNOWN_TASK, message, options)
    this.taskId = taskId
  }
}

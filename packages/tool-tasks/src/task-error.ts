import { DshError, errorBrand, TASK_ERROR_CODES, type DshErrorOptions } from '@dsh/tools-core'

const taskErrorBrand: symbol = errorBrand('TaskError')

/** The codes a {@link TaskError} carries. */
export type TaskErrorCode = (typeof TASK_ERROR_CODES)[keyof typeof TASK_ERROR_CODES]

/**
 * A task tool's failure the model can act on: `TASK_UNKNOWN` (no task with that id is visible to the caller; another
 * agent's id reads exactly the same), `TASK_EXPIRED` (it was dropped, with why), `TASK_HOST_RESTARTED` (it belonged to
 * an earlier run of the host), `TASK_LIMIT` (a cap on running tasks was reached, so the call was not started).
 */
export class TaskError extends DshError {
  static override readonly brand: symbol = taskErrorBrand

  /** True when `value` is a {@link TaskError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is TaskError {
    return DshError.hasBrand(value, taskErrorBrand)
  }

  override readonly name: string = 'TaskError'

  constructor(code: TaskErrorCode, message: string, options?: DshErrorOptions) {
    super(code, message, options)
  }
}

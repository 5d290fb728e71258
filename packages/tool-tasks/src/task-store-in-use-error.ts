import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import { TASK_STORE_ERROR_CODES } from './jsonl-task-store-constants.js'

const taskStoreInUseErrorBrand: symbol = errorBrand('TaskStoreInUseError')

/**
 * A second {@link JsonlTaskStore} was created on a file that a store of this process holds open (code
 * `TASK_STORE_IN_USE`). Close the first one, or share it. Stores in two processes are not detected (see
 * {@link JsonlTaskStore}).
 */
export class TaskStoreInUseError extends DshError {
  static override readonly brand: symbol = taskStoreInUseErrorBrand

  /** True when `value` is a {@link TaskStoreInUseError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is TaskStoreInUseError {
    return DshError.hasBrand(value, taskStoreInUseErrorBrand)
  }

  override readonly name: string = 'TaskStoreInUseError'
  /** The file (absolute, normalised). */
  readonly path: string

  constructor(path: string, options?: DshErrorOptions) {
    super(
      TASK_STORE_ERROR_CODES.IN_USE,
      `task store file ${path} is already open in this process: one JsonlTaskStore per file (close the other first)`,
      options,
    )
    this.path = path
  }
}

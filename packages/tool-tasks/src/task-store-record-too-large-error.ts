import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import { MAX_JSONL_TASK_STORE_LINE_BYTES, TASK_STORE_ERROR_CODES } from './jsonl-task-store-constants.js'

const taskStoreRecordTooLargeErrorBrand: symbol = errorBrand('TaskStoreRecordTooLargeError')

/**
 * `save` was given a task whose line would exceed {@link MAX_JSONL_TASK_STORE_LINE_BYTES} (code
 * `TASK_STORE_RECORD_TOO_LARGE`), reported through `onError`. With `resultDropped` the task was stored without its
 * `result` (after a restart it reads as never delivered); without it, even that was too large and nothing was written.
 */
export class TaskStoreRecordTooLargeError extends DshError {
  static override readonly brand: symbol = taskStoreRecordTooLargeErrorBrand

  /** True when `value` is a {@link TaskStoreRecordTooLargeError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is TaskStoreRecordTooLargeError {
    return DshError.hasBrand(value, taskStoreRecordTooLargeErrorBrand)
  }

  override readonly name: string = 'TaskStoreRecordTooLargeError'
  /** The file. */
  readonly path: string
  /** The task's id. */
  readonly taskId: string
  /** The full line's size in UTF-8 bytes. */
  readonly bytes: number
  /** The limit ({@link MAX_JSONL_TASK_STORE_LINE_BYTES}). */
  readonly limit: number
  /** True when the task was stored without its result; false when nothing was written. */
  readonly resultDropped: boolean

  constructor(path: string, taskId: string, bytes: number, resultDropped: boolean, options?: DshErrorOptions) {
    super(
      TASK_STORE_ERROR_CODES.RECORD_TOO_LARGE,
      `task store file ${path}: the record of task ${JSON.stringify(taskId)} is ${bytes} bytes, over the ${MAX_JSONL_TASK_STORE_LINE_BYTES}-byte line limit; ${
        resultDropped ? 'stored without its result' : 'not written'
      }`,
      options,
    )
    this.path = path
    this.taskId = taskId
    this.bytes = bytes
    this.limit = MAX_JSONL_TASK_STORE_LINE_BYTES
    this.resultDropped = resultDropped
  }
}

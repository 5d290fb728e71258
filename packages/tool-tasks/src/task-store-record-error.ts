import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import { TASK_STORE_ERROR_CODES } from './jsonl-task-store-constants.js'

const taskStoreRecordErrorBrand: symbol = errorBrand('TaskStoreRecordError')

/**
 * A record without the shape of a `StoredTask` (or of a drop) (code `TASK_STORE_INVALID_RECORD`), reported through
 * `onError`: read from the file by `load` (`line` set; the record is skipped, the id keeps its previous record), or
 * passed to `save`/`drop` (`line` undefined; nothing is written).
 */
export class TaskStoreRecordError extends DshError {
  static override readonly brand: symbol = taskStoreRecordErrorBrand

  /** True when `value` is a {@link TaskStoreRecordError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is TaskStoreRecordError {
    return DshError.hasBrand(value, taskStoreRecordErrorBrand)
  }

  override readonly name: string = 'TaskStoreRecordError'
  /** The file. */
  readonly path: string
  /** The line it was read from, counted from 1; undefined for a record passed to `save` or `drop`. */
  readonly line: number | undefined
  /** The task's id, when the record has a readable one. */
  readonly taskId: string | undefined
  /** What is wrong with it. */
  readonly problem: string

  constructor(path: string, line: number | undefined, taskId: string | undefined, problem: string, options?: DshErrorOptions) {
    const what = taskId === undefined ? 'a record' : `the record of task ${JSON.stringify(taskId)}`
    super(
      TASK_STORE_ERROR_CODES.INVALID_RECORD,
      line === undefined
        ? `task store file ${path}: ${what} was not written: ${problem}`
        : `task store file ${path}, line ${line}: ${what} was skipped: ${problem}`,
      options,
    )
    this.path = path
    this.line = line
    this.taskId = taskId
    this.problem = problem
  }
}

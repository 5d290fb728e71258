import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import { TASK_STORE_ERROR_CODES } from './jsonl-task-store-constants.js'

const taskStoreCorruptErrorBrand: symbol = errorBrand('TaskStoreCorruptError')

/**
 * A line of the task file is not a record (code `TASK_STORE_CORRUPT`): not UTF-8, not JSON, not an object with a
 * format version `v`, or longer than {@link MAX_JSONL_TASK_STORE_LINE_BYTES}. `load` rejects with it for a complete
 * line (one ending in a newline): the file needs a person (move it aside, or repair line `line`). For the file's last
 * line when it has no newline (`torn`: a write cut short by a crash) it is reported through `onError` instead, and
 * the line is skipped.
 */
export class TaskStoreCorruptError extends DshError {
  static override readonly brand: symbol = taskStoreCorruptErrorBrand

  /** True when `value` is a {@link TaskStoreCorruptError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is TaskStoreCorruptError {
    return DshError.hasBrand(value, taskStoreCorruptErrorBrand)
  }

  override readonly name: string = 'TaskStoreCorruptError'
  /** The file. */
  readonly path: string
  /** The line, counted from 1. */
  readonly line: number
  /** True for a last line without its newline (skipped, not fatal). */
  readonly torn: boolean
  /** What is wrong with the line. */
  readonly problem: string

  constructor(path: string, line: number, problem: string, torn: boolean, options?: DshErrorOptions) {
    super(
      TASK_STORE_ERROR_CODES.CORRUPT,
      torn
        ? `task store file ${path}, line ${line}: the last line is torn (${problem}); skipped, as a write cut short by a crash`
        : `task store file ${path}, line ${line}: ${problem}. The store will not read or write this file until the line is repaired or the file is moved aside`,
      options,
    )
    this.path = path
    this.line = line
    this.torn = torn
    this.problem = problem
  }
}

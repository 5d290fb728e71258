import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import { TASK_STORE_ERROR_CODES } from './jsonl-task-store-constants.js'

/** Why {@link JsonlTaskStore} refused a call (see {@link TaskStoreUnavailableError}). */
export type TaskStoreUnavailableReason = 'not-loaded' | 'load-failed' | 'closed'

const taskStoreUnavailableErrorBrand: symbol = errorBrand('TaskStoreUnavailableError')

/**
 * {@link JsonlTaskStore} refused a call (code `TASK_STORE_UNAVAILABLE`): `save`/`drop` before `load` (`not-loaded`),
 * after a `load` that failed (`load-failed`, with that failure as `cause`: a file the store could not read is never
 * written to), or after `close` (`closed`; `load` after `close` rejects with it). `save` and `drop` report it through
 * `onError` and write nothing.
 */
export class TaskStoreUnavailableError extends DshError {
  static override readonly brand: symbol = taskStoreUnavailableErrorBrand

  /** True when `value` is a {@link TaskStoreUnavailableError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is TaskStoreUnavailableError {
    return DshError.hasBrand(value, taskStoreUnavailableErrorBrand)
  }

  override readonly name: string = 'TaskStoreUnavailableError'
  /** The file. */
  readonly path: string
  /** The refused call. */
  readonly operation: 'load' | 'save' | 'drop'
  /** Why. */
  readonly reason: TaskStoreUnavailableReason

  constructor(path: string, operation: 'load' | 'save' | 'drop', reason: TaskStoreUnavailableReason, options?: DshErrorOptions) {
    const why = reason === 'closed' ? 'the store is closed' : reason === 'not-loaded' ? 'load() has not run yet' : 'load() failed'
    super(TASK_STORE_ERROR_CODES.UNAVAILABLE, `task store file ${path}: ${operation} refused: ${why}`, options)
    this.path = path
    this.operation = operation
    this.reason = reason
  }
}

import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import { TASK_STORE_ERROR_CODES } from './jsonl-task-store-constants.js'

/** What {@link JsonlTaskStore} was doing when the file system refused (see {@link TaskStoreIoError}). */
export type TaskStoreOperation = 'read' | 'open' | 'append' | 'truncate' | 'compact' | 'sync' | 'close'

const taskStoreIoErrorBrand: symbol = errorBrand('TaskStoreIoError')

/**
 * The file system refused an operation of {@link JsonlTaskStore} (code `TASK_STORE_IO_FAILED`); the `cause` is the
 * Node.js error. `load` rejects with it when the file exists but cannot be read; every other operation reports it
 * through `onError` and the store keeps going (a record whose append failed is rewritten by the next compaction).
 */
export class TaskStoreIoError extends DshError {
  static override readonly brand: symbol = taskStoreIoErrorBrand

  /** True when `value` is a {@link TaskStoreIoError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is TaskStoreIoError {
    return DshError.hasBrand(value, taskStoreIoErrorBrand)
  }

  override readonly name: string = 'TaskStoreIoError'
  /** The file. */
  readonly path: string
  /** What the store was doing. */
  readonly operation: TaskStoreOperation

  constructor(path: string, operation: TaskStoreOperation, options?: DshErrorOptions) {
    const reason = options?.cause instanceof Error ? `: ${options.cause.message}` : ''
    super(TASK_STORE_ERROR_CODES.IO_FAILED, `task store file ${path}: ${operation} failed${reason}`, options)
    this.path = path
    this.operation = operation
  }
}

import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import { JSONL_TASK_STORE_FORMAT_VERSION, TASK_STORE_ERROR_CODES } from './jsonl-task-store-constants.js'

const taskStoreVersionErrorBrand: symbol = errorBrand('TaskStoreVersionError')

/**
 * A line of the task file has a format version newer than this store reads (code `TASK_STORE_UNSUPPORTED_VERSION`):
 * a newer release wrote the file. `load` rejects with it and the store leaves the file untouched.
 */
export class TaskStoreVersionError extends DshError {
  static override readonly brand: symbol = taskStoreVersionErrorBrand

  /** True when `value` is a {@link TaskStoreVersionError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is TaskStoreVersionError {
    return DshError.hasBrand(value, taskStoreVersionErrorBrand)
  }

  override readonly name: string = 'TaskStoreVersionError'
  /** The file. */
  readonly path: string
  /** The line, counted from 1. */
  readonly line: number
  /** The version the line declares. */
  readonly version: number
  /** The newest version this store reads ({@link JSONL_TASK_STORE_FORMAT_VERSION}). */
  readonly supportedVersion: number

  constructor(path: string, line: number, version: number, options?: DshErrorOptions) {
    super(
      TASK_STORE_ERROR_CODES.UNSUPPORTED_VERSION,
      `task store file ${path}, line ${line}: format version ${version} is newer than this store reads (${JSONL_TASK_STORE_FORMAT_VERSION}); upgrade @dsh/tool-tasks or move the file aside`,
      options,
    )
    this.path = path
    this.line = line
    this.version = version
    this.supportedVersion = JSONL_TASK_STORE_FORMAT_VERSION
  }
}

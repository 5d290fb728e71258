import { defineToolErrorCodes } from '@dsh/tools-core'

/** The line format version {@link JsonlTaskStore} writes, and the newest it reads. */
export const JSONL_TASK_STORE_FORMAT_VERSION = 1

/**
 * The longest line {@link JsonlTaskStore} writes or reads, in UTF-8 bytes without the newline: 16 MiB. A task whose
 * line would be longer is stored without its `result`; a longer line in a file is not one the store wrote.
 */
export const MAX_JSONL_TASK_STORE_LINE_BYTES = 16 * 1024 * 1024

/** The default of {@link JsonlTaskStoreOptions.compactAfter}. */
export const DEFAULT_JSONL_TASK_STORE_COMPACT_AFTER = 1000

/**
 * The error codes of {@link JsonlTaskStore}, in the `TASK_STORE` family: `TASK_STORE_CORRUPT` (a line is not a
 * record), `TASK_STORE_UNSUPPORTED_VERSION` (a line of a newer format), `TASK_STORE_INVALID_RECORD` (a record without
 * the `StoredTask` shape), `TASK_STORE_RECORD_TOO_LARGE` (a line over {@link MAX_JSONL_TASK_STORE_LINE_BYTES}),
 * `TASK_STORE_IO_FAILED` (the file system refused), `TASK_STORE_IN_USE` (a second store on one file in this process),
 * `TASK_STORE_UNAVAILABLE` (a call the store cannot take now: before `load`, after a failed `load`, after `close`).
 * They reach the host (through `onError` or a rejected `load`), never the model.
 */
export const TASK_STORE_ERROR_CODES = defineToolErrorCodes('TASK_STORE', [
  'CORRUPT',
  'UNSUPPORTED_VERSION',
  'INVALID_RECORD',
  'RECORD_TOO_LARGE',
  'IO_FAILED',
  'IN_USE',
  'UNAVAILABLE',
])

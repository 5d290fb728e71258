// The registry's types add `ctx.tools` to cordis's Context; the import has no run-time cost.
import type {} from '@dsh/tools-registry'
import { TaskService } from './task-service.js'

export {
  DEFAULT_JSONL_TASK_STORE_COMPACT_AFTER,
  JSONL_TASK_STORE_FORMAT_VERSION,
  JsonlTaskStore,
  MAX_JSONL_TASK_STORE_LINE_BYTES,
  TASK_STORE_ERROR_CODES,
  TaskStoreConfigError,
  TaskStoreCorruptError,
  TaskStoreInUseError,
  TaskStoreIoError,
  TaskStoreRecordError,
  TaskStoreRecordTooLargeError,
  TaskStoreUnavailableError,
  TaskStoreVersionError,
  type JsonlTaskStoreOptions,
  type JsonlTaskStoreProblem,
  type TaskStoreOperation,
  type TaskStoreUnavailableReason,
} from './jsonl-task-store.js'
export { TaskLayerConfigError } from './task-layer-config-error.js'
export { resolveTaskLayerConfig, TASK_LAYER_DEFAULTS, type ResolvedTaskLayerConfig, type TaskLayerConfig } from './task-config.js'
export { taskOf, type TaskContext } from './task-context.js'
export { taskCard, taskKillResult, taskOutputResult } from './task-tools.js'
export { TaskError, type TaskErrorCode } from './task-error.js'
export type { OutputRead } from './task-output.js'
export { MAX_WAIT_MS, TaskService, type StartedTask, type TaskRead, type TaskReadOptions, type TaskRunResult } from './task-service.js'
export type { StoredTask, StoredTaskResult, TaskStore } from './task-store.js'

/** The plugin: `ctx.plugin(TaskService, config)` (also the default export). */
export default TaskService

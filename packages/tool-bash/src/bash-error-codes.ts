import { defineToolErrorCodes } from '@dsh/tools-core'

/**
 * The error codes the bash tools own, in the `BASH` family (declared with `defineToolErrorCodes` of
 * `@dsh/tools-core`): `BASH_SPAWN_FAILED` ({@link BashSpawnError}: a command could not be started),
 * `BASH_UNKNOWN_TASK` ({@link UnknownBashTaskError}: no such background task for this agent) and `BASH_TASK_LIMIT`
 * ({@link BashTaskLimitError}: the agent already runs as many background tasks as allowed). They travel in
 * `result.error.code`; the other bash errors use core codes (`INVALID_ARGS`, `INVALID_CONFIG`, `ABORTED`).
 */
export const BASH_ERROR_CODES = defineToolErrorCodes('BASH', ['SPAWN_FAILED', 'UNKNOWN_TASK', 'TASK_LIMIT'])

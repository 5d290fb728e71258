export type {
  BashExecutor,
  BashExecutorLimits,
  BashRequest,
  BashResult,
  BashStopReason,
  BashTask,
  BashTaskOutcome,
  BashTaskOutput,
  BashTaskStatus,
  CapturedOutput,
  ResolveBashRequestOptions,
  ResolvedBashRequest,
  SpillInfo,
} from './bash-executor.js'
export { BashConfigError } from './bash-config-error.js'
export { BashRequestError } from './bash-request-error.js'
export { BashSpawnError } from './bash-spawn-error.js'
export {
  DEFAULT_ALLOWED_ENV,
  EXPORTED_FUNCTION_PREFIX,
  FIXED_ENV,
  SECRET_ENV_PATTERNS,
  SHELL_HOOK_ENV_NAMES,
  createCommandEnvironment,
  isSecretEnvName,
  isShellHookEnvName,
  type CommandEnvironmentOptions,
} from './command-environment.js'
export {
  LOCAL_BASH_DEFAULTS,
  resolveLocalBashConfig,
  type LocalBashConfig,
  type ResolvedLocalBashConfig,
} from './local-bash-config.js'
export { LocalBashExecutor } from './local-bash-executor.js'

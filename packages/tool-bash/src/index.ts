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
export { BashAbortedError, type BashAbortReason } from './bash-aborted-error.js'
export { BashConfigError } from './bash-config-error.js'
export { ByteWindow, type WindowText } from './byte-window.js'
export type { BashLaunchContext, BashLauncher, BashLaunchPlan } from './bash-launcher.js'
export { BASH_ERROR_CODES } from './bash-error-codes.js'
export { BashRequestError } from './bash-request-error.js'
export { BashSpawnError } from './bash-spawn-error.js'
export { BashTaskLimitError } from './bash-task-limit-error.js'
export type { BashRunMeta, BashStartMeta, BashStreamMeta, BashTaskMeta } from './bash-tool-meta.js'
export { BASH_GUIDANCE_ID, bashGuidance, type BashGuidanceOptions } from './bash-guidance.js'
export { BashTools, type BashToolsPlugin } from './bash-tools.js'
export {
  BASH_TOOLS_DEFAULTS,
  resolveBashToolsConfig,
  type BashConfigSchema,
  type BashToolsConfig,
  type ResolvedBashToolsConfig,
} from './bash-tools-config.js'
export { BashToolsConfigError } from './bash-tools-config-error.js'
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
export { formatBashResult, formatBashTaskOutput } from './format-bash-output.js'
export {
  LOCAL_BASH_DEFAULTS,
  resolveLocalBashConfig,
  type LocalBashConfig,
  type ResolvedLocalBashConfig,
} from './local-bash-config.js'
export { LocalBashExecutor } from './local-bash-executor.js'
export {
  LocalBashTools,
  resolveLocalBashToolsConfig,
  type LocalBashToolsConfig,
  type LocalBashToolsPlugin,
  type ResolvedLocalBashToolsConfig,
} from './local-bash-tools.js'
export { UnknownBashTaskError } from './unknown-bash-task-error.js'

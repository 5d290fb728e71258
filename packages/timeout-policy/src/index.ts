export {
  Config,
  TIMEOUT_POLICY_DEFAULTS,
  resolveTimeoutBudget,
  resolveTimeoutPolicyConfig,
  type ResolvedTimeoutPolicyConfig,
  type TimeoutPolicyConfigSchema,
} from './config.js'
export type { LateSettlement } from './events.js'
export { TimeoutPolicyConfigError } from './timeout-policy-config-error.js'
export { TimeoutPolicy, TimeoutPolicy as default, apply, inject, name, type TimeoutPolicyPlugin } from './timeout-policy.js'
export { ToolTimeoutAbandonedError } from './tool-timeout-abandoned-error.js'
export { ToolTimeoutError } from './tool-timeout-error.js'

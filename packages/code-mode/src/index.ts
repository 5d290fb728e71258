// The registry's types add `ctx.tools` to cordis's Context; the import has no run-time cost.
import type {} from '@dsh/tools-registry'
import { CodeMode } from './code-mode.js'

export { CODE_ERROR_CODES } from './code-error-codes.js'
export {
  CODE_LIMIT_DEFAULTS,
  CODE_MODE_DEFAULTS,
  CodeModeConfigError,
  resolveCodeModeConfig,
  type CodeModeConfig,
  type ResolvedCodeModeConfig,
} from './code-mode-config.js'
export { CodeMode, type CodeModeSetting } from './code-mode.js'
export type {
  CodeBridge,
  CodeCallError,
  CodeCallOutcome,
  CodeLimits,
  CodeOutcome,
  CodeRunRequest,
  CodeRuntime,
} from './code-runtime.js'
export { CodeSyntaxError } from './code-syntax-error.js'
export { RUN_CODE, type RunCodeMeta } from './run-code.js'
export { QUICKJS_MAX_STACK_BYTES, QuickJsRuntime, type QuickJsRuntimeOptions } from './runtime/quickjs-runtime.js'
export { renderSdk, schemaType, toolIdentifier, type CodeSdk, type RenderSdkOptions, type SdkOmission, type SdkSource, type SdkTool } from './sdk.js'
export { stripTypes } from './strip-types.js'
export { ledger, type SubCallRecord } from './sub-calls.js'

/** The plugin: `ctx.plugin(CodeMode, config)` (also the default export). */
export default CodeMode

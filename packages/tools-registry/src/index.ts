export { DuplicateToolError } from './duplicate-tool-error.js'
export type { ToolChange } from './events.js'
export type { ToolCallApprovalRequest, ToolCallApprover, ToolExecuteOptions } from './execute-options.js'
export type { ToolEventName } from './hook-table.js'
export { InvalidDecisionError } from './invalid-decision-error.js'
export { InvalidToolDefinitionError } from './invalid-tool-definition-error.js'
export { InvalidStepOptionsError } from './invalid-step-options-error.js'
export type { ExecuteStepOptions, ScopedExecuteStepOptions, StepBatch, StepCall, StepContext, ToolStepResult } from './step-types.js'
export { InvalidToolPolicyError } from './invalid-tool-policy-error.js'
export { InvalidToolResultError } from './invalid-tool-result-error.js'
export { PostExecuteBlockedError } from './post-execute-blocked-error.js'
export { ToolAbortedError } from './tool-aborted-error.js'
export { ToolDeniedError, type ToolDenialCode } from './tool-denied-error.js'
export { InvalidToolCallError } from './invalid-tool-call-error.js'
export { ToolFailedError } from './tool-failed-error.js'
export { ToolNotFoundError } from './tool-not-found-error.js'
export type { ToolAnnotations, ToolExecutionMode, ToolRegistration } from './tool-record.js'
export { TOOL_REGISTRY_DEFAULTS, ToolRegistry, ToolRegistry as default, type ToolRegistryConfig, type ToolViewOptions } from './tool-registry.js'
export { contributeToSystemPrompt, type SystemPromptWarning } from './system-prompt-feed.js'
export type { ScopedToolExecutionInput, ToolCallTarget, ToolScope } from './tool-scope.js'
export {
  CORDIS_INSTALL,
  CORDIS_RANGE,
  checkCordisHost,
  isCordis4Context,
  withCordisHostCheck,
  type CordisHostCheckOptions,
} from './cordis-host.js'
export { CordisHostError } from './cordis-host-error.js'
export { HOST_SIGNALS, onHostExit } from './host-exit.js'
export { notifyListeners } from './notify-listeners.js'
export { toolRegistryMissingText, warnIfToolRegistryMissing } from './tool-registry-missing.js'
// The tool author's surface of @dsh/tools-schema, re-exported (the same bindings, not copies) so that one import
// brings both `defineTool` and the `ctx.tools` typing of this package's `declare module 'cordis'` augmentation.
export {
  defineParameters,
  defineTool,
  defineValueSchema,
  ToolArgsError,
  ToolDefinitionError,
  ToolOutputError,
  type ArraySchemaSpec,
  type BooleanSchemaSpec,
  type DefinedTool,
  type InferArgs,
  type InferValue,
  type IntegerSchemaSpec,
  type JsonValueSchemaSpec,
  type NullSchemaSpec,
  type NumberSchemaSpec,
  type ObjectSchemaSpec,
  type OneOfSchemaSpec,
  type ParameterSchemaSpec,
  type SchemaAnnotations,
  type SchemaProp,
  type SchemaSpec,
  type SchemaType,
  type StringSchemaSpec,
  type ToolBodyReturn,
  type ToolContentReturn,
  type ToolInvokeResult,
  type ToolOutputSpec,
  type ToolSpec,
  type ToolSpecBase,
  type TypedToolResult,
  type ValueSchemaSpec,
} from '@dsh/tools-schema'

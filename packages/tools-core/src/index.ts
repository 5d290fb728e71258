export {
  abortIsolated,
  isAbortSignal,
  listenForAbort,
  signalAborted,
  signalReason,
  type AbortListenerReport,
} from './abort-signals.js'
export type { AgentInjectOptions, Agent } from './agent.js'
export type { ToolApprovalOutcome, ToolApprovalRequest, ToolApprovalService } from './approval.js'
export type {
  AudioContent,
  BlobResourceContents,
  ContentAnnotations,
  ContentBlock,
  ContentBlockType,
  EmbeddedResourceContent,
  ImageContent,
  ResourceLinkContent,
  TextContent,
  TextResourceContents,
} from './content.js'
export { deepFreeze, type DeepReadonly } from './deep-freeze.js'
export { DshError, errorBrand, findUnbrandedErrorClasses, type DshErrorOptions, type ToolErrorInfo } from './dsh-error.js'
export { ERROR_CODES, isErrorCode, type ErrorCode } from './error-codes.js'
export type { JsonArray, JsonObject, JsonPrimitive, JsonValue, ReadonlyJsonValue } from './json.js'
export { describeJsonPath, formatJsonPath, type JsonPathSegment } from './json-path.js'
export {
  isJsonValue,
  MAX_JSON_DEPTH,
  MAX_JSON_SIZE,
  snapshotJson,
  toJsonValue,
  type JsonSnapshotFailure,
  type JsonSnapshotOptions,
  type JsonSnapshotResult,
  type NonJsonReason,
} from './json-snapshot.js'
export { isEmptyPrototype, SNAPSHOT_PROTOTYPE } from './snapshot-prototype.js'
export {
  isTerminalTaskStatus,
  TASK_ERROR_CODES,
  TERMINAL_TASK_STATUSES,
  type TaskProgress,
  type TaskSnapshot,
  type TaskStatus,
  type ToolBackground,
  type ToolExecutionPolicy,
} from './task.js'
export { InvalidErrorCodeError } from './invalid-error-code-error.js'
export { NonJsonValueError } from './non-json-value-error.js'
export { ToolContentError, type ToolContentErrorOptions } from './tool-content-error.js'
export type {
  CodeCallView,
  CodeLanguage,
  CodeResultView,
  CodeRunStatus,
  CodeSubCall,
  DiffCallView,
  DiffResultView,
  FileDiff,
  FileLocation,
  GenericCallView,
  GenericResultView,
  TerminalCallView,
  TaskResultView,
  TerminalResultView,
  ToolCallKind,
  ToolCallView,
  ToolCardKind,
  ToolResultView,
} from './presentation.js'
export {
  SYSTEM_PROMPT_SERVICE,
  type SystemPromptAssembly,
  type SystemPromptSection,
  type SystemPromptSectionProvider,
  type SystemPromptService,
  type SystemPromptToolProvider,
  type SystemPromptTools,
} from './system-prompt.js'
export {
  createToolExecutionToken,
  type CallId,
  type HookContext,
  type PostToolAccept,
  type PostToolBlock,
  type PostToolDecision,
  type PreToolDecision,
  type ToolArgumentsAccepted,
  type ToolArgumentsCheck,
  type ToolArgumentsRejected,
  type ToolAnnotations,
  type ToolDefinition,
  type ToolExecuteObjectReturn,
  type ToolExecuteReturn,
  type ToolExecution,
  type ToolExecutionInput,
  type ToolExecutionResult,
  type ToolExecutionToken,
  type ToolGuard,
  type ToolOutputSchema,
  type ToolParametersSchema,
  type ToolRestriction,
  type ToolResult,
  type ToolSchema,
} from './tool.js'
export {
  defineToolErrorCodes,
  isDshErrorCode,
  isToolErrorCode,
  MAX_TOOL_ERROR_CODE_LENGTH,
  type CheckToolErrorFamily,
  type CheckToolErrorSuffixes,
  type DshErrorCode,
  type IsUpperSnake,
  type ReservedErrorCodeWord,
  type ToolErrorCode,
  type ToolErrorCodes,
} from './tool-error-codes.js'

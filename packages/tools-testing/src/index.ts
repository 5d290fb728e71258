export type { ListenerSource } from './app-state.js'
export {
  checkHotUnload,
  expectCleanUnload,
  type EffectEntry,
  type EmitterListenerEntry,
  type HotUnloadLeak,
  type HotUnloadLeakKind,
  type HotUnloadOptions,
  type HotUnloadReport,
  type ListenerEntry,
  type PluginFootprint,
  type ScopeEntry,
} from './check-hot-unload.js'
export { createTestAgent, type InjectedContent, type TestAgent, type TestAgentOptions } from './create-test-agent.js'
export {
  createToolContext,
  type LoadedPlugin,
  type LogRecord,
  type PluginArgs,
  type PluginConfig,
  type ToolContextOptions,
  type ToolContextPlugin,
  type ToolTestContext,
} from './create-tool-context.js'
export { createToolExecution, type ToolExecutionOptions } from './create-tool-execution.js'
export { describeFootprint, formatHotUnloadReport } from './format-hot-unload-report.js'
export { contentText, formatSessionLog } from './format-session-log.js'
export { HotUnloadError } from './hot-unload-error.js'
export { InvalidTestOptionError } from './invalid-test-option-error.js'
export { PluginNotActiveError } from './plugin-not-active-error.js'
export {
  runScriptedSession,
  scriptedModel,
  type ModelScript,
  type ModelTurn,
  type ModelTurnContext,
  type ScriptedModel,
  type ScriptedSession,
  type ScriptedSessionOptions,
  type SessionStopReason,
} from './run-scripted-session.js'
export { replayableResult, type ReplayableToolResult } from './replayable-result.js'
export { runToolStep } from './run-tool-step.js'
export { ScriptedModelError } from './scripted-model-error.js'
export type {
  ContextMessageEvent,
  ScriptedToolCall,
  SessionEvent,
  SessionStep,
  ToolCallBatch,
  ToolCallEvent,
  ToolResultEvent,
  ToolStepOptions,
  ToolStepTarget,
} from './session-log.js'

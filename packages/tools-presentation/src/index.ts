export {
  clientSupportsTerminalOutput,
  formatConsoleBlock,
  toAcpContentBlock,
  toAcpSessionNotification,
  toAcpToolCall,
  toAcpToolCallUpdate,
  type AcpMappingOptions,
  type AcpToolCallInput,
  type AcpToolResultInput,
  type ConsoleBlockExit,
} from './acp-mapping.js'
export type {
  AcpAnnotations,
  AcpAudioContent,
  AcpContentBlock,
  AcpEmbeddedResource,
  AcpImageContent,
  AcpResourceLink,
  AcpSessionNotification,
  AcpTerminalMeta,
  AcpTextContent,
  AcpToolCall,
  AcpToolCallContent,
  AcpToolCallContentBlock,
  AcpToolCallDiff,
  AcpToolCallLocation,
  AcpToolCallStatus,
  AcpToolCallTerminal,
  AcpToolCallUpdate,
  AcpToolKind,
} from './acp-types.js'
export {
  codeCall,
  codeResult,
  diffCall,
  diffLocations,
  diffResult,
  fileDiff,
  genericCall,
  genericResult,
  taskResult,
  terminalCall,
  terminalResult,
  type CodeCallInput,
  type CodeResultInput,
  type DiffCallInput,
  type DiffResultInput,
  type GenericCallInput,
  type GenericResultInput,
  type TaskResultInput,
  type TerminalCallInput,
  type TerminalResultInput,
} from './card-builders.js'
export { contentText } from './content-text.js'
export {
  computeDiffHunks,
  fileDiffHunks,
  firstChangedLine,
  type DiffHunk,
  type DiffHunkOptions,
  type DiffLine,
  type FileDiffHunks,
  type LineEnding,
} from './diff-hunks.js'
export {
  genericCallFallback,
  genericResultFallback,
  presentToolCall,
  presentToolResult,
  type PresentableTool,
  type PresentOptions,
  type PresenterFailure,
} from './present-tool.js'
export { PresentationOptionsError } from './presentation-options-error.js'
export { isAbsolutePath, relativizeTitle, resolveSessionPath } from './relativize-title.js'
export {
  renderToolCall,
  renderToolResult,
  shouldUseColor,
  type ColorTarget,
  type RenderCallOptions,
  type RenderOptions,
  type RenderResultOptions,
} from './render-card.js'
export {
  readTerminalResultMeta,
  terminalResultFromMeta,
  terminalResultMeta,
  type TerminalResultFromMetaOptions,
  type TerminalResultMeta,
  type TerminalResultMetaInput,
} from './terminal-result-meta.js'
export { InvalidCardError, type CardError } from './invalid-card-error.js'
export { UnknownCardError } from './unknown-card-error.js'
export {
  assertToolCallView,
  assertToolResultView,
  findToolCallViewIssue,
  findToolResultViewIssue,
  isToolCallView,
  isToolResultView,
} from './validate-card.js'

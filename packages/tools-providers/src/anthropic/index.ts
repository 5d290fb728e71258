export { anthropicTools, type AnthropicTools, type AnthropicToolsOptions } from './tools.js'
export { toAnthropicMessage } from './results.js'
export type {
  AnthropicContentBlockLike,
  AnthropicDocumentBlock,
  AnthropicImageBlock,
  AnthropicTextBlock,
  AnthropicTool,
  AnthropicToolResultBlock,
  AnthropicToolResultMessage,
} from './types.js'
export { ANTHROPIC_TOOL_NAME } from '../tool-names.js'

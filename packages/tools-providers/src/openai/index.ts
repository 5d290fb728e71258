export { openaiTools, type OpenAITools, type OpenAIToolsOptions } from './tools.js'
export { toOpenAIChatMessages, toOpenAIResponsesInput } from './results.js'
export type {
  OpenAIChatAudioPart,
  OpenAIChatFunctionTool,
  OpenAIChatImagePart,
  OpenAIChatMessage,
  OpenAIChatTextPart,
  OpenAIChatToolCallLike,
  OpenAIChatToolMessage,
  OpenAIChatUserMessage,
  OpenAIFunctionCallOutput,
  OpenAIResponsesFilePart,
  OpenAIResponsesFunctionTool,
  OpenAIResponsesImagePart,
  OpenAIResponsesInputItem,
  OpenAIResponsesItemLike,
  OpenAIResponsesTextPart,
  OpenAIResponsesUserMessage,
} from './types.js'
export { OPENAI_TOOL_NAME } from '../tool-names.js'

export {
  geminiLegacyTools,
  geminiTools,
  type GeminiLegacyToolsOptions,
  type GeminiParseCallsOptions,
  type GeminiTools,
} from './tools.js'
export { geminiMediaPlacement, toGeminiContent, type GeminiContentOptions, type GeminiMediaPlacement } from './results.js'
export { GEMINI_TYPE_NAMES } from './legacy-schema.js'
export type {
  GeminiCallSource,
  GeminiContent,
  GeminiFunctionCallLike,
  GeminiFunctionDeclaration,
  GeminiFunctionResponse,
  GeminiInlineData,
  GeminiLegacySchema,
  GeminiPart,
  GeminiPartLike,
  GeminiTool,
  GeminiTypeName,
  GeminiTypeNames,
} from './types.js'
export { GEMINI_TOOL_NAME } from '../tool-names.js'

export { aiSdkTools, type AiSdkTool, type AiSdkToolSet, type AiSdkToolSource, type AiSdkToolsOptions } from './tools.js'
export { isAiSdkToolOutput, toAiSdkModelOutput, type AiSdkModelOutput } from './model-output.js'

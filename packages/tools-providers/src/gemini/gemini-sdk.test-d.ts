import { Type, type Content, type FunctionCall, type GenerateContentConfig, type GenerateContentResponse, type Part, type Tool } from '@google/genai'
import { describe, expectTypeOf, it } from 'vitest'
import type { ParsedToolCall } from '../parsed-call.js'
import { geminiLegacyTools, geminiTools, toGeminiContent, type GeminiPartLike } from './index.js'

declare const response: GenerateContentResponse

describe('the Gemini shapes against @google/genai', () => {
  it('the JSON Schema tool list goes into config.tools without a cast', () => {
    const config: GenerateContentConfig = { tools: geminiTools([]).tools }
    expectTypeOf(geminiTools([]).tools).toExtend<Tool[]>()
    expectTypeOf(config).toBeObject()
  })

  it('the legacy list, given the SDK Type enum, goes into config.tools without a cast; without it, it does not', () => {
    const legacy = geminiLegacyTools([], { types: Type })
    const config: GenerateContentConfig = { tools: legacy.tools }
    expectTypeOf(config).toBeObject()
    expectTypeOf(geminiLegacyTools([]).tools).not.toExtend<Tool[]>()
  })

  it('the call parser takes parts and response.functionCalls', () => {
    expectTypeOf<Part>().toExtend<GeminiPartLike>()
    expectTypeOf<FunctionCall>().toExtend<GeminiPartLike>()
    expectTypeOf(geminiTools([]).parseCalls(response.functionCalls ?? [])).toEqualTypeOf<ParsedToolCall[]>()
    expectTypeOf(geminiTools([]).parseCalls(response.candidates?.[0]?.content?.parts ?? [])).toEqualTypeOf<ParsedToolCall[]>()
  })

  it('the content goes back into contents without a cast', () => {
    const contents: Content[] = [toGeminiContent([], [])]
    expectTypeOf(contents).toBeArray()
  })
})

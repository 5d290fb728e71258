import type { ToolErrorInfo, ToolExecutionResult } from '@dsh/tools-core'
import type { ToolRegistry } from '@dsh/tools-registry'
import { generateText, streamText, type ToolSet } from 'ai'
import type { MockLanguageModelV3 } from 'ai/test'
import { describe, expectTypeOf, it } from 'vitest'
import { aiSdkTools, isAiSdkToolOutput, toAiSdkModelOutput, type AiSdkModelOutput, type AiSdkToolSet, type AiSdkToolSource } from './index.js'

declare const registry: ToolRegistry
declare const model: MockLanguageModelV3

describe('aiSdkTools against the ai package', () => {
  it('ctx.tools is a tool source, and the set goes into generateText / streamText as tools with no cast', () => {
    expectTypeOf(registry).toExtend<AiSdkToolSource>()
    const tools = aiSdkTools(registry, { agent: { id: 'a' } })
    expectTypeOf(tools).toExtend<ToolSet>()
    expectTypeOf<AiSdkToolSet>().toExtend<ToolSet>()
    const run = () => generateText({ model, tools, prompt: 'hi' })
    const stream = () => streamText({ model, tools, prompt: 'hi' })
    expectTypeOf(run).toBeFunction()
    expectTypeOf(stream).toBeFunction()
  })

  it("a tool's output is our result, and toModelOutput returns the SDK's ToolResultOutput", () => {
    type Output = Awaited<ReturnType<NonNullable<AiSdkToolSet[string]['execute']>>>
    expectTypeOf<Output>().toExtend<ToolExecutionResult | AsyncIterable<ToolExecutionResult>>()
    expectTypeOf(toAiSdkModelOutput).returns.toEqualTypeOf<AiSdkModelOutput>()
    expectTypeOf<AiSdkModelOutput>().toExtend<{ type: 'text' | 'json' | 'error-text' | 'error-json' | 'execution-denied' | 'content' }>()
  })

  it("isAiSdkToolOutput narrows a step's tool result output (unknown to TypeScript) to our result, isError and error.code typed", async () => {
    const result = await generateText({ model, tools: aiSdkTools(registry), prompt: 'hi' })
    const output = result.steps[0]!.toolResults[0]!.output
    expectTypeOf(output).toBeUnknown()
    if (isAiSdkToolOutput(output)) {
      expectTypeOf(output).toEqualTypeOf<ToolExecutionResult>()
      expectTypeOf(output.isError).toEqualTypeOf<boolean>()
      expectTypeOf(output.error).toEqualTypeOf<ToolErrorInfo | undefined>()
      expectTypeOf(output.callId).toBeString()
    }
    expectTypeOf(isAiSdkToolOutput).parameter(0).toBeUnknown()
    expectTypeOf(isAiSdkToolOutput).guards.toEqualTypeOf<ToolExecutionResult>()
  })
})

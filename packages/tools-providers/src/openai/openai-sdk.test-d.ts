import type OpenAI from 'openai'
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam, ChatCompletionMessageToolCall, ChatCompletionTool } from 'openai/resources/chat/completions'
import type { FunctionTool, ResponseCreateParamsNonStreaming, ResponseInputItem, ResponseOutputItem } from 'openai/resources/responses/responses'
import { describe, expectTypeOf, it } from 'vitest'
import type { ParsedToolCall } from '../parsed-call.js'
import { openaiTools, toOpenAIChatMessages, toOpenAIResponsesInput, type OpenAIChatToolCallLike, type OpenAIResponsesItemLike } from './index.js'

declare const tools: ReturnType<typeof openaiTools>
declare const completion: OpenAI.Chat.Completions.ChatCompletion
declare const response: OpenAI.Responses.Response

describe('the OpenAI shapes against the openai SDK', () => {
  it('tool lists go into the SDK calls without a cast', () => {
    expectTypeOf(tools.chat).toExtend<ChatCompletionTool[]>()
    expectTypeOf(tools.responses).toExtend<FunctionTool[]>()
    const chat: ChatCompletionCreateParamsNonStreaming = { model: 'm', messages: [], tools: tools.chat }
    const responses: ResponseCreateParamsNonStreaming = { model: 'm', input: [], tools: tools.responses }
    expectTypeOf(chat).toBeObject()
    expectTypeOf(responses).toBeObject()
  })

  it('the call parsers take what the SDK returns', () => {
    expectTypeOf<ChatCompletionMessageToolCall>().toExtend<OpenAIChatToolCallLike>()
    expectTypeOf<ResponseOutputItem>().toExtend<OpenAIResponsesItemLike>()
    expectTypeOf(tools.parseChatCalls(completion.choices[0]?.message.tool_calls)).toEqualTypeOf<ParsedToolCall[]>()
    expectTypeOf(tools.parseResponsesCalls(response.output)).toEqualTypeOf<ParsedToolCall[]>()
  })

  it('results go back into the conversation without a cast', () => {
    const messages: ChatCompletionMessageParam[] = [...toOpenAIChatMessages([])]
    const input: ResponseInputItem[] = [...toOpenAIResponsesInput([])]
    expectTypeOf(messages).toBeArray()
    expectTypeOf(input).toBeArray()
  })
})

import type { ContentBlock, MessageCreateParamsNonStreaming, MessageParam, Tool, ToolUnion } from '@anthropic-ai/sdk/resources/messages'
import { describe, expectTypeOf, it } from 'vitest'
import type { ParsedToolCall } from '../parsed-call.js'
import { anthropicTools, toAnthropicMessage, type AnthropicContentBlockLike } from './index.js'

declare const tools: ReturnType<typeof anthropicTools>
declare const content: ContentBlock[]

describe('the Anthropic shapes against @anthropic-ai/sdk', () => {
  it('the tool list goes into messages.create without a cast', () => {
    expectTypeOf(tools.tools).toExtend<Tool[]>()
    const params: MessageCreateParamsNonStreaming = { model: 'm', max_tokens: 1, messages: [], tools: tools.tools }
    expectTypeOf(params.tools).toEqualTypeOf<ToolUnion[] | undefined>()
  })

  it('the call parser takes a message content array', () => {
    expectTypeOf<ContentBlock>().toExtend<AnthropicContentBlockLike>()
    expectTypeOf(tools.parseCalls(content)).toEqualTypeOf<ParsedToolCall[]>()
  })

  it('the result message goes back into messages without a cast', () => {
    const messages: MessageParam[] = [toAnthropicMessage([])]
    expectTypeOf(messages).toBeArray()
  })
})

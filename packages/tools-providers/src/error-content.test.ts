// An error result that carries content of its own (a ToolContentError, an MCP server's isError blocks): every
// converter keeps the error recognisable and sends the media where the provider can take it with an error.
import { defineToolErrorCodes, type ToolExecutionResult } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import { toAiSdkModelOutput } from './ai-sdk/index.js'
import { toAnthropicMessage } from './anthropic/index.js'
import { geminiTools, toGeminiContent } from './gemini/index.js'
import { toOpenAIChatMessages, toOpenAIResponsesInput } from './openai/index.js'
import { png, readFile } from './test-fixtures.js'

const MCP = defineToolErrorCodes('MCP', ['SERVER_ERROR'])

const failedWithImage: ToolExecutionResult = {
  callId: 'c1',
  isError: true,
  error: { name: 'McpCallError', code: MCP.SERVER_ERROR },
  content: [
    { type: 'text', text: 'The page did not load:' },
    { type: 'image', data: png, mimeType: 'image/png' },
  ],
}

describe('an error result with an image', () => {
  it('Anthropic: one tool_result with is_error and the image block inside it', () => {
    const [answer] = toAnthropicMessage([failedWithImage]).content
    expect(answer).toEqual({
      type: 'tool_result',
      tool_use_id: 'c1',
      is_error: true,
      content: [
        { type: 'text', text: 'The page did not load:' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
      ],
    })
  })

  it('OpenAI Responses: the function_call_output starts with the error line and carries the image as input_image', () => {
    const [output] = toOpenAIResponsesInput([failedWithImage])
    expect(output).toEqual({
      type: 'function_call_output',
      call_id: 'c1',
      output: [
        { type: 'input_text', text: 'Error (MCP_SERVER_ERROR): the tool call failed.' },
        { type: 'input_text', text: 'The page did not load:' },
        { type: 'input_image', image_url: `data:image/png;base64,${png}`, detail: 'auto' },
      ],
    })
  })

  it('OpenAI Chat: the tool message says error and announces the image, which follows in a user message', () => {
    const [tool, user] = toOpenAIChatMessages([failedWithImage])
    expect(tool).toEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content: 'Error (MCP_SERVER_ERROR): the tool call failed.\nThe page did not load:\n[image 1: attached in the next user message]',
    })
    expect(user).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Attachments of tool call c1:' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
      ],
    })
  })

  it('Gemini: response.error holds the text; the image goes after the responses by default', () => {
    const calls = geminiTools([readFile]).parseCalls([{ functionCall: { id: 'c1', name: 'read_file', args: { path: 'a' } } }])
    expect(toGeminiContent([failedWithImage], calls).parts).toEqual([
      {
        functionResponse: {
          id: 'c1',
          name: 'read_file',
          response: { error: 'Error (MCP_SERVER_ERROR): the tool call failed.\nThe page did not load:\n[image/png 1: attached after the function responses]' },
        },
      },
      { text: 'Attachments of function response 1 (read_file):' },
      { inlineData: { mimeType: 'image/png', data: png } },
    ])
  })

  it('Gemini 3 (function-response-parts): response.error holds the text and the image goes into the functionResponse parts', () => {
    const calls = geminiTools([readFile]).parseCalls([{ functionCall: { id: 'c1', name: 'read_file', args: { path: 'a' } } }])
    const [part] = toGeminiContent([failedWithImage], calls, { media: 'function-response-parts' }).parts
    expect(part).toEqual({
      functionResponse: {
        id: 'c1',
        name: 'read_file',
        response: { error: 'Error (MCP_SERVER_ERROR): the tool call failed.\nThe page did not load:\n[image/png 1: attached to this response]' },
        parts: [{ inlineData: { mimeType: 'image/png', data: png } }],
      },
    })
  })

  it('AI SDK: error-text (its model output has no error form that carries media), the image named as not shown', () => {
    const output = toAiSdkModelOutput(failedWithImage)
    expect(output.type).toBe('error-text')
    expect(output.type === 'error-text' && output.value).toMatch(
      /^Error \(MCP_SERVER_ERROR\): the tool call failed\.\nThe page did not load:\n\[image \(image\/png\), \d+ bytes, not shown: this provider cannot take it here\]$/,
    )
  })
})

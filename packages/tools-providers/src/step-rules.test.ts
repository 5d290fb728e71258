import type { ContentBlock, ToolExecutionResult } from '@dsh/tools-core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { toAnthropicMessage } from './anthropic/index.js'
import { geminiTools, toGeminiContent } from './gemini/index.js'
import { openaiTools, toOpenAIChatMessages, toOpenAIResponsesInput } from './openai/index.js'
import { readFile } from './test-fixtures.js'

const mime = fc.constantFrom('image/png', 'image/jpeg', 'image/tiff', 'audio/wav', 'audio/ogg', 'application/pdf', 'application/octet-stream', 'text/plain')
const base64 = fc.base64String({ maxLength: 12 })
const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text: fc.string() }),
  fc.record({ type: fc.constant('image' as const), data: base64, mimeType: mime }),
  fc.record({ type: fc.constant('audio' as const), data: base64, mimeType: mime }),
  fc.record({ type: fc.constant('resource_link' as const), uri: fc.webUrl(), name: fc.string({ minLength: 1 }) }),
  fc.record({ type: fc.constant('resource' as const), resource: fc.oneof(fc.record({ uri: fc.webUrl(), text: fc.string() }), fc.record({ uri: fc.webUrl(), blob: base64, mimeType: mime })) }),
)
const step = fc
  .uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 5 })
  .chain((ids) =>
    fc.tuple(
      fc.tuple(...ids.map((callId) => fc.record({ callId: fc.constant(callId), isError: fc.boolean(), content: fc.array(block, { maxLength: 4 }) }))),
      fc.array(fc.record({ content: fc.array(block, { maxLength: 3 }) }), { maxLength: 2 }),
    ),
  )

describe('the step rules hold for every step', () => {
  it('OpenAI Chat: one tool message per result in order, then at most one user message, and nothing else', () => {
    fc.assert(
      fc.property(step, ([results, additionalContext]) => {
        const messages = toOpenAIChatMessages(results as ToolExecutionResult[], { additionalContext })
        const tools = messages.filter((message) => message.role === 'tool')
        expect(tools.map((message) => message.tool_call_id)).toEqual(results.map((result) => result.callId))
        expect(messages.slice(0, results.length)).toEqual(tools)
        expect(messages.length - results.length).toBeLessThanOrEqual(1)
        for (const message of tools) expect(typeof message.content).toBe('string')
      }),
      { numRuns: 300 },
    )
  })

  it('OpenAI Responses: one function_call_output per result in order, then at most one user message', () => {
    fc.assert(
      fc.property(step, ([results, additionalContext]) => {
        const items = toOpenAIResponsesInput(results as ToolExecutionResult[], { additionalContext })
        expect(items.slice(0, results.length).map((item) => item.type === 'function_call_output' && item.call_id)).toEqual(results.map((result) => result.callId))
        // Blank text is never sent, so context of blank text alone makes no message.
        const sendable = (entry: ContentBlock): boolean => entry.type !== 'text' || entry.text.trim() !== ''
        expect(items.length - results.length).toBe(additionalContext.some((entry) => entry.content.some(sendable)) ? 1 : 0)
      }),
      { numRuns: 300 },
    )
  })

  it('Anthropic: every tool_result before any other block, one per result in order, is_error exactly on errors, never empty', () => {
    fc.assert(
      fc.property(step, ([results, additionalContext]) => {
        const { content } = toAnthropicMessage(results as ToolExecutionResult[], { additionalContext })
        const head = content.slice(0, results.length)
        expect(head.map((entry) => entry.type === 'tool_result' && [entry.tool_use_id, entry.is_error === true, entry.content.length > 0])).toEqual(
          results.map((result) => [result.callId, result.isError, true]),
        )
        expect(content.slice(results.length).some((entry) => entry.type === 'tool_result')).toBe(false)
      }),
      { numRuns: 300 },
    )
  })

  it('Gemini: every functionResponse before any other part, one per result in order, error results under "error"', () => {
    fc.assert(
      fc.property(step, ([results, additionalContext]) => {
        const calls = geminiTools([readFile]).parseCalls(results.map((result) => ({ functionCall: { id: result.callId, name: 'read_file', args: {} } })))
        const { parts } = toGeminiContent(results as ToolExecutionResult[], calls, { additionalContext })
        const head = parts.slice(0, results.length)
        expect(head.map((part) => 'functionResponse' in part && [part.functionResponse.id, 'error' in part.functionResponse.response])).toEqual(
          results.map((result) => [result.callId, result.isError]),
        )
        expect(parts.slice(results.length).some((part) => 'functionResponse' in part)).toBe(false)
      }),
      { numRuns: 300 },
    )
  })

  it('OpenAI calls in: an argument text is an input exactly when it is one JSON object, and never a throw', () => {
    const tools = openaiTools([readFile], { profile: 'openai-strict' })
    const text = fc.oneof(fc.string(), fc.jsonValue().map((value) => JSON.stringify(value)).filter((json) => !/-0(?![.\d])|-0\.0*(?!\d)/.test(json)))
    fc.assert(
      fc.property(text, (argumentsText) => {
        const [call] = tools.parseChatCalls([{ id: 'c', type: 'function', function: { name: 'read_file', arguments: argumentsText } }])
        let parsed: unknown
        try {
          parsed = JSON.parse(argumentsText)
        } catch {
          parsed = undefined
        }
        const isObject = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        expect(call?.ok).toBe(isObject)
        if (call?.ok === false) expect(call.result).toMatchObject({ callId: 'c', isError: true, error: { code: 'PROVIDER_MALFORMED_CALL' } })
      }),
      { numRuns: 1000 },
    )
  })
})

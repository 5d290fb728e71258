// Issue 32, class 4: each converter had its own "(no output)" rule, and none dropped a blank text block, so a tool
// that returned '' or whitespace went out as an empty text block (a 400 from Anthropic). One rule now holds for
// every converter: blank text blocks are dropped, a result left with nothing says "(no output)", an error keeps
// its "Error (CODE)" line, and no output holds an empty text anywhere.
import type { ContentBlock, ToolExecutionResult } from '@dsh/tools-core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { toAiSdkModelOutput } from './ai-sdk/index.js'
import { toAnthropicMessage } from './anthropic/index.js'
import { geminiTools, toGeminiContent } from './gemini/index.js'
import { toOpenAIChatMessages, toOpenAIResponsesInput } from './openai/index.js'
import { resultContent } from './step-results.js'
import { png, readFile } from './test-fixtures.js'
import { blankTextIn } from './test-support/provider-rules.js'

const result = (callId: string, content: ContentBlock[], isError = false): ToolExecutionResult => ({
  callId,
  isError,
  content,
  ...(isError ? { error: { name: 'ToolFailedError', code: 'TOOL_FAILED' } } : {}),
})
const text = (value: string): ContentBlock => ({ type: 'text', text: value })
const image: ContentBlock = { type: 'image', data: png, mimeType: 'image/png' }

/** Every converter's output for one step, each with Gemini's calls made for the results' ids. */
function everyConverter(results: readonly ToolExecutionResult[], context: readonly ContentBlock[] = []) {
  const options = { additionalContext: [{ content: context }] }
  const calls = geminiTools([readFile]).parseCalls(results.map((entry) => ({ functionCall: { id: entry.callId, name: 'read_file', args: {} } })))
  return {
    anthropic: toAnthropicMessage(results, options),
    openaiChat: toOpenAIChatMessages(results, options),
    openaiResponses: toOpenAIResponsesInput(results, options),
    geminiSeparate: toGeminiContent(results, calls, options),
    geminiNested: toGeminiContent(results, calls, { ...options, media: 'function-response-parts' }),
    aiSdk: results.map((entry) => toAiSdkModelOutput({ ...entry, additionalContext: { content: [...context] } })),
  }
}

describe('empty results never go out as empty text blocks', () => {
  it("a single '' or whitespace text block is (no output) for every provider", () => {
    for (const blank of ['', '   \n', '\t']) {
      const out = everyConverter([result('c1', [text(blank)])])
      expect(out.anthropic.content).toEqual([{ type: 'tool_result', tool_use_id: 'c1', content: [{ type: 'text', text: '(no output)' }] }])
      expect(out.openaiChat).toEqual([{ role: 'tool', tool_call_id: 'c1', content: '(no output)' }])
      expect(out.openaiResponses).toEqual([{ type: 'function_call_output', call_id: 'c1', output: '(no output)' }])
      expect(out.geminiSeparate.parts).toEqual([{ functionResponse: { id: 'c1', name: 'read_file', response: { output: '(no output)' } } }])
      expect(out.geminiNested).toEqual(out.geminiSeparate)
      expect(out.aiSdk).toEqual([{ type: 'text', value: '(no output)' }])
    }
  })

  it('blank blocks among others are dropped; the rest stays, in order', () => {
    const out = everyConverter([result('c1', [text(''), text('a'), text(' '), text('b'), text('\n')])])
    expect(out.anthropic.content).toEqual([{ type: 'tool_result', tool_use_id: 'c1', content: [text('a'), text('b')] }])
    expect(out.openaiChat).toEqual([{ role: 'tool', tool_call_id: 'c1', content: 'a\nb' }])
    expect(out.openaiResponses).toEqual([{ type: 'function_call_output', call_id: 'c1', output: 'a\nb' }])
    expect(out.geminiSeparate.parts).toEqual([{ functionResponse: { id: 'c1', name: 'read_file', response: { output: 'a\nb' } } }])
    expect(out.aiSdk).toEqual([{ type: 'text', value: 'a\nb' }])
  })

  it("an error result with empty text keeps a non-empty text: its Error (CODE) line", () => {
    const line = 'Error (TOOL_FAILED): the tool call failed.'
    const out = everyConverter([result('c1', [text('  ')], true)])
    expect(out.anthropic.content).toEqual([{ type: 'tool_result', tool_use_id: 'c1', is_error: true, content: [text(line)] }])
    expect(out.openaiChat).toEqual([{ role: 'tool', tool_call_id: 'c1', content: line }])
    expect(out.openaiResponses).toEqual([{ type: 'function_call_output', call_id: 'c1', output: line }])
    expect(out.geminiSeparate.parts).toEqual([{ functionResponse: { id: 'c1', name: 'read_file', response: { error: line } } }])
    expect(out.aiSdk).toEqual([{ type: 'error-text', value: line }])
  })

  it('media beside empty text: the media go, the blank text does not, and no (no output) is added', () => {
    const out = everyConverter([result('c1', [text(''), image, text(' ')])])
    expect(out.anthropic.content).toEqual([
      { type: 'tool_result', tool_use_id: 'c1', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } }] },
    ])
    expect(out.openaiChat[0]).toEqual({ role: 'tool', tool_call_id: 'c1', content: '[image 1: attached in the next user message]' })
    expect(out.openaiResponses).toEqual([{ type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_image', image_url: `data:image/png;base64,${png}`, detail: 'auto' }] }])
    expect(out.geminiNested.parts).toEqual([
      { functionResponse: { id: 'c1', name: 'read_file', response: { output: '[image/png 1: attached to this response]' }, parts: [{ inlineData: { mimeType: 'image/png', data: png } }] } },
    ])
    expect(out.aiSdk).toEqual([{ type: 'content', value: [{ type: 'image-data', data: png, mediaType: 'image/png' }] }])
  })

  it('a blank block of the additional context is dropped too', () => {
    const out = everyConverter([result('c1', [text('a')])], [text(''), text('note'), text(' \n')])
    expect(out.anthropic.content.slice(1)).toEqual([text('note')])
    expect(out.openaiChat[1]).toEqual({ role: 'user', content: [text('note')] })
    expect(out.openaiResponses[1]).toEqual({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'note' }] })
    expect(out.geminiSeparate.parts.slice(1)).toEqual([{ text: 'note' }])
    expect(out.aiSdk).toEqual([{ type: 'text', value: 'a\nnote' }])
    // Context that is all blank adds nothing: no user message, no empty part.
    expect(toOpenAIChatMessages([result('c1', [text('a')])], { additionalContext: [{ content: [text(' ')] }] })).toHaveLength(1)
  })

  it('a merged answer for a repeated call id says (no output) under the heading of an empty result', () => {
    const [answer] = toOpenAIChatMessages([result('c1', [text('')]), result('c1', [text('b')])])
    expect(answer).toEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content: '2 calls in this turn had the id "c1"; their results follow, in the order of the calls.\nCall 1 of 2:\n(no output)\nCall 2 of 2:\nb',
    })
  })

  it('resultContent is never empty and never holds a blank text, for any content (every converter builds on it)', () => {
    const block: fc.Arbitrary<ContentBlock> = fc.oneof(
      fc.constantFrom('', ' ', '\n\t ', 'x', ' y ').map(text),
      fc.string().map(text),
      fc.constant(image),
    )
    fc.assert(
      fc.property(fc.array(block, { maxLength: 5 }), fc.boolean(), fc.constantFrom('first', 'when-empty', 'given') , (content, isError, heading) => {
        const blocks = resultContent(result('c', content, isError), heading as 'first' | 'when-empty' | 'given')
        expect(blocks.length).toBeGreaterThan(0)
        for (const entry of blocks) if (entry.type === 'text') expect(entry.text.trim()).not.toBe('')
        // Nothing that could be sent is lost: every non-blank block stays, in order.
        const kept = content.filter((entry) => entry.type !== 'text' || entry.text.trim() !== '')
        expect(blocks.filter((entry) => kept.includes(entry))).toEqual(kept)
        const out = everyConverter([result('c', content, isError)])
        expect(blankTextIn(out)).toBeUndefined()
      }),
    )
  })
})

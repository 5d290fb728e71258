// Issue 32, class 4: a tool that returned '' or whitespace went out as an empty text block (Anthropic answers
// "text content blocks must be non-empty", inside tool_result too), and Gemini got its images inside
// functionResponse.parts, which only Gemini 3 models take. Each test drives the real SDK client through one step
// against a local server that refuses what the provider refuses, and checks the request body it sent.
import Anthropic from '@anthropic-ai/sdk'
import { ToolContentError, type ContentBlock } from '@dsh/tools-core'
import { GoogleGenAI, type Content } from '@google/genai'
import type { Context } from 'cordis'
import OpenAI from 'openai'
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import type { ResponseInputItem } from 'openai/resources/responses/responses'
import { describe, expect, it } from 'vitest'
import { anthropicTools, toAnthropicMessage } from './anthropic/index.js'
import { geminiMediaPlacement, geminiTools, toGeminiContent, type GeminiMediaPlacement } from './gemini/index.js'
import { openaiTools, toOpenAIChatMessages, toOpenAIResponsesInput } from './openai/index.js'
import { png } from './test-fixtures.js'
import { useLoopHarness } from './test-support/loop-harness.js'
import { fixture } from './test-support/loop-tools.js'
import { anthropicRefusesEmptyText, blankTextIn, geminiPartsNeedGemini3, noEmptyText } from './test-support/provider-rules.js'

const loop = useLoopHarness()

/** What `emit` returns for each case; `error-blank` fails with a blank text as its content. */
const outputs: Readonly<Record<string, readonly ContentBlock[]>> = {
  empty: [{ type: 'text', text: '' }],
  whitespace: [{ type: 'text', text: '   \n' }],
  'some-blank': [{ type: 'text', text: '' }, { type: 'text', text: 'kept' }, { type: 'text', text: ' \t' }],
  nothing: [],
  'image-blank': [{ type: 'text', text: '' }, { type: 'image', data: png, mimeType: 'image/png' }],
}
const cases = [...Object.keys(outputs), 'error-blank']

/** Registers `emit`, which returns (or fails with) the blocks of the case it is called with. */
function registerEmit(ctx: Context): void {
  ctx.tools.register({
    name: 'emit',
    description: 'Return the output of a case.',
    concurrencySafe: true,
    parameters: { type: 'object', properties: { case: { type: 'string' } }, required: ['case'] },
    execute: async (args) => {
      const name = (args as { case: string }).case
      if (name === 'error-blank') throw new ToolContentError('TOOL_FAILED', 'failed quietly', { content: [{ type: 'text', text: '  ' }] })
      return [...(outputs[name] ?? [])]
    },
  })
}

/** A recorded response of `fixtures/` with its calls replaced. */
function withCalls(name: string, replace: (body: Record<string, unknown>) => void): unknown {
  const body = fixture(name) as Record<string, unknown>
  replace(body)
  return body
}

const noOutput = '(no output)'
const failed = 'Error (TOOL_FAILED): the tool call failed.'

describe('empty results never go out as empty text blocks', () => {
  it('Anthropic: every tool_result has content the API accepts; blank text is dropped, an empty result says (no output)', async () => {
    registerEmit(loop.world.ctx)
    const server = await loop.serve(
      [
        { path: '/v1/messages', body: withCalls('anthropic-tool-use', (body) => (body['content'] = cases.map((name, index) => ({ type: 'tool_use', id: `toolu_${index}`, name: 'emit', input: { case: name } })))) },
        { path: '/v1/messages', body: fixture('anthropic-final') },
      ],
      [anthropicRefusesEmptyText],
    )
    const anthropic = new Anthropic({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 })
    const tools = anthropicTools(loop.world.ctx.tools.schemas())
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'emit every case' }]
    const reply = await anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages, tools: tools.tools })
    messages.push({ role: 'assistant', content: reply.content })
    const step = await loop.world.ctx.tools.executeStep(tools.parseCalls(reply.content))
    messages.push(toAnthropicMessage(step.results, { additionalContext: [{ content: [{ type: 'text', text: ' ' }] }, { content: [{ type: 'text', text: 'note' }] }] }))
    await anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages, tools: tools.tools })

    expect(server.problems).toEqual([])
    const sent = (server.requests[1]!.body as { messages: { content: Record<string, unknown>[] }[] }).messages[2]?.content ?? []
    expect(sent.map((block) => [block.type, block.is_error === true, block.content])).toEqual([
      ['tool_result', false, [{ type: 'text', text: noOutput }]],
      ['tool_result', false, [{ type: 'text', text: noOutput }]],
      ['tool_result', false, [{ type: 'text', text: 'kept' }]],
      ['tool_result', false, [{ type: 'text', text: noOutput }]],
      ['tool_result', false, [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } }]],
      ['tool_result', true, [{ type: 'text', text: failed }]],
      // The blank context block is dropped too; the other one follows the results.
      ['text', false, undefined],
    ])
    expect(sent[6]?.text).toBe('note')
  })

  it('the replay server refuses an empty text block as Anthropic does, so the test above can fail', async () => {
    const server = await loop.serve([{ path: '/v1/messages', body: fixture('anthropic-final') }], [anthropicRefusesEmptyText])
    const anthropic = new Anthropic({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 })
    const content = [{ type: 'tool_result' as const, tool_use_id: 'toolu_0', content: [{ type: 'text' as const, text: '' }] }]
    await expect(anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content }] })).rejects.toThrow(
      /text content blocks must be non-empty/,
    )
  })

  it('OpenAI Chat Completions: every tool message has text; an image-only result announces its attachment', async () => {
    registerEmit(loop.world.ctx)
    const calls = cases.map((name, index) => ({ id: `call_${index}`, type: 'function', function: { name: 'emit', arguments: JSON.stringify({ case: name }) } }))
    const server = await loop.serve(
      [
        { path: '/v1/chat/completions', body: withCalls('openai-chat-tool-calls', (body) => ((body['choices'] as { message: Record<string, unknown> }[])[0]!.message['tool_calls'] = calls)) },
        { path: '/v1/chat/completions', body: fixture('openai-chat-final') },
      ],
      [noEmptyText],
    )
    const openai = new OpenAI({ apiKey: 'test-key', baseURL: `${server.url}/v1`, maxRetries: 0 })
    const tools = openaiTools(loop.world.ctx.tools.schemas())
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'emit every case' }]
    const completion = await openai.chat.completions.create({ model: 'gpt-4.1', messages, tools: tools.chat })
    const message = completion.choices[0]!.message
    messages.push(message)
    const step = await loop.world.ctx.tools.executeStep(tools.parseChatCalls(message.tool_calls))
    messages.push(...toOpenAIChatMessages(step.results))
    await openai.chat.completions.create({ model: 'gpt-4.1', messages, tools: tools.chat })

    expect(server.problems).toEqual([])
    const sent = (server.requests[1]!.body as { messages: { role: string; content: unknown }[] }).messages.slice(2)
    expect(sent.map((entry) => [entry.role, typeof entry.content === 'string' ? entry.content : 'parts'])).toEqual([
      ['tool', noOutput],
      ['tool', noOutput],
      ['tool', 'kept'],
      ['tool', noOutput],
      ['tool', '[image 1: attached in the next user message]'],
      ['tool', failed],
      ['user', 'parts'],
    ])
  })

  it('OpenAI Responses: every function_call_output has content; an image-only result is its input_image alone', async () => {
    registerEmit(loop.world.ctx)
    const items = cases.map((name, index) => ({ type: 'function_call', id: `fc_${index}`, call_id: `call_${index}`, name: 'emit', arguments: JSON.stringify({ case: name }), status: 'completed' }))
    const server = await loop.serve(
      [
        { path: '/v1/responses', body: withCalls('openai-responses-tool-calls', (body) => (body['output'] = items)) },
        { path: '/v1/responses', body: fixture('openai-responses-final') },
      ],
      [noEmptyText],
    )
    const openai = new OpenAI({ apiKey: 'test-key', baseURL: `${server.url}/v1`, maxRetries: 0 })
    const tools = openaiTools(loop.world.ctx.tools.schemas())
    const input: ResponseInputItem[] = [{ role: 'user', content: 'emit every case' }]
    const response = await openai.responses.create({ model: 'gpt-4.1', input, tools: tools.responses, store: false })
    for (const item of response.output) if (item.type === 'function_call') input.push(item)
    const step = await loop.world.ctx.tools.executeStep(tools.parseResponsesCalls(response.output))
    input.push(...toOpenAIResponsesInput(step.results))
    await openai.responses.create({ model: 'gpt-4.1', input, tools: tools.responses, store: false })

    expect(server.problems).toEqual([])
    const sent = (server.requests[1]!.body as { input: { type?: string; output?: unknown }[] }).input.filter((item) => item.type === 'function_call_output')
    expect(sent.map((item) => item.output)).toEqual([
      noOutput,
      noOutput,
      'kept',
      noOutput,
      [{ type: 'input_image', image_url: `data:image/png;base64,${png}`, detail: 'auto' }],
      failed,
    ])
  })

  it('the server rule refuses a blank tool message, function_call_output or functionResponse, so the OpenAI and Gemini tests can fail', () => {
    expect(noEmptyText({ path: '/v1/chat/completions', body: { messages: [{ role: 'tool', tool_call_id: 'c', content: ' \n' }] } })).toMatch(/empty text/)
    expect(blankTextIn({ input: [{ type: 'function_call_output', call_id: 'c', output: '' }] })).toBe('body.input[0].output')
    expect(blankTextIn({ contents: [{ parts: [{ functionResponse: { name: 'emit', response: { output: '  ' } } }] }] })).toBe('body.contents[0].parts[0].functionResponse.response')
  })
})

/** One Gemini step for `model`: the calls of every case, our content for them, the next request. */
async function geminiStep(model: string, media: GeminiMediaPlacement | undefined) {
  registerEmit(loop.world.ctx)
  const path = `/v1beta/models/${model}:generateContent`
  const parts = cases.map((name, index) => ({ functionCall: { id: `fc-${index}`, name: 'emit', args: { case: name } } }))
  const server = await loop.serve(
    [
      { path, body: withCalls('gemini-function-calls-with-ids', (body) => ((body['candidates'] as { content: Record<string, unknown> }[])[0]!.content['parts'] = parts)) },
      { path, body: fixture('gemini-final') },
    ],
    [noEmptyText, geminiPartsNeedGemini3],
  )
  const gemini = new GoogleGenAI({ apiKey: 'test-key', apiVersion: 'v1beta', httpOptions: { baseUrl: server.url } })
  const tools = geminiTools(loop.world.ctx.tools.schemas())
  const contents: Content[] = [{ role: 'user', parts: [{ text: 'emit every case' }] }]
  const response = await gemini.models.generateContent({ model, contents, config: { tools: tools.tools } })
  contents.push(response.candidates![0]!.content!)
  const calls = tools.parseCalls(response.candidates![0]!.content!.parts ?? [])
  const step = await loop.world.ctx.tools.executeStep(calls)
  contents.push(toGeminiContent(step.results, calls, media === undefined ? {} : { media }))
  const sent = gemini.models.generateContent({ model, contents, config: { tools: tools.tools } })
  return { server, sent, request: () => (server.requests[1]!.body as { contents: { parts: Record<string, unknown>[] }[] }).contents[2]?.parts ?? [] }
}

const responseOf = (part: Record<string, unknown> | undefined) => part?.['functionResponse'] as { name: string; response: Record<string, string>; parts?: unknown[] }

describe('Gemini: empty results and media, per model', () => {
  it('gemini-2.5-flash, the default placement: blank text dropped, (no output) when empty, the image as an inline part after the responses', async () => {
    const { server, sent, request } = await geminiStep('gemini-2.5-flash', undefined)
    await sent
    expect(server.problems).toEqual([])
    const parts = request()
    expect(parts.slice(0, 6).map((part) => responseOf(part).response)).toEqual([
      { output: noOutput },
      { output: noOutput },
      { output: 'kept' },
      { output: noOutput },
      { output: '[image/png 1: attached after the function responses]' },
      { error: failed },
    ])
    expect(parts.slice(0, 6).some((part) => responseOf(part).parts !== undefined)).toBe(false)
    expect(parts.slice(6)).toEqual([{ text: 'Attachments of function response 5 (emit):' }, { inlineData: { mimeType: 'image/png', data: png } }])
  })

  it('gemini-3-pro-preview, placement by model name: the image inside its functionResponse.parts, nothing after', async () => {
    const model = 'gemini-3-pro-preview'
    expect(geminiMediaPlacement(model)).toBe('function-response-parts')
    const { server, sent, request } = await geminiStep(model, geminiMediaPlacement(model))
    await sent
    expect(server.problems).toEqual([])
    const parts = request()
    expect(parts).toHaveLength(6)
    const image = responseOf(parts[4])
    expect(image.response).toEqual({ output: '[image/png 1: attached to this response]' })
    expect(image.parts).toEqual([{ inlineData: { mimeType: 'image/png', data: png } }])
    expect(responseOf(parts[0]).response).toEqual({ output: noOutput })
    expect(responseOf(parts[5]).response).toEqual({ error: failed })
  })

  it('gemini-2.5-flash with function-response-parts forced: the server answers 400, as Gemini does for earlier models', async () => {
    expect(geminiMediaPlacement('gemini-2.5-flash')).toBe('separate-parts')
    const { server, sent } = await geminiStep('gemini-2.5-flash', 'function-response-parts')
    await expect(sent).rejects.toThrow(/function response parts are not supported by gemini-2 models/)
    expect(server.problems).toHaveLength(1)
  })
})

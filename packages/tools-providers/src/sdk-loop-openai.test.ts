import type { ToolStepResult } from '@dsh/tools-registry'
import type { Context } from 'cordis'
import OpenAI from 'openai'
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import type { ResponseInputItem } from 'openai/resources/responses/responses'
import { describe, expect, it } from 'vitest'
import { openaiTools, toOpenAIChatMessages, toOpenAIResponsesInput } from './openai/index.js'
import { loopPrompt, useLoopHarness } from './test-support/loop-harness.js'
import { denyReason, fixture, readNote, textOf } from './test-support/loop-tools.js'
import type { ReplayResponse } from './test-support/replay-server.js'

const loop = useLoopHarness()

async function client(script: readonly ReplayResponse[]): Promise<OpenAI> {
  const server = await loop.serve(script)
  return new OpenAI({ apiKey: 'test-key', baseURL: `${server.url}/v1`, maxRetries: 0 })
}

/** The loop a harness writes: model call, our parser, executeStep, our results, until the model stops calling. */
async function chatLoop(openai: OpenAI, ctx: Context) {
  const tools = openaiTools(ctx.tools.schemas(), { profile: 'openai-strict' })
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: loopPrompt }]
  const steps: ToolStepResult[] = []
  for (let turn = 0; turn < 4; turn++) {
    const completion = await openai.chat.completions.create({ model: 'gpt-4.1', messages, tools: tools.chat })
    const message = completion.choices[0]?.message
    if (message === undefined) throw new Error('no choice')
    messages.push(message)
    if (message.tool_calls === undefined || message.tool_calls.length === 0) return { tools, steps, message }
    const step = await ctx.tools.executeStep(tools.parseChatCalls(message.tool_calls))
    steps.push(step)
    messages.push(...toOpenAIChatMessages(step.results, { additionalContext: step.additionalContext }))
  }
  throw new Error('the loop did not stop')
}

async function responsesLoop(openai: OpenAI, ctx: Context) {
  const tools = openaiTools(ctx.tools.schemas())
  const input: ResponseInputItem[] = [{ role: 'user', content: loopPrompt }]
  const steps: ToolStepResult[] = []
  for (let turn = 0; turn < 4; turn++) {
    const response = await openai.responses.create({ model: 'gpt-4.1', input, tools: tools.responses, store: false })
    // The SDK's output union is wider than its input union; a function-tool loop only sees these two kinds.
    for (const item of response.output) if (item.type === 'function_call' || item.type === 'message') input.push(item)
    const calls = tools.parseResponsesCalls(response.output)
    if (calls.length === 0) return { tools, steps, response }
    const step = await ctx.tools.executeStep(calls)
    steps.push(step)
    input.push(...toOpenAIResponsesInput(step.results, { additionalContext: step.additionalContext }))
  }
  throw new Error('the loop did not stop')
}

describe('the openai SDK drives a two-step Chat Completions loop through executeStep', () => {
  it('sends the strict tool list, then every tool result in call order and the context after them', async () => {
    const openai = await client([
      { path: '/v1/chat/completions', body: fixture('openai-chat-tool-calls') },
      { path: '/v1/chat/completions', body: fixture('openai-chat-final') },
    ])
    const { tools, steps, message } = await chatLoop(openai, loop.world.ctx)
    expect(loop.server.problems).toEqual([])
    expect(message.content).toBe('a.txt says hello. My call for b.txt was not valid JSON, and deleting a.txt was denied.')
    expect(loop.world.deleted).toEqual([])

    const [first, second] = loop.server.requests.map((request) => request.body as Record<string, unknown>)
    expect(first?.tools).toEqual(tools.chat)
    expect(first?.tools).toMatchObject([{ type: 'function', function: { name: 'read_file', strict: true } }, { function: { name: 'delete_file', strict: true } }])
    expect(first?.messages).toEqual([{ role: 'user', content: loopPrompt }])

    const sent = second?.messages as Array<Record<string, unknown>>
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'tool', 'user'])
    expect((sent[1]?.tool_calls as Array<{ id: string }> | undefined)?.map((call) => call.id)).toEqual(['call_a1', 'call_b2', 'call_c3'])
    expect(sent.slice(2, 5).map((m) => m.tool_call_id)).toEqual(['call_a1', 'call_b2', 'call_c3'])
    expect(textOf(sent[2]?.content)).toContain('a.txt: hello')
    expect(textOf(sent[3]?.content)).toMatch(/^Error \(PROVIDER_MALFORMED_CALL\)/)
    expect(textOf(sent[3]?.content)).toContain('JSON')
    expect(textOf(sent[4]?.content)).toMatch(/^Error \(DENIED\)/)
    expect(textOf(sent[4]?.content)).toContain(denyReason)
    expect(textOf(sent[5]?.content)).toContain(readNote)
    expect(sent.slice(2, 5).some((m) => textOf(m.content).includes(readNote))).toBe(false)

    expect(steps).toHaveLength(1)
    expect(steps[0]?.results.map((result) => result.error?.code)).toEqual([undefined, 'PROVIDER_MALFORMED_CALL', 'DENIED'])
    expect(steps[0]?.batches.map((batch) => [batch.mode, batch.calls])).toEqual([['parallel', [0]], ['serial', [2]]])
  })

  it('stops on a refusal without running anything', async () => {
    const openai = await client([{ path: '/v1/chat/completions', body: fixture('openai-chat-refusal') }])
    const { steps, message } = await chatLoop(openai, loop.world.ctx)
    expect(loop.server.problems).toEqual([])
    expect(loop.server.requests).toHaveLength(1)
    expect(message.refusal).toBe("I'm sorry, I can't help with that.")
    expect(message.content).toBeNull()
    expect(steps).toEqual([])
  })
})

describe('the openai SDK drives a two-step Responses loop through executeStep', () => {
  it('sends function_call_output items in call order, after the function calls, then the context', async () => {
    const openai = await client([
      { path: '/v1/responses', body: fixture('openai-responses-tool-calls') },
      { path: '/v1/responses', body: fixture('openai-responses-final') },
    ])
    const { tools, steps, response } = await responsesLoop(openai, loop.world.ctx)
    expect(loop.server.problems).toEqual([])
    expect(response.output_text).toBe('a.txt says hello. My call for b.txt was not a JSON object, and deleting a.txt was denied.')
    expect(loop.world.deleted).toEqual([])

    const [first, second] = loop.server.requests.map((request) => request.body as Record<string, unknown>)
    expect(first?.tools).toEqual(tools.responses)
    expect(first?.tools).toMatchObject([{ type: 'function', name: 'read_file' }, { type: 'function', name: 'delete_file' }])

    const sent = second?.input as Array<Record<string, unknown>>
    expect(sent.map((item) => item.type ?? item.role)).toEqual([
      'user', 'function_call', 'function_call', 'function_call',
      'function_call_output', 'function_call_output', 'function_call_output', 'message',
    ])
    expect(sent.slice(4, 7).map((item) => item.call_id)).toEqual(['call_a1', 'call_b2', 'call_c3'])
    expect(textOf(sent[4]?.output)).toContain('a.txt: hello')
    expect(textOf(sent[5]?.output)).toMatch(/^Error \(PROVIDER_MALFORMED_CALL\)/)
    expect(textOf(sent[5]?.output)).toContain('array')
    expect(textOf(sent[6]?.output)).toContain(denyReason)
    expect(sent[7]).toMatchObject({ role: 'user' })
    expect(textOf(sent[7]?.content)).toContain(readNote)
    expect(steps[0]?.results.map((result) => result.error?.code)).toEqual([undefined, 'PROVIDER_MALFORMED_CALL', 'DENIED'])
  })

  it('stops on a refusal without running anything', async () => {
    const openai = await client([{ path: '/v1/responses', body: fixture('openai-responses-refusal') }])
    const { steps, response } = await responsesLoop(openai, loop.world.ctx)
    expect(loop.server.requests).toHaveLength(1)
    expect(response.output[0]).toMatchObject({ type: 'message', content: [{ type: 'refusal', refusal: "I'm sorry, I can't help with that." }] })
    expect(steps).toEqual([])
  })
})

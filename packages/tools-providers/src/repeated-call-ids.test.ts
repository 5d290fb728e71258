import type { ToolExecutionResult } from '@dsh/tools-core'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { anthropicTools, toAnthropicMessage } from './anthropic/index.js'
import { geminiTools, toGeminiContent } from './gemini/index.js'
import { openaiTools, toOpenAIChatMessages, toOpenAIResponsesInput } from './openai/index.js'
import { readFile, textResult } from './test-fixtures.js'
import { loopContext, textOf } from './test-support/loop-tools.js'

let world: Awaited<ReturnType<typeof loopContext>>
beforeEach(async () => {
  world = await loopContext()
})
afterEach(async () => {
  await world.dispose()
})

const chatCall = (id: string, path: string) => ({ id, type: 'function' as const, function: { name: 'read_file', arguments: JSON.stringify({ path }) } })
const repeatNote = 'is the id of an earlier call in the same turn'

describe('a model that repeats a call id in one turn', () => {
  it('OpenAI Chat: only the first call runs, and the reply answers the id once with both results', async () => {
    const tools = openaiTools([readFile])
    const calls = tools.parseChatCalls([chatCall('c1', 'a.txt'), chatCall('c1', 'b.txt'), chatCall('c2', 'a.txt')])
    expect(calls.map((call) => call.ok)).toEqual([true, false, true])
    const refused = calls[1]!
    if (refused.ok) throw new Error('unreachable')
    expect(refused.result.error).toEqual({ name: 'MalformedToolCallError', code: 'PROVIDER_MALFORMED_CALL' })
    expect(textOf(refused.result.content)).toContain(`its id "c1" ${repeatNote}`)

    const step = await world.ctx.tools.executeStep(calls)
    const messages = toOpenAIChatMessages(step.results, { additionalContext: step.additionalContext })
    const answers = messages.filter((message) => message.role === 'tool')
    expect(answers.map((message) => message.tool_call_id)).toEqual(['c1', 'c2'])
    const first = String(answers[0]!.content)
    expect(first).toContain('2 calls in this turn had the id "c1"')
    expect(first).toMatch(/Call 1 of 2:\na\.txt: hello/)
    expect(first).toMatch(/Call 2 of 2: Error \(PROVIDER_MALFORMED_CALL\): the tool call failed\.\n.*did not run/)
    // The first call succeeded, so the merged answer is not marked as a failure as a whole.
    expect(first.startsWith('Error')).toBe(false)
  })

  it('OpenAI Responses: one function_call_output per call_id', async () => {
    const tools = openaiTools([readFile])
    const item = (id: string) => ({ type: 'function_call', call_id: id, name: 'read_file', arguments: '{"path":"a.txt"}' })
    const calls = tools.parseResponsesCalls([item('x'), item('x')])
    expect(calls.map((call) => call.ok)).toEqual([true, false])
    const step = await world.ctx.tools.executeStep(calls)
    const items = toOpenAIResponsesInput(step.results)
    expect(items.filter((entry) => entry.type === 'function_call_output').map((entry) => (entry as { call_id: string }).call_id)).toEqual(['x'])
  })

  it('Anthropic: one tool_result per tool_use id, is_error only when every merged result failed', async () => {
    const tools = anthropicTools([readFile])
    const use = (id: string, path: string) => ({ type: 'tool_use', id, name: 'read_file', input: { path } })
    const calls = tools.parseCalls([use('t1', 'missing.txt'), use('t1', 'a.txt')])
    expect(calls.map((call) => call.ok)).toEqual([true, false])
    const step = await world.ctx.tools.executeStep(calls)
    const message = toAnthropicMessage(step.results)
    const results = message.content.filter((block) => block.type === 'tool_result')
    expect(results).toHaveLength(1)
    // Both failed (a missing file, then the refused repeat): the answer is an error.
    expect(results[0]).toMatchObject({ tool_use_id: 't1', is_error: true })
    expect(textOf((results[0] as { content: unknown }).content)).toContain('Call 2 of 2: Error (PROVIDER_MALFORMED_CALL)')
  })

  it('Gemini: the repeat gets an id of its own inside the step and is refused; each call is answered in order with Gemini\'s id', async () => {
    const tools = geminiTools([readFile])
    const part = (id: string) => ({ functionCall: { id, name: 'read_file', args: { path: 'a.txt' } } })
    const calls = tools.parseCalls([part('g1'), part('g1')], { makeCallId: () => 'g1' })
    expect(calls.map((call) => call.ok)).toEqual([true, false])
    expect(new Set(calls.map((call) => call.callId)).size).toBe(2)
    expect(calls.map((call) => call.providerCallId)).toEqual(['g1', 'g1'])
    const step = await world.ctx.tools.executeStep(calls)
    const content = toGeminiContent(step.results, calls)
    const responses = content.parts.flatMap((entry) => ('functionResponse' in entry && entry.functionResponse ? [entry.functionResponse] : []))
    expect(responses.map((response) => response.id)).toEqual(['g1', 'g1'])
    expect(responses[0]!.response).toEqual({ output: 'a.txt: hello' })
    expect(String((responses[1]!.response as { error: string }).error)).toContain(repeatNote)
  })

  it('Gemini: a makeCallId that repeats itself or a provider id still gives every call its own id, and all of them run', () => {
    const tools = geminiTools([readFile])
    const part = (id?: string) => ({ functionCall: { ...(id === undefined ? {} : { id }), name: 'read_file', args: { path: 'a.txt' } } })
    const calls = tools.parseCalls([part('k'), part(), part()], { makeCallId: () => 'k' })
    expect(calls.every((call) => call.ok)).toBe(true)
    expect(calls.map((call) => call.callId)).toEqual(['k', 'k-2', 'k-3'])
  })
})

// Any ids, any repeats: the converters never throw, and each provider gets the answers its API takes.
const ids = fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 6 })
const results = (list: readonly string[]): ToolExecutionResult[] => list.map((id, index) => ({ ...textResult(id, `r${index}`), isError: index % 2 === 1 }))

describe('repeated ids, for every list of ids', () => {
  it('OpenAI and Anthropic answer each distinct id exactly once, in the order of first appearance, and lose no result', () => {
    fc.assert(
      fc.property(ids, (list) => {
        const distinct = [...new Set(list)]
        const chat = toOpenAIChatMessages(results(list)).filter((message) => message.role === 'tool')
        expect(chat.map((message) => message.tool_call_id)).toEqual(distinct)
        const all = chat.map((message) => String(message.content)).join('\n')
        list.forEach((_, index) => expect(all).toMatch(new RegExp(`(^|\\n)r${index}(\\n|$)`)))
        const anthropic = toAnthropicMessage(results(list)).content.filter((block) => block.type === 'tool_result')
        expect(anthropic.map((block) => (block as { tool_use_id: string }).tool_use_id)).toEqual(distinct)
        const responses = toOpenAIResponsesInput(results(list))
        expect(responses.map((item) => (item as { call_id: string }).call_id)).toEqual(distinct)
      }),
      { numRuns: 200 },
    )
  })

  it('Gemini answers every call once, in order, whatever ids the model repeated', () => {
    fc.assert(
      fc.property(ids, (list) => {
        const tools = geminiTools([readFile])
        const calls = tools.parseCalls(list.map((id) => ({ functionCall: { id, name: 'read_file', args: { path: 'a.txt' } } })))
        const content = toGeminiContent(
          calls.map((call) => (call.ok ? textResult(call.callId, 'ok') : call.result)),
          calls,
        )
        const responses = content.parts.flatMap((entry) => ('functionResponse' in entry && entry.functionResponse ? [entry.functionResponse] : []))
        expect(responses.map((response) => response.id)).toEqual(list)
        const seen = new Set<string>()
        list.forEach((id, index) => {
          expect('error' in responses[index]!.response!).toBe(seen.has(id))
          seen.add(id)
        })
      }),
      { numRuns: 200 },
    )
  })
})

import { DshError } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import { anthropicTools, toAnthropicMessage } from './anthropic/index.js'
import { geminiTools, toGeminiContent } from './gemini/index.js'
import { ProviderInputError } from './input-error.js'
import { openaiTools, toOpenAIChatMessages, toOpenAIResponsesInput } from './openai/index.js'
import { readFile, textResult } from './test-fixtures.js'

const throwing = (shape: Record<string, unknown>, key: string): Record<string, unknown> =>
  Object.defineProperty({ ...shape }, key, { enumerable: true, get: () => { throw new Error('boom') } })

/** Runs `run` and returns what it threw. */
function thrownBy(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

describe('hostile callers get a typed error, never a crash or a half-built message', () => {
  it('a getter that throws inside a tool list, a provider message or a result is PROVIDER_INVALID_INPUT', () => {
    const runs: (() => unknown)[] = [
      () => openaiTools([throwing(readFile as never, 'parameters') as never]),
      () => anthropicTools([{ ...readFile, parameters: throwing(readFile.parameters as never, 'properties') as never }], { profile: 'anthropic-strict' }),
      () => openaiTools([readFile]).parseChatCalls([throwing({ id: 'c', type: 'function' }, 'function') as never]),
      () => anthropicTools([readFile]).parseCalls([throwing({ type: 'tool_use', id: 't' }, 'input') as never]),
      () => geminiTools([readFile]).parseCalls([throwing({}, 'functionCall') as never]),
      () => toOpenAIChatMessages([throwing(textResult('c', 'x') as never, 'content') as never]),
      () => toOpenAIResponsesInput([textResult('c', 'x')], throwing({}, 'additionalContext') as never),
      () => toAnthropicMessage([{ ...textResult('c', 'x'), content: [throwing({ type: 'text' }, 'text') as never] }]),
      () => toGeminiContent([textResult('c', 'x')], [throwing({}, 'callId') as never]),
    ]
    for (const run of runs) {
      const error = thrownBy(run)
      expect(ProviderInputError.isInstance(error), String(error)).toBe(true)
      expect((error as DshError).code).toBe('PROVIDER_INVALID_INPUT')
      expect((error as Error).message).toContain('reading the input failed (boom)')
    }
  })

  it('a result read once: a getter that turns malformed after the check cannot reach the message', () => {
    let reads = 0
    const sneaky = Object.defineProperty({ callId: 'c', isError: false }, 'content', {
      enumerable: true,
      get: () => (++reads === 1 ? [{ type: 'text', text: 'fine' }] : [{ type: 'text', text: 42 }]),
    })
    expect(toOpenAIChatMessages([sneaky as never])).toEqual([{ role: 'tool', tool_call_id: 'c', content: 'fine' }])
    expect(reads).toBe(1)
  })

  it('a schema changed after the list was built changes neither the list nor the inverse mapping', () => {
    const parameters = JSON.parse(JSON.stringify(readFile.parameters)) as { properties: Record<string, unknown>; required: string[] }
    const tools = openaiTools([{ ...readFile, parameters: parameters as never }], { profile: 'openai-strict' })
    parameters.required.push('limit')
    parameters.properties['path'] = { type: 'integer' }
    expect(tools.chat[0]?.function.parameters['properties']).toMatchObject({ path: { type: 'string' } })
    const [call] = tools.parseChatCalls([{ id: 'c', type: 'function', function: { name: 'read_file', arguments: '{"path":"a","limit":null,"options":null}' } }])
    expect(call?.ok && call.input.arguments).toEqual({ path: 'a' })
  })
})

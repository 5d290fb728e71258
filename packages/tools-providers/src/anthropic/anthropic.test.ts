import { describe, expect, it } from 'vitest'
import { ProviderInputError } from '../input-error.js'
import { ProviderSchemaError } from '../schema-error.js'
import { errorResult, mixedResult, png, readFile, setEnv, textResult } from '../test-fixtures.js'
import { ProviderToolNameError } from '../tool-name-error.js'
import { geminiLegacyTools } from '../gemini/index.js'
import { anthropicTools, toAnthropicMessage } from './index.js'

const bounded = {
  name: 'search',
  description: 'Search.',
  parameters: { type: 'object' as const, properties: { query: { type: 'string', minLength: 1, description: 'Words.' }, limit: { type: 'integer', minimum: 1, maximum: 50 } }, required: ['query'] },
}

describe('anthropicTools: tool lists', () => {
  it('sends input_schema as it is with the default profile, without strict', () => {
    expect(anthropicTools([readFile]).tools).toEqual([{ name: 'read_file', description: 'Read a file.', input_schema: readFile.parameters }])
  })

  it('anthropic-strict: objects closed, bounds moved into the description and reported as widened, strict: true', () => {
    const tools = anthropicTools([bounded], { profile: 'anthropic-strict' })
    expect(tools.tools).toEqual([
      {
        name: 'search',
        description: 'Search.',
        strict: true,
        input_schema: {
          type: 'object',
          properties: { query: { type: 'string', description: 'Words. (minLength: 1)' }, limit: { type: 'integer', description: '(minimum: 1; maximum: 50)' } },
          required: ['query'],
          additionalProperties: false,
        },
      },
    ])
    expect(tools.issues.map((issue) => [issue.kind, issue.path, issue.keyword])).toEqual([
      ['widened', 'query', 'minLength'],
      ['widened', 'limit', 'minimum'],
      ['widened', 'limit', 'maximum'],
    ])
    expect(tools.issues[1]?.message).toBe(
      'tool "search" loses minimum at "limit" on anthropic-strict: moved into the description; the provider does not enforce it; ' +
        "only the tool's own argument validation, if it checks it, rejects a value that breaks it",
    )
  })

  it('the lint never claims the tool enforces a moved keyword: a raw JSON-Schema tool (no validateArguments) enforces none', () => {
    // The projection sees the schema alone, not whether the tool validates its arguments, so no message may
    // promise enforcement; each says the provider no longer holds the model to the keyword.
    const messages = [
      ...anthropicTools([bounded], { profile: 'anthropic-strict' }).issues,
      ...geminiLegacyTools([{ name: 'pick', description: 'Pick.', parameters: { type: 'object', properties: { n: { type: 'integer', enum: [1, 2] }, o: { type: 'object', properties: {} } } } }]).issues,
    ].map((issue) => issue.message)
    expect(messages.length).toBeGreaterThanOrEqual(4)
    for (const message of messages) {
      expect(message).not.toMatch(/the tool still (enforces|rejects)/)
      expect(message).toMatch(/only the tool's own argument validation, if it checks (it|them), rejects/)
    }
  })

  it('a schema anthropic-strict cannot express fails unless fallback is asked for', () => {
    expect(() => anthropicTools([setEnv], { profile: 'anthropic-strict' })).toThrow(ProviderSchemaError)
    expect(anthropicTools([setEnv], { profile: 'anthropic-strict', fallback: 'non-strict' }).tools[0]).toEqual({ name: 'set_env', description: 'Set variables.', input_schema: setEnv.parameters })
  })

  it('rejects names Anthropic rejects, with the rule in the message', () => {
    expect(() => anthropicTools([{ ...readFile, name: 'a.b' }])).toThrow(/Anthropic accepts letters, digits, "_" and "-" only, 1 to 128 characters/)
    expect(() => anthropicTools([{ ...readFile, name: 'x'.repeat(129) }])).toThrow(ProviderToolNameError)
    expect(anthropicTools([{ ...readFile, name: 'x'.repeat(128) }]).tools).toHaveLength(1)
  })
})

describe('anthropicTools: calls in', () => {
  const { parseCalls } = anthropicTools([readFile])

  it('reads tool_use blocks in order with their ids, skipping text and thinking blocks', () => {
    const calls = parseCalls([
      { type: 'thinking' },
      { type: 'text' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a' } },
      { type: 'tool_use', id: 'toolu_2', name: 'read_file', input: { path: 'b' } },
    ] as never)
    expect(calls.map((parsed) => parsed.ok && parsed.input)).toEqual([
      { callId: 'toolu_1', name: 'read_file', arguments: { path: 'a' } },
      { callId: 'toolu_2', name: 'read_file', arguments: { path: 'b' } },
    ])
  })

  it('an input that is not an object, or no name, is an error result; a block without an id is the caller\'s error', () => {
    const [list, noName] = parseCalls([
      { type: 'tool_use', id: 't1', name: 'read_file', input: ['a'] },
      { type: 'tool_use', id: 't2', input: {} },
    ] as never)
    expect(list?.ok === false && (list.result.content[0] as { text: string }).text).toContain('its input is an array, not a JSON object')
    expect(noName?.ok === false && noName.result.error?.code).toBe('PROVIDER_MALFORMED_CALL')
    expect(() => parseCalls([{ type: 'tool_use', name: 'x', input: {} }] as never)).toThrow(ProviderInputError)
    expect(() => parseCalls('x' as never)).toThrow(ProviderInputError)
  })
})

describe('toAnthropicMessage: results out', () => {
  it('every tool_result first and in order, is_error on errors, images and PDFs as blocks, then the context', () => {
    const message = toAnthropicMessage([textResult('t1', 'hi'), errorResult('t2'), mixedResult('t3')], {
      additionalContext: [{ content: [{ type: 'text', text: 'ctx' }] }],
    })
    expect(message.role).toBe('user')
    expect(message.content.map((block) => block.type)).toEqual(['tool_result', 'tool_result', 'tool_result', 'text'])
    expect(message.content[0]).toEqual({ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'hi' }] })
    expect(message.content[1]).toEqual({ type: 'tool_result', tool_use_id: 't2', is_error: true, content: [{ type: 'text', text: 'Tool "nope" is not available.' }] })
    const mixed = message.content[2] as { content: { type: string }[] }
    expect(mixed.content.map((block) => block.type)).toEqual(['text', 'image', 'text', 'text', 'text', 'document', 'text'])
    expect(mixed.content[1]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } })
    expect(mixed.content[2]).toEqual({ type: 'text', text: '[audio (audio/wav), 4 bytes, not shown: this provider cannot take it here]' })
    expect(message.content[3]).toEqual({ type: 'text', text: 'ctx' })
  })

  it('an empty result still carries content the API accepts', () => {
    const message = toAnthropicMessage([{ callId: 't1', content: [], isError: false }, { callId: 't2', content: [], isError: true, error: { name: 'X', code: 'TOOL_FAILED' } }])
    expect(message.content).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: '(no output)' }] },
      { type: 'tool_result', tool_use_id: 't2', is_error: true, content: [{ type: 'text', text: 'Error (TOOL_FAILED): the tool call failed.' }] },
    ])
  })
})

import { describe, expect, it } from 'vitest'
import { ProviderInputError } from '../input-error.js'
import { ProviderSchemaError } from '../schema-error.js'
import { errorResult, mixedResult, png, readFile, setEnv, textResult } from '../test-fixtures.js'
import { ProviderToolNameError } from '../tool-name-error.js'
import { openaiTools, toOpenAIChatMessages, toOpenAIResponsesInput } from './index.js'

const call = (id: string, name: string, args: string) => ({ id, type: 'function', function: { name, arguments: args } })

describe('openaiTools: tool lists', () => {
  it('sends the schema as it is with the default profile, strict: false', () => {
    const [tool] = openaiTools([readFile]).chat
    expect(tool).toEqual({ type: 'function', function: { name: 'read_file', description: 'Read a file.', parameters: readFile.parameters, strict: false } })
    expect(openaiTools([readFile]).responses[0]).toEqual({ type: 'function', name: 'read_file', description: 'Read a file.', parameters: readFile.parameters, strict: false })
  })

  it('openai-strict: every object closed, every property required, optional ones nullable, default moved into the description', () => {
    const tools = openaiTools([readFile], { profile: 'openai-strict' })
    expect(tools.chat[0]?.function).toEqual({
      name: 'read_file',
      description: 'Read a file.',
      strict: true,
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'The file.' },
          limit: { anyOf: [{ type: 'integer', description: '(default: 100)' }, { type: 'null' }] },
          options: {
            anyOf: [{ type: 'object', properties: { follow: { anyOf: [{ type: 'boolean' }, { type: 'null' }] } }, required: ['follow'], additionalProperties: false }, { type: 'null' }],
          },
        },
        required: ['path', 'limit', 'options'],
        additionalProperties: false,
      },
    })
    expect(tools.issues.map((issue) => issue.message)).toEqual([
      'tool "read_file" loses default at "limit" on openai-strict: moved into the description (an annotation: validation is unchanged)',
    ])
  })

  it('a schema openai-strict cannot express fails the build, listing every construct, unless fallback is asked for', () => {
    let thrown: unknown
    try {
      openaiTools([readFile, setEnv], { profile: 'openai-strict' })
    } catch (error) {
      thrown = error
    }
    expect(ProviderSchemaError.isInstance(thrown)).toBe(true)
    const error = thrown as ProviderSchemaError
    expect(error.code).toBe('PROVIDER_UNSUPPORTED_SCHEMA')
    expect(error.issues.map((issue) => `${issue.path} ${issue.keyword}`)).toEqual(['vars additionalProperties', 'extra type'])
    expect(error.message).toContain('tool "set_env" loses additionalProperties at "vars" on openai-strict: an open object (other keys allowed)')

    const tools = openaiTools([readFile, setEnv], { profile: 'openai-strict', fallback: 'non-strict' })
    expect(tools.chat.map((tool) => [tool.function.name, tool.function.strict])).toEqual([['read_file', true], ['set_env', false]])
    expect(tools.chat[1]?.function.parameters).toEqual(setEnv.parameters)
    expect(tools.issues.filter((issue) => issue.kind === 'unsupported')).toHaveLength(2)
  })

  it('rejects names OpenAI rejects, and duplicates, with the rule in the message', () => {
    const tool = (name: string) => ({ ...readFile, name })
    expect(() => openaiTools([tool('mcp.server.tool'), tool('ok'), tool('ok'), tool('x'.repeat(65))])).toThrow(ProviderToolNameError)
    try {
      openaiTools([tool('mcp.server.tool'), tool('ok'), tool('ok')])
    } catch (error) {
      expect((error as ProviderToolNameError).code).toBe('PROVIDER_INVALID_TOOL_NAME')
      expect((error as ProviderToolNameError).names).toEqual(['mcp.server.tool', 'ok'])
      expect((error as Error).message).toBe(
        'OpenAI would reject the tool list (2 names):\n' +
          '- "mcp.server.tool": OpenAI accepts letters, digits, "_" and "-" only, 1 to 64 characters (^[a-zA-Z0-9_-]{1,64}$)\n' +
          '- "ok": two tools of one list share the name',
      )
    }
  })

  it('a malformed list or option is a typed error, not a crash', () => {
    expect(() => openaiTools('nope' as never)).toThrow(ProviderInputError)
    expect(() => openaiTools([{ name: 'x' }] as never)).toThrow('tool "x" has no string description')
    expect(() => openaiTools([readFile], { profile: 'strict' as never })).toThrow(ProviderInputError)
    expect(() => openaiTools([readFile], { profile: 'openai-strict', fallback: 'maybe' as never })).toThrow(ProviderInputError)
  })

  it('each read of the list is a fresh copy: a caller mutating one cannot change the next request', () => {
    const tools = openaiTools([readFile])
    const first = tools.chat
    ;(first[0]!.function.parameters as { type: string }).type = 'string'
    expect(tools.chat[0]?.function.parameters['type']).toBe('object')
  })
})

describe('openaiTools: calls in', () => {
  const tools = openaiTools([readFile], { profile: 'openai-strict' })

  it('keeps ids and order, and removes the nulls strict mode sends for omitted optional properties', () => {
    const signal = new AbortController().signal
    const agent = { id: 'a1' }
    const calls = tools.parseChatCalls(
      [call('call_1', 'read_file', '{"path":"a","limit":null,"options":{"follow":null}}'), call('call_2', 'read_file', '{"path":"b","limit":5,"options":null}')],
      { agent, signal },
    )
    expect(calls.map((parsed) => parsed.ok && parsed.input)).toEqual([
      { callId: 'call_1', name: 'read_file', arguments: { path: 'a', options: {} }, agent, signal },
      { callId: 'call_2', name: 'read_file', arguments: { path: 'b', limit: 5 }, agent, signal },
    ])
    expect(calls[0]?.providerCallId).toBe('call_1')
  })

  it('does not remove nulls for a tool sent without the strict profile (fallback), nor for a tool not in the list', () => {
    const mixed = openaiTools([readFile, setEnv], { profile: 'openai-strict', fallback: 'non-strict' })
    const [fallen, unknown] = mixed.parseChatCalls([call('c1', 'set_env', '{"vars":{},"extra":null}'), call('c2', 'other', '{"limit":null}')])
    expect(fallen?.ok && fallen.input.arguments).toEqual({ vars: {}, extra: null })
    expect(unknown?.ok && unknown.input.arguments).toEqual({ limit: null })
  })

  it('arguments that are not JSON, not an object, or not lossless become an error result that says so; no input is made', () => {
    const texts = ['{"path": "a"', '["a"]', '"a"', 'null', '{"path":"a","path":"b"}', '{"n": 123456789012345678901}', '']
    const calls = tools.parseChatCalls(texts.map((text, index) => call(`c${index}`, 'read_file', text)))
    expect(calls.every((parsed) => !parsed.ok)).toBe(true)
    const texts2 = calls.map((parsed) => (parsed.ok ? '' : (parsed.result.content[0] as { text: string }).text))
    expect(texts2[0]).toBe(
      'Your call to "read_file" did not run: its arguments are not valid JSON (expected "," or "}" in an object, got end of text). Nothing was executed; send the call again with its arguments as one JSON object that matches the tool\'s parameters.',
    )
    expect(texts2[1]).toContain('its arguments are an array, not a JSON object')
    expect(texts2[2]).toContain('its arguments are a string, not a JSON object')
    expect(texts2[3]).toContain('its arguments are null, not a JSON object')
    expect(texts2[4]).toContain('the key "path" appears twice')
    expect(texts2[5]).toContain('more precision than a 64-bit number holds')
    const first = calls[0]!
    expect(first.ok === false && first.result).toMatchObject({ callId: 'c0', isError: true, error: { name: 'MalformedToolCallError', code: 'PROVIDER_MALFORMED_CALL' } })
    expect(Object.isFrozen(first.ok === false && first.result)).toBe(true)
  })

  it('a call without a name or a custom tool call is an error result; a call without an id is the caller\'s error', () => {
    const [noName, custom] = tools.parseChatCalls([
      { id: 'c1', type: 'function', function: { name: '', arguments: '{}' } },
      { id: 'c2', type: 'custom', custom: { name: 'grammar', input: 'x' } } as never,
    ])
    expect(noName?.ok === false && (noName.result.content[0] as { text: string }).text).toContain('Your tool call did not run: its tool name is empty')
    expect(custom?.ok === false && (custom.result.content[0] as { text: string }).text).toContain('it is a "custom" tool call')
    expect(() => tools.parseChatCalls([{ type: 'function' }] as never)).toThrow(ProviderInputError)
    expect(tools.parseChatCalls(null)).toEqual([])
  })

  it('Responses: reads function_call items by call_id and skips the rest', () => {
    const calls = tools.parseResponsesCalls([
      { type: 'reasoning' },
      { type: 'function_call', call_id: 'fc_1', name: 'read_file', arguments: '{"path":"x","limit":null,"options":null}' },
      { type: 'message' },
    ] as never)
    expect(calls).toHaveLength(1)
    expect(calls[0]?.ok && calls[0].input).toEqual({ callId: 'fc_1', name: 'read_file', arguments: { path: 'x' } })
  })
})

describe('toOpenAIChatMessages: results out', () => {
  it('one tool message per result in order; an error says so in the text (tool messages have no isError)', () => {
    expect(toOpenAIChatMessages([textResult('c1', 'hi'), errorResult('c2')])).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: 'hi' },
      { role: 'tool', tool_call_id: 'c2', content: 'Error (UNKNOWN_TOOL): the tool call failed.\nTool "nope" is not available.' },
    ])
  })

  it('images and wav audio go to one user message after all tool messages; the other blocks become text; context comes last', () => {
    const messages = toOpenAIChatMessages([mixedResult('c1'), textResult('c2', 'plain')], {
      additionalContext: [{ content: [{ type: 'text', text: 'remember this' }] }],
    })
    expect(messages.map((message) => message.role)).toEqual(['tool', 'tool', 'user'])
    expect(messages[0]?.content).toBe(
      [
        'see attached',
        '[image 1: attached in the next user message]',
        '[audio 2: attached in the next user message]',
        '[resource link: a.txt <file:///a.txt> (text/plain)]',
        '[resource <file:///b.txt> (text/plain)]\nhello',
        '[resource <file:///c.pdf> (application/pdf): 5 bytes of binary data, not shown]',
        '[resource <file:///d.bin> (application/octet-stream): 3 bytes of binary data, not shown]',
      ].join('\n'),
    )
    expect(messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Attachments of tool call c1:' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
        { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
        { type: 'text', text: 'remember this' },
      ],
    })
  })

  it('takes additionalContext from the results when none is given, and places it after every result', () => {
    const withContext = { ...textResult('c1', 'a'), additionalContext: { content: [{ type: 'text' as const, text: 'ctx' }] } }
    const messages = toOpenAIChatMessages([withContext, textResult('c2', 'b')])
    expect(messages.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: 'ctx' }] })
    expect(messages).toHaveLength(3)
  })

  it('a malformed result is the caller\'s error', () => {
    expect(() => toOpenAIChatMessages([{ callId: 'c1' }] as never)).toThrow(ProviderInputError)
    expect(() => toOpenAIChatMessages([{ ...textResult('c1', 'a'), content: [{ type: 'video' }] }] as never)).toThrow('not a well-formed content block')
  })
})

describe('toOpenAIResponsesInput: results out', () => {
  it('function_call_output per result: text as a string, images and PDFs as parts, context in a user message after them', () => {
    const items = toOpenAIResponsesInput([textResult('c1', 'hi'), errorResult('c2'), mixedResult('c3')], {
      additionalContext: [{ content: [{ type: 'text', text: 'ctx' }] }],
    })
    expect(items[0]).toEqual({ type: 'function_call_output', call_id: 'c1', output: 'hi' })
    expect(items[1]).toEqual({ type: 'function_call_output', call_id: 'c2', output: 'Error (UNKNOWN_TOOL): the tool call failed.\nTool "nope" is not available.' })
    const output = (items[2] as { output: { type: string }[] }).output
    expect(output.map((part) => part.type)).toEqual(['input_text', 'input_image', 'input_text', 'input_text', 'input_text', 'input_file', 'input_text'])
    expect(output[5]).toEqual({ type: 'input_file', file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'c.pdf' })
    expect(items[3]).toEqual({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'ctx' }] })
  })
})

import { describe, expect, it } from 'vitest'
import { ProviderInputError } from '../input-error.js'
import { ProviderSchemaError } from '../schema-error.js'
import { errorResult, mixedResult, png, readFile, textResult } from '../test-fixtures.js'
import { geminiLegacyTools, geminiMediaPlacement, geminiTools, toGeminiContent } from './index.js'

const nullable = {
  name: 'pick',
  description: 'Pick.',
  parameters: {
    type: 'object' as const,
    properties: {
      mode: { oneOf: [{ type: 'string', enum: ['a', 'b'] }, { type: 'null' }] },
      tags: { type: 'array', items: { type: 'string' }, minItems: 1, uniqueItems: true },
      kind: { type: 'string', const: 'x' },
    },
  },
}

describe('geminiTools / geminiLegacyTools: tool lists', () => {
  it('gemini: parametersJsonSchema as it is, without a root $schema', () => {
    const schema = { ...readFile, parameters: { ...readFile.parameters, $schema: 'https://json-schema.org/draft/2020-12/schema' } }
    expect(geminiTools([schema]).tools).toEqual([{ functionDeclarations: [{ name: 'read_file', description: 'Read a file.', parametersJsonSchema: readFile.parameters }] }])
  })

  it('gemini-legacy: OpenAPI types, "X or null" as nullable, const as a one-value enum, counts as strings', () => {
    const tools = geminiLegacyTools([nullable])
    expect(tools.functionDeclarations[0]?.parameters).toEqual({
      type: 'OBJECT',
      properties: {
        mode: { type: 'STRING', enum: ['a', 'b'], nullable: true },
        tags: { type: 'ARRAY', items: { type: 'STRING' }, minItems: '1', description: '(uniqueItems: true)' },
        kind: { type: 'STRING', enum: ['x'] },
      },
    })
    expect(tools.issues.map((issue) => `${issue.kind} ${issue.path} ${issue.keyword}`)).toEqual(['widened tags uniqueItems'])
  })

  it('gemini-legacy: writes the type names it is given (the SDK enum)', () => {
    const types = { STRING: 's', NUMBER: 'n', INTEGER: 'i', BOOLEAN: 'b', ARRAY: 'a', OBJECT: 'o' } as const
    expect(geminiLegacyTools([nullable], { types }).functionDeclarations[0]?.parameters?.type).toBe('o')
    expect(() => geminiLegacyTools([nullable], { types: { STRING: 's' } as never })).toThrow(ProviderInputError)
  })

  it('gemini-legacy: a union it cannot express fails unless fallback is asked for (then parametersJsonSchema)', () => {
    const union = { name: 'u', description: 'U.', parameters: { type: 'object' as const, properties: { v: { oneOf: [{ type: 'string' }, { type: 'integer' }] } } } }
    expect(() => geminiLegacyTools([union])).toThrow(ProviderSchemaError)
    expect(() => geminiLegacyTools([union])).toThrow('tool "u" loses oneOf at "v" on gemini-legacy: Gemini (OpenAPI parameters) has no unions')
    expect(geminiLegacyTools([union], { fallback: 'non-strict' }).functionDeclarations[0]).toEqual({ name: 'u', description: 'U.', parametersJsonSchema: union.parameters })
  })

  it('rejects names Gemini rejects (a digit first), accepts dots', () => {
    expect(() => geminiTools([{ ...readFile, name: '1tool' }])).toThrow(/Gemini accepts a letter or "_" first/)
    expect(geminiTools([{ ...readFile, name: 'mcp.files.read' }]).functionDeclarations).toHaveLength(1)
  })
})

describe('geminiTools: calls in', () => {
  const { parseCalls } = geminiTools([readFile])

  it('reads functionCall parts in order, keeping Gemini ids and making one when it sent none', () => {
    const calls = parseCalls(
      [{ text: 'thinking' } as never, { functionCall: { id: 'g1', name: 'read_file', args: { path: 'a' } } }, { functionCall: { name: 'read_file' } }],
      { makeCallId: (index) => `made-${index}` },
    )
    expect(calls.map((parsed) => [parsed.callId, parsed.providerCallId, parsed.ok && parsed.input.arguments])).toEqual([
      ['g1', 'g1', { path: 'a' }],
      ['made-1', undefined, {}],
    ])
  })

  it('reads response.functionCalls too; a call with no name or non-object args is an error result', () => {
    const calls = parseCalls([{ name: 'read_file', args: { path: 'x' } }, { name: '', args: {} }, { functionCall: { id: 'g3', name: 'read_file', args: [1] as never } }])
    expect(calls[0]?.ok).toBe(true)
    expect(calls[1]?.ok === false && calls[1].result.error?.code).toBe('PROVIDER_MALFORMED_CALL')
    expect(calls[2]?.ok === false && (calls[2].result.content[0] as { text: string }).text).toContain('its args are an array, not a JSON object')
    expect(calls[0]?.callId).toMatch(/^gemini-[0-9a-f-]{36}$/)
  })
})

describe('toGeminiContent: results out', () => {
  const { parseCalls } = geminiTools([readFile])
  const calls = parseCalls([{ functionCall: { id: 'g1', name: 'read_file', args: {} } }, { functionCall: { name: 'read_file', args: {} } }, { functionCall: { id: 'g3', name: 'read_file', args: {} } }], {
    makeCallId: () => 'made',
  })

  it('functionResponse parts first and in order, with name and Gemini id; error results under "error"; media in parts (Gemini 3); then the context', () => {
    const content = toGeminiContent([textResult('g1', 'hi'), errorResult('made'), mixedResult('g3')], calls, {
      additionalContext: [{ content: [{ type: 'text', text: 'ctx' }] }],
      media: 'function-response-parts',
    })
    expect(content.role).toBe('user')
    expect(content.parts[0]).toEqual({ functionResponse: { id: 'g1', name: 'read_file', response: { output: 'hi' } } })
    expect(content.parts[1]).toEqual({ functionResponse: { name: 'read_file', response: { error: 'Error (UNKNOWN_TOOL): the tool call failed.\nTool "nope" is not available.' } } })
    const mixed = (content.parts[2] as { functionResponse: { parts: { inlineData: { mimeType: string } }[]; response: { output: string } } }).functionResponse
    expect(mixed.parts.map((part) => part.inlineData.mimeType)).toEqual(['image/png', 'audio/wav', 'application/pdf'])
    expect(mixed.parts[0]).toEqual({ inlineData: { mimeType: 'image/png', data: png } })
    expect(mixed.response.output).toContain('[image/png 1: attached to this response]')
    expect(content.parts[3]).toEqual({ text: 'ctx' })
    expect(content.parts).toHaveLength(4)
  })

  it('by default the media go as inlineData parts after every functionResponse (under a line naming the response), before the context', () => {
    const content = toGeminiContent([mixedResult('g1'), errorResult('made'), textResult('g3', 'hi')], calls, { additionalContext: [{ content: [{ type: 'text', text: 'ctx' }] }] })
    const first = (content.parts[0] as unknown as { functionResponse: Record<string, unknown> }).functionResponse
    expect(first['parts']).toBeUndefined()
    expect(first['response']).toEqual({
      output: expect.stringContaining('[image/png 1: attached after the function responses]\n[audio/wav 2: attached after the function responses]') as unknown,
    })
    expect(content.parts.map((part) => Object.keys(part)[0])).toEqual(['functionResponse', 'functionResponse', 'functionResponse', 'text', 'inlineData', 'inlineData', 'inlineData', 'text'])
    expect(content.parts[3]).toEqual({ text: 'Attachments of function response 1 (read_file):' })
    expect(content.parts.slice(4, 7).map((part) => (part as { inlineData: { mimeType: string } }).inlineData.mimeType)).toEqual(['image/png', 'audio/wav', 'application/pdf'])
    expect(content.parts[7]).toEqual({ text: 'ctx' })
    expect(toGeminiContent([mixedResult('g1')], calls, { media: 'separate-parts' })).toEqual(toGeminiContent([mixedResult('g1')], calls))
  })

  it('geminiMediaPlacement: function-response-parts for Gemini 3 and later, separate-parts for earlier models and names it cannot read', () => {
    for (const model of ['gemini-3-pro-preview', 'gemini-3.1-pro-preview', 'models/gemini-3-flash-preview', 'gemini-3', 'gemini-10-ultra']) {
      expect([model, geminiMediaPlacement(model)]).toEqual([model, 'function-response-parts'])
    }
    for (const model of ['gemini-2.5-flash', 'models/gemini-2.0-flash-001', 'gemini-1.5-pro', 'gemini-flash-latest', 'gemini-30x', 'not-gemini-3', 'learnlm-2.0-flash']) {
      expect([model, geminiMediaPlacement(model)]).toEqual([model, 'separate-parts'])
    }
  })

  it('an unknown media placement is the caller\'s error', () => {
    expect(() => toGeminiContent([textResult('g1', 'x')], calls, { media: 'inline' as never })).toThrow(ProviderInputError)
    expect(() => toGeminiContent([textResult('g1', 'x')], calls, 'x' as never)).toThrow(ProviderInputError)
  })

  it('a result that answers none of the calls is the caller\'s error', () => {
    expect(() => toGeminiContent([textResult('other', 'x')], calls)).toThrow(ProviderInputError)
    expect(() => toGeminiContent([textResult('g1', 'x')], 'x' as never)).toThrow(ProviderInputError)
  })
})

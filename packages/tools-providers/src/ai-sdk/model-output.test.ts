import { describe, expect, it } from 'vitest'
import { ProviderInputError } from '../input-error.js'
import { errorResult, mixedResult, png, textResult } from '../test-fixtures.js'
import { aiSdkTools, isAiSdkToolOutput, toAiSdkModelOutput } from './index.js'

describe('toAiSdkModelOutput', () => {
  it('a text result is one text output, its blocks joined by newlines; an empty one says so', () => {
    expect(toAiSdkModelOutput(textResult('c1', 'hello'))).toEqual({ type: 'text', value: 'hello' })
    expect(toAiSdkModelOutput({ callId: 'c2', isError: false, content: [] })).toEqual({ type: 'text', value: '(no output)' })
  })

  it('an error result is error-text that starts with the code, so the SDK sends it with the provider error flag', () => {
    expect(toAiSdkModelOutput(errorResult('c1'))).toEqual({ type: 'error-text', value: 'Error (UNKNOWN_TOOL): the tool call failed.\nTool "nope" is not available.' })
  })

  it('images become image-data, audio and binary resources file-data (with the file name), links and text resources text', () => {
    expect(toAiSdkModelOutput(mixedResult('c1'))).toEqual({
      type: 'content',
      value: [
        { type: 'text', text: 'see attached' },
        { type: 'image-data', data: png, mediaType: 'image/png' },
        { type: 'file-data', data: 'UklGRg==', mediaType: 'audio/wav' },
        { type: 'text', text: '[resource link: a.txt <file:///a.txt> (text/plain)]' },
        { type: 'text', text: '[resource <file:///b.txt> (text/plain)]\nhello' },
        { type: 'file-data', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'c.pdf' },
        { type: 'file-data', data: 'AAAA', mediaType: 'application/octet-stream', filename: 'd.bin' },
      ],
    })
  })

  it("a result's additional context follows its content (the SDK loop has no place after the step)", () => {
    const result = { ...textResult('c1', 'ok'), additionalContext: { content: [{ type: 'text' as const, text: 'Reminder: tests are slow.' }], source: 'p' } }
    expect(toAiSdkModelOutput(result)).toEqual({ type: 'text', value: 'ok\nReminder: tests are slow.' })
  })

  it('something that is not a result is a ProviderInputError, not a crash inside the SDK', () => {
    for (const bad of [null, 'text', { callId: 1, isError: false, content: [] }, { callId: 'c', isError: false, content: [{ type: 'video' }] }]) {
      expect(() => toAiSdkModelOutput(bad as never)).toThrow(ProviderInputError)
    }
  })
})

describe('aiSdkTools: bad input', () => {
  const execute = async () => textResult('c', 'x')

  it('a value that is not a registry, or bad options, is a ProviderInputError', () => {
    for (const bad of [null, {}, { schemas: [], execute }, { schemas: () => [], execute: 1 }]) {
      expect(() => aiSdkTools(bad as never)).toThrow(ProviderInputError)
    }
    expect(() => aiSdkTools({ schemas: () => [], execute }, 'agent' as never)).toThrow(ProviderInputError)
  })

  it('malformed schemas, duplicate names, or a throwing schemas() are a ProviderInputError naming the problem', () => {
    const tool = { name: 'a', description: 'A.', parameters: { type: 'object', properties: {} } }
    expect(() => aiSdkTools({ schemas: () => 'x' as never, execute })).toThrow(/did not return an array/)
    expect(() => aiSdkTools({ schemas: () => [{ name: 'a' } as never], execute })).toThrow(/schemas\(\)\[0\] is not a tool schema/)
    expect(() => aiSdkTools({ schemas: () => [{ ...tool, parameters: null } as never], execute })).toThrow(/no parameters object/)
    expect(() => aiSdkTools({ schemas: () => [tool as never, tool as never], execute })).toThrow(/two tools are named "a"/)
    const throwing = { schemas: () => { throw new TypeError('revoked') }, execute }
    expect(() => aiSdkTools(throwing)).toThrow(ProviderInputError)
  })

  it('tool names that are Object.prototype members are own entries of a prototype-free set', () => {
    const schemas = () => [{ name: 'constructor', description: 'C.', parameters: { type: 'object' as const, properties: {} } }]
    const set = aiSdkTools({ schemas, execute })
    expect(Object.keys(set)).toEqual(['constructor'])
    expect(Object.getPrototypeOf(set)).toBe(null)
    expect(aiSdkTools({ schemas: () => [], execute })['toString']).toBeUndefined()
  })
})

describe('isAiSdkToolOutput', () => {
  it("holds for every result an aiSdkTools tool returns, and for nothing that is not one; it never throws", () => {
    expect(isAiSdkToolOutput(textResult('c1', 'hi'))).toBe(true)
    expect(isAiSdkToolOutput(Object.freeze(errorResult('c2')))).toBe(true)
    expect(isAiSdkToolOutput(mixedResult('c3'))).toBe(true)
    for (const value of [
      undefined,
      null,
      'text',
      { type: 'text', value: 'hi' },
      { callId: 'c', isError: 'no', content: [] },
      { callId: 1, isError: false, content: [] },
      { callId: 'c', isError: false },
      { callId: 'c', isError: false, content: [{ type: 'text' }] },
      { callId: 'c', isError: true, content: [], error: { name: 'E' } },
      { callId: 'c', isError: true, content: [], error: 'DENIED' },
    ]) {
      expect([value, isAiSdkToolOutput(value)]).toEqual([value, false])
    }
    const hostile = { callId: 'c', isError: false, get content(): never { throw new Error('no') } }
    expect(isAiSdkToolOutput(hostile)).toBe(false)
    const revoked = Proxy.revocable({}, {})
    revoked.revoke()
    expect(isAiSdkToolOutput(revoked.proxy)).toBe(false)
  })
})

import type { ContentBlock } from '@dsh/tools-core'
import { afterEach, describe, expect, it } from 'vitest'
import { mapCallResult } from './call-results.js'
import { McpCallError } from './mcp-call-error.js'
import { checkOutput } from './output-check.js'
import { DEFAULT_RESULT_BOUNDS } from './result-bounds.js'
import { gateOutputSchema } from './schema-gate.js'
import type { McpCallResult } from './session-types.js'
import { loadHostile, trustedTool } from './test-support/hostile.js'
import { expectNoLeftovers } from './test-support/load.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await expectNoLeftovers()
})

const bounds = { maxDepth: 64, maxNodes: 10_000 }
const checkOf = (schema: unknown) => gateOutputSchema(schema, 'transform', bounds).check

/** Every string the model (or a UI) reads in `content`, in UTF-8 bytes. */
function modelFacingBytes(content: readonly ContentBlock[]): number {
  let bytes = 0
  const visit = (value: unknown): void => {
    if (typeof value === 'string') bytes += Buffer.byteLength(value, 'utf8')
    else if (Array.isArray(value)) value.forEach(visit)
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(visit)
  }
  visit(content)
  return bytes
}

/** `{"a":{"a":…1…}}`, `levels` deep, as text: too deep for JSON.stringify. */
const deepJson = (levels: number): string => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`

describe('a pattern in a server outputSchema never runs on a backtracking engine', () => {
  const outputSchema = { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } }, required: ['s'] }

  it('checks structuredContent against ^(a+)+$ in linear time, end to end', async () => {
    const evil = JSON.stringify({ content: [{ type: 'text', text: 'x' }], structuredContent: { s: `${'a'.repeat(40)}b` } })
    const fine = JSON.stringify({ content: [{ type: 'text', text: 'x' }], structuredContent: { s: 'a'.repeat(40) } })
    const { t, status } = await loadHostile([trustedTool('evil', { outputSchema }), trustedTool('fine', { outputSchema })], { evil, fine }, cleanups)
    expect(status.state).toBe('ready')
    const started = performance.now()
    const bad = await t.tools.execute({ callId: 'e', name: 'mcp__fx__evil', arguments: {} })
    // Measured: a few ms. RegExp (what the SDK's ajv check used) takes 2^40 steps on this text: it never returns.
    expect(performance.now() - started).toBeLessThan(5_000)
    expect(bad.error).toEqual({ name: 'McpCallError', code: 'MCP_INVALID_OUTPUT' })
    expect(bad.content[0]?.type === 'text' && bad.content[0].text).toContain('must match pattern')
    const good = await t.tools.execute({ callId: 'f', name: 'mcp__fx__fine', arguments: {} })
    expect(good.isError).toBe(false)
    expect(good.structuredContent).toEqual({ s: 'a'.repeat(40) })
  })

  it('runs a pattern on a megabyte of text in linear time', () => {
    const check = checkOf(outputSchema)
    if (check === undefined) throw new Error('the schema was refused')
    const started = performance.now()
    const outcome = checkOutput(check, { s: `${'a'.repeat(1_000_000)}b` }, Number.MAX_SAFE_INTEGER)
    // Measured: about 30 ms on the linear-time engine.
    expect(performance.now() - started).toBeLessThan(5_000)
    expect(outcome.kind).toBe('invalid')
  })
})

describe('structuredContent is read within bounds', () => {
  it('fails a call whose structuredContent nests 100,000 levels with a coded error, not a stack overflow', async () => {
    const deep = `{"content":[{"type":"text","text":"deep"}],"structuredContent":${deepJson(100_000)}}`
    const tools = [trustedTool('checked', { outputSchema: { type: 'object' } }), trustedTool('unchecked')]
    const { t } = await loadHostile(tools, { checked: deep, unchecked: deep }, cleanups)
    const checked = await t.tools.execute({ callId: 'c', name: 'mcp__fx__checked', arguments: {} })
    expect(checked.error).toEqual({ name: 'McpCallError', code: 'MCP_INVALID_OUTPUT' })
    expect(checked.content[0]?.type === 'text' && checked.content[0].text).toContain('nested deeper than 128 levels')
    // Without an outputSchema the value is left out (and said so); the model still reads the content.
    const unchecked = await t.tools.execute({ callId: 'u', name: 'mcp__fx__unchecked', arguments: {} })
    expect(unchecked.isError).toBe(false)
    expect(unchecked.content).toEqual([{ type: 'text', text: 'deep' }])
    expect(unchecked.structuredContent).toBeUndefined()
    expect(unchecked.meta).toMatchObject({ mcp: { truncated: { structuredContent: true } } })
  })

  it('compares 20,000 uniqueItems objects in linear time, keys in any order', () => {
    const check = checkOf({ type: 'array', uniqueItems: true })
    if (check === undefined) throw new Error('the schema was refused')
    const items = Array.from({ length: 20_000 }, (_, index) => ({ id: index, tags: ['a', 'b'] }))
    const started = performance.now()
    expect(checkOutput(check, items, Number.MAX_SAFE_INTEGER)).toEqual({ kind: 'valid' })
    // Measured: about 0.2 s on a busy machine. ajv's uniqueItems (the SDK's check) compares every pair: 2 × 10^8
    // deep comparisons here.
    expect(performance.now() - started).toBeLessThan(5_000)
    const reordered = [{ a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 }]
    expect(checkOutput(check, reordered, Number.MAX_SAFE_INTEGER).kind).toBe('invalid')
    expect(checkOutput(check, [1, 1.0], Number.MAX_SAFE_INTEGER).kind).toBe('invalid')
    expect(checkOutput(check, ['1', 1], Number.MAX_SAFE_INTEGER).kind).toBe('valid')
  })

  it('does not check (nor carry) a value whose check would cost more than maxCheckCost', () => {
    // 4,000 branches, each scanning the whole string: 3.6 × 10^9 characters read if it ran to the end. Measured:
    // the check stops at its budget after about 40 ms.
    const check = checkOf({ anyOf: Array.from({ length: 4_000 }, () => ({ maxLength: 1 })) })
    if (check === undefined) throw new Error('the schema was refused')
    const result: McpCallResult = { content: [{ type: 'text', text: 'big' }], structuredContent: 'x'.repeat(900_000) }
    const started = performance.now()
    const mapped = mapCallResult(result, { server: 'fx', tool: 'big', bounds: DEFAULT_RESULT_BOUNDS, outputSchema: check })
    expect(performance.now() - started).toBeLessThan(5_000)
    expect(mapped.structuredContent).toBeUndefined()
    expect(mapped.meta.mcp.truncated).toMatchObject({ structuredContent: true })
    const small = mapCallResult({ content: [], structuredContent: 'x' }, { server: 'fx', tool: 'big', bounds: DEFAULT_RESULT_BOUNDS, outputSchema: check })
    expect(small.structuredContent).toBe('x')
  })

  it('fails a result without structuredContent when the tool has an outputSchema, as the SDK did', () => {
    const run = () => mapCallResult({ content: [{ type: 'text', text: 'x' }] }, { server: 'fx', tool: 't', bounds: DEFAULT_RESULT_BOUNDS, outputSchema: { type: 'object' } })
    expect(run).toThrow(McpCallError)
    expect(run).toThrow('no structuredContent')
  })

  it('keeps apart two tools whose outputSchemas share an $id (nothing is registered globally)', () => {
    const a = checkOf({ $id: 'https://example.invalid/same', type: 'object', required: ['a'] })
    const b = checkOf({ $id: 'https://example.invalid/same', type: 'object', required: ['b'] })
    if (a === undefined || b === undefined) throw new Error('refused')
    expect(checkOutput(a, { a: 1 }, 1e9).kind).toBe('valid')
    expect(checkOutput(b, { a: 1 }, 1e9).kind).toBe('invalid')
  })
})

describe('every model-facing string of a result is bounded', () => {
  const megabyte = 'x'.repeat(1_000_000)
  const small = { ...DEFAULT_RESULT_BOUNDS, maxTextBytes: 1_000 }

  it("keeps a resource_link's megabyte name, title, description and URI within maxTextBytes", () => {
    const link = { type: 'resource_link', uri: `file:///${megabyte}`, name: megabyte, title: megabyte, description: megabyte }
    const first = mapCallResult({ content: [link] }, { server: 'fx', tool: 't', bounds: small })
    expect(first.content).toHaveLength(1)
    expect(first.content[0]?.type).toBe('text') // the URI cannot be cut into a wrong one: the link is replaced
    expect(modelFacingBytes(first.content)).toBeLessThan(1_000)
    const fits = { type: 'resource_link', uri: 'file:///a.txt', name: megabyte, title: megabyte, description: megabyte, mimeType: megabyte }
    const second = mapCallResult({ content: [fits, fits] }, { server: 'fx', tool: 't', bounds: small })
    expect(second.content[0]).toMatchObject({ type: 'resource_link', uri: 'file:///a.txt' })
    expect(second.content[0]).not.toHaveProperty('mimeType')
    expect(modelFacingBytes(second.content)).toBeLessThan(1_000 + 400) // the budget plus the markers saying what was cut
    // The second link's URI no longer fits the budget: it becomes a placeholder rather than a link to a cut URI.
    expect(second.content[1]?.type).toBe('text')
    expect(second.meta.mcp.truncated?.textBytes).toBeGreaterThan(2_900_000)
  })

  it('bounds the URIs, MIME types, annotations and type names of every other block', () => {
    const blocks = [
      { type: 'resource', resource: { uri: `file:///${megabyte}`, text: 'x' } },
      { type: 'resource', resource: { uri: 'file:///b', mimeType: megabyte, blob: 'aGVsbG8=' } },
      { type: 'image', data: 'aGVsbG8=', mimeType: megabyte },
      { type: 'audio', data: 'aGVsbG8=', mimeType: 'audio/wav', annotations: { audience: Array(100_000).fill('user'), lastModified: megabyte, priority: 1 } },
      { type: megabyte, data: 'x' },
    ]
    const mapped = mapCallResult({ content: blocks as McpCallResult['content'] }, { server: 'fx', tool: 't', bounds: small })
    expect(modelFacingBytes(mapped.content)).toBeLessThan(1_500)
    expect(mapped.content[1]).toEqual({ type: 'resource', resource: { uri: 'file:///b', blob: 'aGVsbG8=' } })
    expect(mapped.content[3]).toEqual({ type: 'audio', data: 'aGVsbG8=', mimeType: 'audio/wav', annotations: { audience: ['user'], priority: 1 } })
  })

  it('bounds an error result the same way', () => {
    const run = () => mapCallResult({ isError: true, content: [{ type: 'resource_link', uri: 'file:///a', name: megabyte }, { type: 'text', text: megabyte }] }, { server: 'fx', tool: 't', bounds: small })
    try {
      run()
      throw new Error('no error')
    } catch (error) {
      expect(McpCallError.isInstance(error)).toBe(true)
      expect(modelFacingBytes((error as McpCallError).content ?? [])).toBeLessThan(1_400)
    }
  })
})

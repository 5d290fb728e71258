// snapshotJson's depth and expanded-size limits (MAX_JSON_DEPTH, MAX_JSON_SIZE) hold for everything the pipeline
// materializes: a call's arguments and a tool's content, meta and additionalContext. A value that is accepted
// serializes, in bounded size; one that is refused is a coded error result, never a thrown RangeError.
import { MAX_JSON_DEPTH } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import { call, createHarness, textOf, tool } from './test-kit.js'

function nested(levels: number): unknown {
  let value: unknown = 0
  for (let level = 0; level < levels; level += 1) value = { a: value }
  return value
}

/** A DAG of shared sub-objects: tiny in memory, 2^levels leaves once expanded. */
function doubling(levels: number): unknown {
  let value: unknown = { leaf: 'x'.repeat(16) }
  for (let level = 0; level < levels; level += 1) value = { a: value, b: value }
  return value
}

describe('execute() refuses values past the depth and expanded-size limits', () => {
  it('arguments 100,000 levels deep: NON_JSON_VALUE naming the depth limit, before any policy, no stack overflow', async () => {
    const { ctx, tools } = await createHarness()
    let listened = 0
    let ran = 0
    ctx.on('tools/pre-execute', (_exec, next) => (listened++, next()))
    tools.register(tool('t', { execute: async () => (ran++, []) }))
    const result = await tools.execute(call('t', { deep: nested(100_000) }))
    expect(result.isError).toBe(true)
    expect(result.error?.code).toBe('NON_JSON_VALUE')
    expect(textOf(result)).toContain('MAX_JSON_DEPTH')
    expect(listened).toBe(0)
    expect(ran).toBe(0)
  })

  it('arguments exactly at the depth limit are accepted and serialize', async () => {
    const { tools } = await createHarness()
    let received: unknown
    tools.register(tool('t', { execute: async (args) => ((received = args), []) }))
    // The arguments object is one level; the nested value fills the rest of the limit.
    const result = await tools.execute(call('t', { deep: nested(MAX_JSON_DEPTH - 1) }))
    expect(result.isError).toBe(false)
    expect(() => JSON.stringify(received)).not.toThrow()
  })

  it('arguments that expand past the size limit (a doubling DAG) are refused in linear time', async () => {
    const { tools } = await createHarness()
    tools.register(tool('t', { execute: async () => [] }))
    const started = performance.now()
    const result = await tools.execute(call('t', { dag: doubling(40) }))
    expect(result.isError).toBe(true)
    expect(result.error?.code).toBe('NON_JSON_VALUE')
    expect(textOf(result)).toContain('MAX_JSON_SIZE')
    expect(performance.now() - started).toBeLessThan(5_000) // expanded, it would be 2^40 leaves
  })

  it('a result whose content or meta is too deep or too large is a coded error result', async () => {
    const { tools } = await createHarness()
    const drafts = {
      deepMeta: { content: [], meta: { v: nested(5_000) } },
      dagMeta: { content: [], meta: { v: doubling(40) } },
      deepContent: { content: [{ type: 'text', text: 'ok', _meta: nested(5_000) }] },
    }
    for (const [name, draft] of Object.entries(drafts)) {
      tools.register(tool(name, { execute: async () => draft as never }))
      const result = await tools.execute(call(name, {}))
      expect(result.isError, name).toBe(true)
      expect(result.error?.code, name).toBe('INVALID_RESULT')
      expect(textOf(result), name).toMatch(/MAX_JSON_(DEPTH|SIZE)/)
      expect(() => JSON.stringify(result), name).not.toThrow()
      expect(JSON.stringify(result).length, name).toBeLessThan(10_000)
    }
  })

  it('additionalContext a post-execute listener adds past the limits is refused, and the result stays bounded', async () => {
    for (const extra of [nested(5_000), doubling(40)]) {
      const { ctx, tools } = await createHarness()
      tools.register(tool('t', { execute: async () => [{ type: 'text', text: 'ok' }] }))
      ctx.on('tools/post-execute', () => ({
        kind: 'accept',
        additionalContext: { content: [{ type: 'text', text: 'x', _meta: { extra } }] },
      }) as never)
      const result = await tools.execute(call('t', {}))
      expect(result.isError).toBe(true)
      expect(result.error?.code).toBe('INVALID_RESULT')
      expect(textOf(result)).toMatch(/MAX_JSON_(DEPTH|SIZE)/)
      expect(result.additionalContext).toBeUndefined()
      expect(JSON.stringify(result).length).toBeLessThan(10_000)
    }
  })
})

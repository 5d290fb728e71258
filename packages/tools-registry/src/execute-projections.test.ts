// Values and projections (user guide 003, "Return value"): `structuredContent` is the canonical value for
// programmatic callers, `content` and `meta` are the replayable projections; post-execute may replace or drop
// each of them, and a redacted secret is found nowhere afterwards.
import type { ToolExecutionResult } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import { defineTool } from './index.js'
import { call, createHarness, isDeepFrozen, textOf, tool } from './test-kit.js'

const secret = 'sk-live-4f9a8b7c6d5e'

/** A defineTool tool whose value, content and presentation payload all hold the secret. */
const readEnv = defineTool({
  name: 'read_env',
  description: 'Reads the environment file.',
  parameters: {},
  output: {
    schema: { type: 'object', additionalProperties: false, properties: { path: { type: 'string', required: true }, text: { type: 'string', required: true } } },
    render: (_args, value) => `${value.path}:\n${value.text}`,
    presentationMeta: (_args, value) => ({ path: value.path, preview: value.text.slice(0, 40) }),
  },
  execute: () => ({ path: '.env', text: `API_KEY=${secret}` }),
})

describe('the canonical value and the projections', () => {
  it('defineTool output: structuredContent is the validated value, meta is presentationMeta, content is render', async () => {
    const { tools } = await createHarness()
    tools.register(readEnv)
    const result = await tools.execute(call('read_env', {}, { callId: 'c1' }))
    expect(result).toEqual({
      callId: 'c1',
      content: [{ type: 'text', text: `.env:\nAPI_KEY=${secret}` }],
      isError: false,
      meta: { path: '.env', preview: `API_KEY=${secret}` },
      structuredContent: { path: '.env', text: `API_KEY=${secret}` },
    })
    expect(isDeepFrozen(result)).toBe(true)
  })

  it('a raw body may return structuredContent; it is materialized as a detached frozen JSON copy', async () => {
    const { tools } = await createHarness()
    const value = { rows: [1, 2] }
    tools.register(tool('query', { execute: async () => ({ content: [{ type: 'text', text: '2 rows' }], structuredContent: value }) }))
    const result = await tools.execute(call('query'))
    expect(result.structuredContent).toEqual({ rows: [1, 2] })
    expect(result.structuredContent).not.toBe(value)
    expect(isDeepFrozen(result.structuredContent)).toBe(true)
  })

  it('a structuredContent that is not lossless JSON is INVALID_RESULT naming the field', async () => {
    const { tools } = await createHarness()
    tools.register(tool('query', { execute: async () => ({ content: [], structuredContent: { when: new Date(0) } }) }))
    const result = await tools.execute(call('query'))
    expect(result.error?.code).toBe('INVALID_RESULT')
    expect(textOf(result)).toContain('structuredContent.when')
  })

  it('a failed call carries neither meta nor structuredContent, also from a wrapper', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('query'))
    ctx.on('tools/execute', (exec) => ({ callId: exec.callId, content: [], isError: true, meta: 1, structuredContent: 2 }))
    const result = await tools.execute(call('query'))
    expect(result.isError).toBe(true)
    expect(Object.keys(result).sort()).toEqual(['callId', 'content', 'error', 'isError'])
  })

  it('a wrapper may return a result with structuredContent, which is kept', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('query'))
    ctx.on('tools/execute', (exec) => ({ callId: exec.callId, content: [], isError: false, structuredContent: { cached: true } }))
    expect((await tools.execute(call('query'))).structuredContent).toEqual({ cached: true })
  })
})

describe('tools/post-execute over the value and the projections', () => {
  it('accept replaces content, meta and structuredContent when it names them', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(readEnv)
    ctx.on('tools/post-execute', () => ({
      kind: 'accept',
      content: [{ type: 'text', text: 'redacted' }],
      meta: { path: '.env' },
      structuredContent: { path: '.env', text: 'API_KEY=[redacted]' },
    }))
    const result = await tools.execute(call('read_env'))
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'redacted' }], meta: { path: '.env' }, structuredContent: { path: '.env', text: 'API_KEY=[redacted]' } })
  })

  it('accept with a field set to undefined drops it (content becomes empty); a field left out is kept', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(readEnv)
    let drop: 'meta' | 'structuredContent' | 'content' = 'meta'
    ctx.on('tools/post-execute', () => ({ kind: 'accept', [drop]: undefined }))
    const withoutMeta = await tools.execute(call('read_env'))
    expect(Object.hasOwn(withoutMeta, 'meta')).toBe(false)
    expect(withoutMeta.structuredContent).toEqual({ path: '.env', text: `API_KEY=${secret}` })
    expect(textOf(withoutMeta)).toContain(secret)
    drop = 'structuredContent'
    const withoutValue = await tools.execute(call('read_env'))
    expect(Object.hasOwn(withoutValue, 'structuredContent')).toBe(false)
    expect(withoutValue.meta).toEqual({ path: '.env', preview: `API_KEY=${secret}` })
    drop = 'content'
    const withoutContent = await tools.execute(call('read_env'))
    expect(withoutContent.content).toEqual([])
    expect(withoutContent.isError).toBe(false)
  })

  it('a plain accept keeps everything, and the same result object when nothing changes', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(readEnv)
    let reviewed: ToolExecutionResult | undefined
    ctx.on('tools/post-execute', (_exec, result) => ((reviewed = result), { kind: 'accept' }))
    const result = await tools.execute(call('read_env'))
    expect(result).toBe(reviewed)
    expect(result.structuredContent).toBeDefined()
    expect(result.meta).toBeDefined()
  })

  it('an outer listener that drops meta after next() decides over the inner accept', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(readEnv)
    ctx.on('tools/post-execute', () => ({ kind: 'accept', additionalContext: { content: [{ type: 'text', text: 'note' }] } }))
    ctx.on('tools/post-execute', (_exec, _result, next) => next().then(() => ({ kind: 'accept', meta: undefined })), { prepend: true })
    const result = await tools.execute(call('read_env'))
    expect(Object.hasOwn(result, 'meta')).toBe(false)
    expect(result.structuredContent).toBeDefined()
  })

  it('block drops meta and structuredContent with the content', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(readEnv)
    ctx.on('tools/post-execute', () => ({ kind: 'block', feedback: [{ type: 'text', text: 'withheld' }] }))
    const result = await tools.execute(call('read_env'))
    expect(result).toEqual({
      callId: result.callId,
      content: [{ type: 'text', text: 'withheld' }],
      isError: true,
      error: { name: 'PostExecuteBlockedError', code: 'POST_EXECUTE_BLOCKED' },
    })
  })

  it('regression: a listener that redacts a secret leaves it nowhere in the result or what observers get', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(readEnv)
    const redact = (value: unknown): unknown => JSON.parse(JSON.stringify(value).replaceAll(secret, '[redacted]'))
    ctx.on('tools/post-execute', (_exec, result) => ({
      kind: 'accept',
      content: redact(result.content) as ToolExecutionResult['content'],
      meta: redact(result.meta),
      structuredContent: redact(result.structuredContent),
    }))
    const observed: unknown[] = []
    ctx.on('tools/result', (exec, result) => void observed.push({ exec: { callId: exec.callId, name: exec.name, arguments: exec.arguments }, result }))
    const result = await tools.execute(call('read_env'))
    expect(JSON.stringify(result)).not.toContain(secret)
    expect(JSON.stringify(observed)).not.toContain(secret)
    expect(JSON.stringify(result)).toContain('[redacted]')
    expect(result.meta).toEqual({ path: '.env', preview: 'API_KEY=[redacted]' })
  })

  it('regression: redacting only the content leaves the secret in meta and structuredContent (redact every field)', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(readEnv)
    ctx.on('tools/post-execute', () => ({ kind: 'accept', content: [{ type: 'text', text: 'redacted' }] }))
    const result = await tools.execute(call('read_env'))
    expect(JSON.stringify(result.meta)).toContain(secret)
    expect(JSON.stringify(result.structuredContent)).toContain(secret)
  })

  it('an accepted meta or structuredContent that is not lossless JSON becomes INVALID_RESULT', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(readEnv)
    ctx.on('tools/post-execute', () => ({ kind: 'accept', structuredContent: { at: new Map() } }))
    const result = await tools.execute(call('read_env'))
    expect(result.error?.code).toBe('INVALID_RESULT')
    expect(textOf(result)).toContain('structuredContent.at')
  })

  it('an accept decision whose fields are inherited from a polluted prototype replaces nothing', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(readEnv)
    ctx.on('tools/post-execute', () => Object.assign(Object.create({ meta: 'inherited', structuredContent: undefined }), { kind: 'accept' }))
    const result = await tools.execute(call('read_env'))
    expect(result.meta).toEqual({ path: '.env', preview: `API_KEY=${secret}` })
    expect(result.structuredContent).toEqual({ path: '.env', text: `API_KEY=${secret}` })
  })
})

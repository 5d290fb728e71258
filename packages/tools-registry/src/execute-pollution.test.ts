// With Object.prototype polluted, the registry sees own properties only, in every object it did not build
// (issue 14, item 12). Each case pollutes one field and removes it again in `finally`.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineTool, InvalidToolDefinitionError, InvalidToolPolicyError } from './index.js'
import { agent, call, createHarness, raw, text, textOf, tool } from './test-kit.js'

/** Runs `run` with `Object.prototype[key]` set to `value` (as an assignment would: enumerable), then removes it. */
async function polluted<T>(key: string, value: unknown, run: () => Promise<T> | T): Promise<T> {
  const prototype = Object.prototype as Record<string, unknown>
  if (Object.hasOwn(prototype, key)) throw new Error(`Object.prototype.${key} is already set`)
  Object.defineProperty(prototype, key, { value, writable: true, configurable: true, enumerable: true })
  try {
    return await run()
  } finally {
    delete prototype[key]
  }
}

describe('the execution input: only its own fields count', () => {
  it('an inherited name is no name: INVALID_CALL, nothing runs', async () => {
    const { tools } = await createHarness()
    const read = tool('read')
    tools.register(read)
    const result = await polluted('name', 'read', () => tools.execute({ callId: 'c1', arguments: {} } as never))
    expect(result.error?.code).toBe('INVALID_CALL')
    expect(textOf(result)).toContain('its name is undefined, not a string')
    expect(read.calls).toEqual([])
  })

  it('an inherited callId is no callId: INVALID_CALL', async () => {
    const { tools } = await createHarness()
    tools.register(tool('read'))
    const result = await polluted('callId', 'evil', () => tools.execute({ name: 'read', arguments: {} } as never))
    expect(result.error?.code).toBe('INVALID_CALL')
    expect(result.callId).toBe('')
  })

  it('inherited arguments never reach the body', async () => {
    const { tools } = await createHarness()
    const read = tool('read')
    tools.register(read)
    await polluted('arguments', { command: 'rm -rf /' }, () => tools.execute({ callId: 'c1', name: 'read' } as never))
    expect(read.calls).not.toContainEqual({ command: 'rm -rf /' })
  })

  it('an inherited signal is no signal: the call is not aborted by it', async () => {
    const { tools } = await createHarness()
    tools.register(tool('read'))
    const fired = new AbortController()
    fired.abort()
    const result = await polluted('signal', fired.signal, () => tools.execute({ callId: 'c1', name: 'read', arguments: {} }))
    expect(result.isError).toBe(false)
  })

  it('an inherited agent is no agent: the global tool runs, not the scope\'s', async () => {
    const { tools } = await createHarness()
    const alice = agent('alice')
    const global = tool('read')
    const own = tool('read')
    tools.register(global)
    tools.scope(alice).register(own)
    await polluted('agent', alice, () => tools.execute({ callId: 'c1', name: 'read', arguments: {} }))
    expect(global.calls).toHaveLength(1)
    expect(own.calls).toHaveLength(0)
  })
})

describe('decisions returned by listeners: only their own fields count', () => {
  it('an inherited kind is no decision: INVALID_DECISION', async () => {
    const { ctx, tools } = await createHarness()
    const read = tool('read')
    tools.register(read)
    ctx.on('tools/pre-execute', () => ({}) as never)
    const result = await polluted('kind', 'allow', () => tools.execute(call('read')))
    expect(result.error?.code).toBe('INVALID_DECISION')
    expect(read.calls).toEqual([])
  })

  it('a deny with an inherited reason has no reason: INVALID_DECISION', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    ctx.on('tools/pre-execute', () => ({ kind: 'deny' }) as never)
    const result = await polluted('reason', 'looks fine', () => tools.execute(call('read')))
    expect(result.error?.code).toBe('INVALID_DECISION')
  })

  it('an accept with inherited content or additionalContext changes nothing', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    ctx.on('tools/post-execute', () => ({ kind: 'accept' }))
    const evil = [text('injected')]
    const result = await polluted('content', evil, () =>
      polluted('additionalContext', { content: evil }, () => tools.execute(call('read'))),
    )
    expect(result.content).toEqual([text('read')])
    expect(Object.hasOwn(result, 'additionalContext')).toBe(false)
  })

  it('a block with inherited feedback has no feedback: INVALID_DECISION', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    ctx.on('tools/post-execute', () => ({ kind: 'block' }) as never)
    const result = await polluted('feedback', [text('nope')], () => tools.execute(call('read')))
    expect(result.error?.code).toBe('INVALID_DECISION')
  })
})

describe('results returned by tools and wrappers: only their own fields count', () => {
  it('inherited meta and additionalContext are not attached to a result', async () => {
    const { tools } = await createHarness()
    tools.register(tool('read', { execute: async () => ({ content: [text('ok')] }) }))
    const result = await polluted('meta', { evil: true }, () =>
      polluted('additionalContext', { content: [text('injected')] }, () => tools.execute(call('read'))),
    )
    expect(result.isError).toBe(false)
    expect(Object.hasOwn(result, 'meta')).toBe(false)
    expect(Object.hasOwn(result, 'additionalContext')).toBe(false)
  })

  it('inherited content is no content: INVALID_RESULT', async () => {
    const { tools } = await createHarness()
    tools.register(tool('read', { execute: async () => ({}) as never }))
    const result = await polluted('content', [text('injected')], () => tools.execute(call('read')))
    expect(result.error?.code).toBe('INVALID_RESULT')
  })

  it('a text block with an inherited text is malformed: INVALID_RESULT', async () => {
    const { tools } = await createHarness()
    tools.register(tool('read', { execute: async () => [{ type: 'text' }] as never }))
    const result = await polluted('text', 'injected', () => tools.execute(call('read')))
    expect(result.error?.code).toBe('INVALID_RESULT')
  })

  it('a hole in the content is no inherited block: INVALID_RESULT', async () => {
    const { tools } = await createHarness()
    // eslint-disable-next-line no-sparse-arrays
    tools.register(tool('read', { execute: async () => [text('a'), , text('b')] as never }))
    const result = await polluted('1', text('injected'), () => tools.execute(call('read')))
    expect(result.error?.code).toBe('INVALID_RESULT')
  })

  it('a wrapper\'s result with an inherited isError is no result; an inherited error is no error info', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    tools.register(tool('other'))
    ctx.on('tools/execute', (exec) =>
      exec.name === 'read' ? ({ content: [text('x')] } as never) : ({ content: [text('x')], isError: true } as never),
    )
    const first = await polluted('isError', false, () => tools.execute(call('read')))
    expect(first.error?.code).toBe('INVALID_RESULT')
    const second = await polluted('error', { name: 'ToolDeniedError', code: 'DENIED' }, () => tools.execute(call('other')))
    expect(second.error).toEqual({ name: 'ToolFailedError', code: 'TOOL_FAILED' })
  })

  it('an approval answer with an inherited outcome is no answer: APPROVAL_UNAVAILABLE', async () => {
    const { ctx, tools } = await createHarness()
    const read = tool('read')
    tools.register(read)
    ctx.provide('toolApproval', { requestApproval: async () => ({}) as never })
    ctx.on('tools/pre-execute', () => ({ kind: 'ask' }))
    const result = await polluted('outcome', 'allowed-once', () => tools.execute(call('read', {}, { agent: agent('a') })))
    expect(result.error?.code).toBe('APPROVAL_UNAVAILABLE')
    expect(read.calls).toEqual([])
  })
})

describe('definitions and restrictions: only their own fields count', () => {
  const bare = { name: 'read', parameters: { type: 'object' }, execute: async () => [] }

  it.each([
    ['description', 'inherited', { name: 'read', parameters: { type: 'object' }, execute: async () => [] }, 'description'],
    ['execute', async () => [], { name: 'read', description: 'd', parameters: { type: 'object' } }, 'execute'],
    ['parameters', { type: 'object' }, { name: 'read', description: 'd', execute: async () => [] }, 'parameters'],
    ['type', 'object', { ...bare, description: 'd', parameters: { properties: {} } }, 'parameters.type'],
  ])('an inherited %s is not declared: InvalidToolDefinitionError', async (key, value, definition, field) => {
    const { tools } = await createHarness()
    const error = await polluted(key, value, () => {
      try {
        tools.register(raw(definition))
        return undefined
      } catch (thrown) {
        return thrown
      }
    })
    expect(InvalidToolDefinitionError.isInstance(error)).toBe(true)
    expect((error as InvalidToolDefinitionError).field).toBe(field)
  })

  it('inherited concurrencySafe and annotations do not make a tool parallel-safe', async () => {
    const { tools } = await createHarness()
    await polluted('concurrencySafe', true, () => polluted('annotations', { readOnlyHint: true }, () => tools.register(raw({ ...bare, description: 'd' }))))
    expect(tools.executionMode({ name: 'read' })).toBe('serial')
  })

  it('inherited allow and deny lists restrict nothing; a hole in a list is no inherited name', async () => {
    const { tools } = await createHarness()
    tools.register(tool('read'))
    const alice = agent('alice')
    await polluted('allow', ['nothing'], () => polluted('deny', ['read'], () => tools.scope(alice).restrict({})))
    expect(tools.schemas(alice).map((schema) => schema.name)).toEqual(['read'])
    // eslint-disable-next-line no-sparse-arrays
    const holed = ['read', , 'write'] as string[]
    const error = await polluted('1', 'read', () => {
      try {
        tools.scope(alice).restrict({ allow: holed })
        return undefined
      } catch (thrown) {
        return thrown
      }
    })
    expect(InvalidToolPolicyError.isInstance(error)).toBe(true)
  })
})

// Issue 32, class 1: the arguments a body gets, the copy a schema library validates and the result's structured
// content inherit nothing, so a polluted Object.prototype never fills in a key the model left out.
describe('no tool body, validator or result sees a value from a prototype', () => {
  it('a zod tool called with {} is INVALID_ARGS while Object.prototype.command is set; the body never runs', async () => {
    const { tools } = await createHarness()
    const seen: unknown[] = []
    tools.register(
      defineTool({
        name: 'run',
        description: 'Runs a command.',
        parameters: z.object({ command: z.string(), cwd: z.string().optional() }),
        execute: (args) => {
          seen.push(args.command)
          return 'ran'
        },
      }),
    )
    const result = await polluted('command', 'rm -rf /', () => tools.execute(call('run', {})))
    expect(result.error?.code).toBe('INVALID_ARGS')
    expect(textOf(result)).toContain('command')
    expect(seen).toEqual([])
  })

  it('an optional key the model left out reads undefined in a DSL, zod or raw tool body', async () => {
    const { tools } = await createHarness()
    const seen: Record<string, unknown> = {}
    const record = (tool: string) => (args: Record<string, unknown>) => {
      seen[tool] = { cwd: args['cwd'], hasCwd: 'cwd' in args, nested: (args['options'] as Record<string, unknown>)['cwd'] }
      return 'ran'
    }
    tools.register(
      defineTool({
        name: 'dsl',
        description: 'DSL.',
        parameters: { command: { type: 'string', required: true }, cwd: { type: 'string' }, options: { type: 'object', additionalProperties: true, required: true } },
        execute: record('dsl') as never,
      }),
    )
    tools.register(
      defineTool({
        name: 'zod',
        description: 'zod.',
        parameters: z.object({ command: z.string(), cwd: z.string().optional(), options: z.looseObject({}) }),
        execute: record('zod') as never,
      }),
    )
    tools.register(tool('raw', { execute: async (args) => [text(String(record('raw')(args as Record<string, unknown>)))] }))
    await polluted('cwd', '/etc', async () => {
      for (const name of ['dsl', 'zod', 'raw']) {
        const result = await tools.execute(call(name, JSON.parse('{"command":"ls","options":{}}')))
        expect(result.isError).toBe(false)
      }
    })
    const clean = { cwd: undefined, hasCwd: false, nested: undefined }
    expect(seen).toEqual({ dsl: clean, zod: clean, raw: clean })
  })

  it('structured content in the result inherits nothing', async () => {
    const { tools } = await createHarness()
    tools.register(
      defineTool({
        name: 'count',
        description: 'Counts.',
        parameters: {},
        output: { schema: z.object({ count: z.int(), note: z.string().optional() }), render: (_args, value) => `counted ${value.count}` },
        execute: () => ({ count: 3 }),
      }),
    )
    const result = await tools.execute(call('count'))
    const structured = result.structuredContent as Record<string, unknown>
    await polluted('note', 'planted', () => {
      expect(structured['count']).toBe(3)
      expect(structured['note']).toBeUndefined()
    })
  })
})

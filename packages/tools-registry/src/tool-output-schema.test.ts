import { deepFreeze } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import { defineTool, InvalidToolDefinitionError } from './index.js'
import { agent, createHarness, raw, tool } from './test-kit.js'

function registrationError(register: () => unknown): InvalidToolDefinitionError {
  try {
    register()
  } catch (error) {
    if (InvalidToolDefinitionError.isInstance(error)) return error
    throw error
  }
  throw new Error('register() accepted the definition')
}

const countSchema = { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] } as const

describe('outputSchema: checked at registration, read through its own accessor, never in schemas()', () => {
  it('schemas() stays exactly { name, description, parameters } for a tool that declares an output schema', async () => {
    const { tools } = await createHarness()
    tools.register(tool('count', { outputSchema: countSchema }))
    const [schema] = tools.schemas()
    expect(Object.keys(schema ?? {}).sort()).toEqual(['description', 'name', 'parameters'])
    expect(tools.outputSchema('count')).toEqual(countSchema)
  })

  it('a defineTool object output is served by outputSchema(name); a scalar output and a raw tool without one give undefined', async () => {
    const { tools } = await createHarness()
    tools.register(
      defineTool({
        name: 'stats',
        description: 'Counts.',
        parameters: {},
        output: { schema: { type: 'object', additionalProperties: false, properties: { n: { type: 'integer', required: true } } }, render: (_args, value) => `${value.n}` },
        execute: () => ({ n: 1 }),
      }),
    )
    tools.register(defineTool({ name: 'word', description: 'A word.', parameters: {}, output: { schema: { type: 'string' }, render: (_args, value) => value }, execute: () => 'w' }))
    tools.register(tool('plain'))
    expect(tools.outputSchema('stats')).toEqual({ type: 'object', additionalProperties: false, properties: { n: { type: 'integer' } }, required: ['n'] })
    expect(tools.outputSchema('word')).toBeUndefined()
    expect(tools.outputSchema('plain')).toBeUndefined()
    expect(tools.outputSchema('missing')).toBeUndefined()
  })

  it('hands out fresh copies, detached from the definition: mutating one changes neither the next nor the registered schema', async () => {
    const { tools } = await createHarness()
    const definition = tool('count', { outputSchema: structuredClone(countSchema) as never })
    tools.register(definition)
    const first = tools.outputSchema('count') as unknown as { properties: Record<string, unknown> }
    first.properties.extra = { type: 'string' }
    ;(definition.outputSchema as unknown as { properties: Record<string, unknown> }).properties.later = { type: 'null' }
    expect(tools.outputSchema('count')).toEqual(countSchema)
    expect(tools.outputSchema('count')).not.toBe(tools.outputSchema('count'))
  })

  it('follows scopes like get(): an agent sees its own tool shadowing the global one, a restricted-away tool has none', async () => {
    const { tools } = await createHarness()
    const alice = agent('alice')
    const bob = agent('bob')
    tools.register(tool('count', { outputSchema: countSchema }))
    tools.scope(alice).register(tool('count', { outputSchema: { type: 'object', properties: { total: { type: 'number' } } } }))
    tools.scope(bob).restrict({ deny: ['count'] })
    expect(tools.outputSchema('count', alice)).toEqual({ type: 'object', properties: { total: { type: 'number' } } })
    expect(tools.scope(alice).outputSchema('count')).toEqual({ type: 'object', properties: { total: { type: 'number' } } })
    expect(tools.outputSchema('count', bob)).toBeUndefined()
    expect(tools.scope(bob).outputSchema('count')).toBeUndefined()
    expect(tools.outputSchema('count')).toEqual(countSchema)
  })

  it('is undefined again once the tool is unregistered', async () => {
    const { tools } = await createHarness()
    const dispose = tools.register(tool('count', { outputSchema: countSchema }))
    dispose()
    expect(tools.outputSchema('count')).toBeUndefined()
  })

  it('accepts a deep-frozen (as const) schema', async () => {
    const { tools } = await createHarness()
    tools.register(tool('frozen', { outputSchema: deepFreeze({ type: 'object', properties: { a: { type: 'string' } } }) as never }))
    expect(tools.outputSchema('frozen')).toEqual({ type: 'object', properties: { a: { type: 'string' } } })
  })

  it.each<[string, unknown, string]>([
    ['not an object', 'object', 'outputSchema'],
    ['an array', [], 'outputSchema'],
    ['null', null, 'outputSchema'],
    ['a non-object schema (MCP allows only objects)', { type: 'string' }, 'outputSchema.type'],
    ['a schema without type', { properties: {} }, 'outputSchema.type'],
    ['not lossless JSON', { type: 'object', properties: { at: { default: new Date(0) } } }, 'outputSchema.properties.at.default'],
    ['NaN inside', { type: 'object', maximum: Number.NaN }, 'outputSchema.maximum'],
  ])('rejects an outputSchema that is %s, naming the field', async (_label, outputSchema, field) => {
    const { tools } = await createHarness()
    const error = registrationError(() => tools.register(raw({ ...tool('bad'), outputSchema })))
    expect(error.code).toBe('INVALID_TOOL_DEFINITION')
    expect(error.field).toBe(field)
    expect(error.message).toContain('outputSchema of tool "bad"')
    expect(tools.get('bad')).toBeUndefined()
  })

  it('does not read an outputSchema inherited from a polluted Object.prototype', async () => {
    const { tools } = await createHarness()
    const proto = Object.prototype as Record<string, unknown>
    proto.outputSchema = { type: 'string' }
    try {
      tools.register(tool('clean'))
    } finally {
      delete proto.outputSchema
    }
    expect(tools.outputSchema('clean')).toBeUndefined()
  })
})

import { deepFreeze } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import { DuplicateToolError } from './duplicate-tool-error.js'
import { InvalidToolDefinitionError } from './invalid-tool-definition-error.js'
import { agent, createHarness, raw, tool } from './test-kit.js'
import type { ToolRegistration } from './tool-record.js'

function registrationError(register: () => unknown): InvalidToolDefinitionError {
  try {
    register()
  } catch (error) {
    if (InvalidToolDefinitionError.isInstance(error)) return error
    throw error
  }
  throw new Error('register() accepted the definition')
}

describe('registration validates what a model or a provider would reject later', () => {
  it('accepts names matching ^[A-Za-z_][A-Za-z0-9_-]{0,63}$', async () => {
    const { tools } = await createHarness()
    for (const name of ['a', '_', 'read_file', 'Bash-2', `a${'b'.repeat(63)}`]) {
      tools.register(tool(name))
      expect(tools.get(name)?.name).toBe(name)
    }
  })

  it.each([
    ['', 'empty'],
    ['1tool', 'a leading digit'],
    ['-tool', 'a leading hyphen'],
    ['read file', 'a space'],
    ['read.file', 'a dot'],
    ['ünïcode', 'non-ASCII letters'],
    [`a${'b'.repeat(64)}`, '65 characters'],
  ])('rejects the name %j (%s) with INVALID_TOOL_DEFINITION', async (name) => {
    const { tools } = await createHarness()
    const error = registrationError(() => tools.register(tool(name)))
    expect(error.code).toBe('INVALID_TOOL_DEFINITION')
    expect(error.field).toBe('name')
    expect(error.message).toContain('^[A-Za-z_][A-Za-z0-9_-]{0,63}$')
  })

  it('rejects a name that is not a string', async () => {
    const { tools } = await createHarness()
    expect(registrationError(() => tools.register(raw({ ...tool('x'), name: 42 }))).field).toBe('name')
  })

  it('rejects a definition that is not an object', async () => {
    const { tools } = await createHarness()
    for (const value of [null, undefined, 'tool', [tool('x')]]) {
      expect(registrationError(() => tools.register(raw(value))).code).toBe('INVALID_TOOL_DEFINITION')
    }
  })

  it('requires a string description', async () => {
    const { tools } = await createHarness()
    const error = registrationError(() => tools.register(raw({ ...tool('x'), description: undefined })))
    expect(error.field).toBe('description')
    tools.register(tool('empty_description', { description: '' }))
  })

  it('requires parameters to be an object schema (type: "object")', async () => {
    const { tools } = await createHarness()
    expect(registrationError(() => tools.register(raw({ ...tool('a'), parameters: undefined }))).field).toBe('parameters')
    expect(registrationError(() => tools.register(raw({ ...tool('b'), parameters: [] }))).field).toBe('parameters')
    expect(registrationError(() => tools.register(raw({ ...tool('c'), parameters: { type: 'string' } }))).field).toBe(
      'parameters.type',
    )
    expect(registrationError(() => tools.register(raw({ ...tool('d'), parameters: { properties: {} } }))).field).toBe(
      'parameters.type',
    )
  })

  it('requires parameters to be lossless JSON, naming the offending path', async () => {
    const { tools } = await createHarness()
    const error = registrationError(() =>
      tools.register(raw({ ...tool('x'), parameters: { type: 'object', properties: { when: { default: new Date(0) } } } })),
    )
    expect(error.field).toBe('parameters.properties.when.default')
    expect(error.message).toContain('Date')
    const nan = registrationError(() => tools.register(raw({ ...tool('y'), parameters: { type: 'object', maximum: Number.NaN } })))
    expect(nan.field).toBe('parameters.maximum')
  })

  it('accepts a raw MCP JSON Schema as it is (any keywords, open by default)', async () => {
    const { tools } = await createHarness()
    const parameters = {
      type: 'object',
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      properties: { path: { type: 'string', pattern: '^/', minLength: 1 }, mode: { anyOf: [{ const: 'r' }, { const: 'w' }] } },
      required: ['path'],
    } as const
    tools.register(tool('mcp_read', { parameters: structuredClone(parameters) as never }))
    expect(tools.schemas()[0]?.parameters).toEqual(parameters)
  })

  it.each([0, -1, 1.5, 2_147_483_648, Number.POSITIVE_INFINITY, Number.NaN, '100'])(
    'rejects timeoutMs %s (a positive integer ≤ 2147483647 is required)',
    async (timeoutMs) => {
      const { tools } = await createHarness()
      const error = registrationError(() => tools.register(raw({ ...tool('x'), timeoutMs })))
      expect(error.field).toBe('timeoutMs')
      expect(error.message).toContain('2147483647')
    },
  )

  it('accepts timeoutMs from 1 to 2147483647', async () => {
    const { tools } = await createHarness()
    tools.register(tool('a', { timeoutMs: 1 }))
    tools.register(tool('b', { timeoutMs: 2_147_483_647 }))
    expect(tools.get('b')?.timeoutMs).toBe(2_147_483_647)
  })

  it('requires execute to be a function, and presenters to be functions when present', async () => {
    const { tools } = await createHarness()
    expect(registrationError(() => tools.register(raw({ ...tool('a'), execute: 'run' }))).field).toBe('execute')
    expect(registrationError(() => tools.register(raw({ ...tool('b'), presentCall: {} }))).field).toBe('presentCall')
    expect(registrationError(() => tools.register(raw({ ...tool('c'), presentResult: 1 }))).field).toBe('presentResult')
    expect(registrationError(() => tools.register(raw({ ...tool('d'), concurrencySafe: 'yes' }))).field).toBe('concurrencySafe')
    expect(registrationError(() => tools.register(raw({ ...tool('e'), annotations: { readOnlyHint: 1 } }))).field).toBe(
      'annotations.readOnlyHint',
    )
  })

  it('requires title to be a string and every MCP hint to be a boolean when present', async () => {
    const { tools } = await createHarness()
    expect(registrationError(() => tools.register(raw({ ...tool('a'), title: 42 }))).field).toBe('title')
    expect(registrationError(() => tools.register(raw({ ...tool('b'), annotations: { title: false } }))).field).toBe('annotations.title')
    for (const hint of ['destructiveHint', 'idempotentHint', 'openWorldHint']) {
      const error = registrationError(() => tools.register(raw({ ...tool(hint), annotations: { [hint]: 'no' } })))
      expect(error.field).toBe(`annotations.${hint}`)
      expect(error.message).toBe(`The annotations.${hint} of tool "${hint}" must be a boolean, got the string "no"`)
    }
    // Keys MCP may add later are carried, unread.
    tools.register(raw({ ...tool('later'), annotations: { readOnlyHint: true, futureHint: 'x' } }))
    expect(tools.get('later')?.annotations).toEqual({ readOnlyHint: true, futureHint: 'x' })
  })

  it('carries title and annotations on the definition (get) and never into the model-facing schema', async () => {
    const { tools } = await createHarness()
    const annotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true }
    tools.register(tool('rm', { title: 'Remove a file', annotations }))
    expect(tools.get('rm')?.title).toBe('Remove a file')
    expect(tools.get('rm')?.annotations).toBe(annotations)
    expect(tools.schemas()).toEqual([{ name: 'rm', description: 'The rm tool.', parameters: { type: 'object', properties: {} } }])
    expect(Object.keys(tools.schemas()[0] ?? {})).toEqual(['name', 'description', 'parameters'])
    expect(tools.executionMode({ name: 'rm' })).toBe('serial')
  })

  it('turns a throwing getter on the definition into INVALID_TOOL_DEFINITION', async () => {
    const { tools } = await createHarness()
    const definition = {
      ...tool('x'),
      get description(): string {
        throw new Error('no description today')
      },
    }
    const error = registrationError(() => tools.register(definition))
    expect(error.field).toBe('description')
    expect(error.message).toContain('no description today')
  })

  it('registers nothing when the definition is rejected', async () => {
    const { tools } = await createHarness()
    registrationError(() => tools.register(raw({ ...tool('x'), timeoutMs: -5 })))
    expect(tools.get('x')).toBeUndefined()
    expect(tools.schemas()).toEqual([])
  })
})

describe('the definition is borrowed, never mutated', () => {
  it('registers a deep-frozen definition and leaves it as it was', async () => {
    const { tools } = await createHarness()
    const definition = deepFreeze(tool('frozen', { timeoutMs: 5_000, parameters: { type: 'object', properties: { a: { type: 'string' } } } }))
    const before = JSON.stringify(definition)
    tools.register(definition as unknown as ToolRegistration)
    expect(JSON.stringify(definition)).toBe(before)
    expect(tools.get('frozen')).toBe(definition)
  })

  it('snapshots the model-facing parameters: changing the definition later changes no schema', async () => {
    const { tools } = await createHarness()
    const definition = tool('x', { parameters: { type: 'object', properties: { a: { type: 'string' } } } })
    tools.register(definition)
    ;(definition.parameters.properties as Record<string, unknown>).b = { type: 'number' }
    definition.description = 'changed'
    expect(tools.schemas()).toEqual([{ name: 'x', description: 'The x tool.', parameters: { type: 'object', properties: { a: { type: 'string' } } } }])
  })
})

describe('duplicates and shadowing', () => {
  it('rejects a second global tool of the same name with DUPLICATE_TOOL', async () => {
    const { tools } = await createHarness()
    tools.register(tool('read'))
    let error: unknown
    try {
      tools.register(tool('read'))
    } catch (caught) {
      error = caught
    }
    expect(DuplicateToolError.isInstance(error)).toBe(true)
    expect((error as DuplicateToolError).code).toBe('DUPLICATE_TOOL')
    expect((error as DuplicateToolError).toolName).toBe('read')
  })

  it('rejects a second tool of the same name in one agent scope', async () => {
    const { tools } = await createHarness()
    const scope = tools.scope(agent('a'))
    scope.register(tool('read'))
    expect(() => scope.register(tool('read'))).toThrow(DuplicateToolError)
  })

  it('lets a scope tool shadow a global one, and a global one be added under a scope tool', async () => {
    const { tools } = await createHarness()
    const alice = agent('alice')
    tools.register(tool('read'))
    const own = tool('read', { description: 'Alice reads.' })
    tools.scope(alice).register(own)
    tools.scope(alice).register(tool('write'))
    tools.register(tool('write'))
    expect(tools.get('read', alice)).toBe(own)
    expect(tools.get('read')?.description).toBe('The read tool.')
  })

  it('frees the name when the registration is disposed', async () => {
    const { tools } = await createHarness()
    const dispose = tools.register(tool('read'))
    dispose()
    dispose()
    tools.register(tool('read'))
    expect(tools.schemas().map((schema) => schema.name)).toEqual(['read'])
  })
})

import * as schema from '@dsh/tools-schema'
import { describe, expect, it } from 'vitest'
import * as registry from './index.js'
import { call, createHarness } from './test-kit.js'

describe('the authoring surface of @dsh/tools-schema, re-exported', () => {
  it('is the same bindings, not copies', () => {
    for (const name of ['defineTool', 'defineParameters', 'defineValueSchema', 'ToolArgsError', 'ToolDefinitionError', 'ToolOutputError'] as const) {
      expect(registry[name]).toBe(schema[name])
    }
  })

  it('a tool defined with the registry import registers and runs through ctx.tools', async () => {
    const { tools } = await createHarness()
    const echo = registry.defineTool({
      name: 'echo',
      description: 'Echoes text.',
      parameters: { text: { type: 'string', required: true } },
      execute: ({ text }) => text.toUpperCase(),
    })
    tools.register(echo)
    const result = await tools.execute(call('echo', { text: 'hi' }))
    expect(result.isError).toBe(false)
    expect(result.content).toEqual([{ type: 'text', text: 'HI' }])
    const invalid = await tools.execute(call('echo', { text: 42 }))
    expect(invalid.error).toEqual({ name: 'ToolArgsError', code: 'INVALID_ARGS' })
  })
})

// `listed: false`: a tool that answers calls by its name but is never offered to a model. Added for MCP tools whose
// changed definition awaits approval: before it, such a tool could only be unregistered, and a model that called it
// by the name it had seen read "Unknown tool" instead of why.
import type { SystemPromptToolProvider } from '@dsh/tools-core'
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { agent, call, createHarness, textOf, tool } from './test-kit.js'
import { ToolRegistry } from './tool-registry.js'

describe('a registration with listed: false', () => {
  it('is left out of every schema projection and of the unknown-tool list, yet answers its calls', async () => {
    const { tools } = await createHarness()
    tools.register(tool('shown'))
    tools.register(tool('held', { listed: false, execute: async () => [{ type: 'text' as const, text: 'waiting for approval' }] }))
    expect(tools.schemas().map((schema) => schema.name)).toEqual(['shown'])
    const alice = agent('alice')
    tools.scope(alice).register(tool('own'))
    expect(tools.schemas(alice).map((schema) => schema.name)).toEqual(['shown', 'own'])
    expect(tools.scope(alice).schemas().map((schema) => schema.name)).toEqual(['shown', 'own'])
    expect(textOf(await tools.execute(call('missing')))).toBe('Unknown tool "missing". Available tools: shown.')
    const held = await tools.execute(call('held'))
    expect(held.isError).toBe(false)
    expect(textOf(held)).toBe('waiting for approval')
    expect(tools.get('held')?.name).toBe('held')
    expect(tools.executionMode({ name: 'held' })).toBe('serial')
  })

  it('is not in the schemas the system-prompt feed hands out, but is among its known names', async () => {
    const ctx = new Context()
    const providers: SystemPromptToolProvider[] = []
    await ctx.plugin({
      name: 'system-prompt',
      apply: (inner: Context) =>
        void inner.provide('systemPrompt', {
          tools: (provider: SystemPromptToolProvider) => (providers.push(provider), () => {}),
          section: () => () => {},
        }),
    })
    await ctx.plugin(ToolRegistry)
    ctx.tools.register(tool('shown'))
    ctx.tools.register(tool('held', { listed: false }))
    const answer = await providers[0]!({})
    expect(answer.schemas.map((schema) => schema.name)).toEqual(['shown'])
    expect(answer.knownNames).toEqual(['shown', 'held'])
  })

  it('is checked like any field: listed must be a boolean', async () => {
    const { tools } = await createHarness()
    expect(() => tools.register(tool('bad', { listed: 'no' as never }))).toThrow(/The listed of tool "bad" must be a boolean, got the string "no"/)
    tools.register(tool('plain', { listed: true }))
    expect(tools.schemas().map((schema) => schema.name)).toEqual(['plain'])
  })
})

import { describe, expect, it } from 'vitest'
import { planTools } from './discovery.js'
import { resolveMcpServerConfig } from './server-config.js'
import type { McpToolDefinition } from './session-types.js'
import { ToolNameBindings } from './tool-name-bindings.js'

const tool = (name: string): McpToolDefinition => ({ name, description: `The ${name} tool`, inputSchema: { type: 'object' } })

describe('registry names bound to wire names', () => {
  it('let the owner keep its name wherever the server lists it, quarantine the newcomer, and keep the listing order', () => {
    const config = resolveMcpServerConfig({ id: 'srv', command: 'x', tools: { a: { name: 'shared' }, b: { name: 'shared' } } })
    const bindings = new ToolNameBindings(config)
    bindings.bind('shared', 'a')
    // The newcomer first: on a first-come basis it would take the name, and the owner would be refused.
    const listing = [tool('b'), 42, tool('c'), tool('a')] as unknown as McpToolDefinition[]
    const plans = bindings.arbitrate(planTools(bindings.ownersFirst(listing), config, new Map()), listing)
    expect(plans.map((plan) => [plan.wireName, plan.state])).toEqual([
      ['b', 'rejected'], // the owner, listed too, holds the name
      ['', 'rejected'],
      ['c', 'registered'],
      ['a', 'registered'],
    ])
    expect(plans[0]?.note).toMatch(/already taken by the tool "a"/)
    // Without the owner in the listing, the newcomer is quarantined, never registered under the owner's name.
    const alone = [tool('b')]
    const [only] = bindings.arbitrate(planTools(bindings.ownersFirst(alone), config, new Map()), alone)
    expect([only?.state, only?.note]).toEqual(['quarantined', expect.stringMatching(/^its registry name shared belongs to the tool "a", which held it first; "b" is a different tool/)])
  })

  it('bind pinned wire names from the start, and hand a name over only when told to', () => {
    const config = resolveMcpServerConfig({ id: 'srv', command: 'x', pinned: { 'a.b': 'sha256:1' } })
    const bindings = new ToolNameBindings(config)
    const name = bindings.nameOf('a.b')
    expect(name).toMatch(/^mcp__srv__a_b_h[0-9a-f]{16}$/)
    expect(bindings.ownerOf(name)).toBe('a.b')
    bindings.bind(name, 'a:b') // a later first sight changes nothing
    expect(bindings.ownerOf(name)).toBe('a.b')
    bindings.transfer(name, 'a:b')
    expect(bindings.ownerOf(name)).toBe('a:b')
  })
})

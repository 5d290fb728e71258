import { afterEach, describe, expect, it } from 'vitest'
import { planTools, planToolsInSlices, type PlannedTool } from './discovery.js'
import type { McpServerStatus } from './index.js'
import { resolveMcpServerConfig } from './server-config.js'
import type { McpToolDefinition } from './session-types.js'
import { loadHostile, trustedTool } from './test-support/hostile.js'
import { expectNoLeftovers } from './test-support/load.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await expectNoLeftovers()
})

const config = resolveMcpServerConfig({ id: 'fx', command: 'unused', trust: true })
const byWire = (plans: readonly PlannedTool[], wireName: string): PlannedTool[] => plans.filter((plan) => plan.wireName === wireName)

/** A schema nested `levels` levels (two JSON levels each). */
function deepSchema(levels: number): Record<string, unknown> {
  let node: Record<string, unknown> = { type: 'string' }
  for (let index = 0; index < levels; index += 1) node = { type: 'object', properties: { x: node } }
  return node
}

/** One tool of every way a definition can be malformed, each beside good ones. */
const malformed: unknown[] = [
  trustedTool('good_first'),
  trustedTool('bad_ref', { inputSchema: { type: 'object', properties: { a: { $ref: '#/%E0%A4%A' } } } }),
  trustedTool('bad_description', { description: 42 }),
  trustedTool('bad_title', { title: { text: 'x' } }),
  trustedTool('bad_annotations', { annotations: 'read-only' }),
  trustedTool('bad_hint', { annotations: { readOnlyHint: 'yes' } }),
  trustedTool('bad_execution', { execution: 3 }),
  trustedTool('bad_input', { inputSchema: 'object' }),
  trustedTool('bad_output', { outputSchema: [1, 2] }),
  trustedTool('deep_input', { inputSchema: { type: 'object', properties: { a: deepSchema(3_000) } } }),
  { name: 42, inputSchema: { type: 'object' } },
  null,
  'a string',
  trustedTool('good_first', { description: 'listed twice' }),
  trustedTool('good_last'),
]

describe('one bad tool never takes down a listing', () => {
  it('plans every malformed definition as rejected, with a note naming why, and the others as usual', () => {
    const plans = planTools(malformed as McpToolDefinition[], config, new Map())
    expect(plans).toHaveLength(malformed.length)
    const state = (wireName: string) => byWire(plans, wireName).map((plan) => plan.state)
    expect(state('good_first')).toEqual(['registered', 'rejected'])
    expect(state('good_last')).toEqual(['registered'])
    const note = (wireName: string) => byWire(plans, wireName)[0]?.note ?? ''
    expect(note('bad_ref')).toContain('malformed percent-encoding')
    expect(note('bad_description')).toContain('description must be a string, got number')
    expect(note('bad_title')).toContain('title must be a string, got an object')
    expect(note('bad_annotations')).toContain('annotations must be an object')
    expect(note('bad_hint')).toContain('annotations.readOnlyHint must be a boolean')
    expect(note('bad_execution')).toContain('execution must be an object')
    expect(note('bad_input')).toContain('inputSchema was rejected')
    expect(note('bad_output')).toContain('outputSchema was rejected')
    expect(note('deep_input')).toContain('nests deeper than 64 levels')
    for (const wireName of ['bad_ref', 'bad_description', 'bad_title', 'bad_annotations', 'bad_hint', 'bad_execution', 'bad_input', 'bad_output', 'deep_input']) {
      expect(state(wireName), wireName).toEqual(['rejected'])
    }
    expect(byWire(plans, 'good_first')[1]?.note).toContain('second tool named "good_first"')
    const nameless = byWire(plans, '')
    expect(nameless.map((plan) => plan.note)).toEqual([
      'the tool at position 10 of the listing has no name (name must be a non-empty string, got number)',
      'the tool at position 11 of the listing is not a tool definition (an object), got null',
      'the tool at position 12 of the listing is not a tool definition (an object), got string',
    ])
    expect(plans.find((plan) => plan.wireName === 'bad_description')?.findings).toEqual([
      { code: 'invalid-tool', path: '/description', message: 'description must be a string, got number', repairable: false, source: 'tool' },
    ])
  })

  it('rejects a definition whose reading throws (a host-made one with a throwing getter) instead of throwing', () => {
    const hostile = trustedTool('getter')
    Object.defineProperty(hostile, 'description', { enumerable: true, get: () => { throw new Error('boom') } })
    const plans = planTools([hostile, trustedTool('fine')] as McpToolDefinition[], config, new Map())
    expect(plans.map((plan) => [plan.wireName, plan.state])).toEqual([['getter', 'rejected'], ['fine', 'registered']])
    expect(plans[0]?.note).toContain('could not be read: boom')
  })

  it('keeps a server ready whose listing holds malformed tools: the good ones are called, the bad ones reported in mcp/status', async () => {
    const statuses: McpServerStatus[] = []
    // The deep schema as text: 40,000 JSON levels, past what JSON.stringify (or a recursive check) can take.
    const deep = `{"name":"deep_input","inputSchema":{"type":"object","properties":{"a":${'{"type":"object","properties":{"x":'.repeat(20_000)}{"type":"string"}${'}}'.repeat(20_000)}}}}`
    const listed = JSON.stringify(malformed.filter((tool) => (tool as { name?: unknown } | null)?.name !== 'deep_input'))
    const raw = `[${deep},${listed.slice(1)}`
    const { t, status } = await loadHostile({ raw }, { good_last: '{"content":[{"type":"text","text":"fine"}]}' }, cleanups)
    t.ctx.on('mcp/status', (event) => void statuses.push(event))
    // Before: the SDK's result schema refused the whole page (a non-string description, a schema too deep for its
    // recursive JSON check), the connect failed and the server was restarted, then suspended.
    expect(status.error).toBeUndefined()
    expect(status.state).toBe('ready')
    expect(t.tools.schemas().map((schema) => schema.name).sort()).toEqual(['mcp__fx__good_first', 'mcp__fx__good_last'])
    const result = await t.tools.execute({ callId: 'c', name: 'mcp__fx__good_last', arguments: {} })
    expect(result.content).toEqual([{ type: 'text', text: 'fine' }])
    const rejected = status.tools.filter((tool) => tool.state === 'rejected')
    expect(rejected.map((tool) => tool.wireName)).toEqual(expect.arrayContaining(['bad_ref', 'bad_description', 'deep_input', 'good_first', '']))
    expect(rejected.find((tool) => tool.wireName === 'bad_description')?.note).toContain('description must be a string')
    expect(status.restarts).toBe(0)
  })
})

describe('a listing of tens of thousands of tools', () => {
  it('registers the first maxTools, reports the rest in omittedTools, and reads no further page', async () => {
    const tools = Array.from({ length: 30 }, (_, index) => trustedTool(`tool_${index}`))
    const { t, status, requests } = await loadHostile(tools, {}, cleanups, { maxTools: 15 }, { FIXTURE_PAGE_SIZE: '10' })
    expect(status.state).toBe('ready')
    expect(t.tools.schemas()).toHaveLength(15)
    expect(status.tools).toHaveLength(15)
    expect(status.omittedTools).toEqual({ count: 5, more: true })
    expect(requests().filter((method) => method === 'tools/list')).toHaveLength(2)
  })

  it('takes one page of 200,000 tools without overflowing the stack, keeping the default 1,000', async () => {
    // 9 MB of tools in one page: spread into push() all at once, as the listing did, they overflow the stack.
    const raw = `[${Array.from({ length: 200_000 }, (_, index) => `{"name":"t${index}","inputSchema":{"type":"object"}}`).join(',')}]`
    const { t, status } = await loadHostile({ raw }, {}, cleanups, { maxMessageBytes: 64 * 1024 * 1024 })
    expect(status.state).toBe('ready')
    expect(t.tools.schemas()).toHaveLength(1_000)
    expect(status.omittedTools).toEqual({ count: 199_000, more: false })
  }, 60_000)

  it('plans a large listing in slices: timers fire while it is checked', async () => {
    const properties = Object.fromEntries(Array.from({ length: 150 }, (_, index) => [`p${index}`, { type: 'string', description: `field ${index}` }]))
    const tools = Array.from({ length: 2_000 }, (_, index) => trustedTool(`tool_${index}`, { inputSchema: { type: 'object', properties } }))
    let ticks = 0
    const timer = setInterval(() => (ticks += 1), 1)
    try {
      const plans = await planToolsInSlices(tools as McpToolDefinition[], config, new Map())
      expect(plans.filter((plan) => plan.state === 'registered')).toHaveLength(2_000)
    } finally {
      clearInterval(timer)
    }
    // Planning 2,000 tools of 450 nodes takes well over a slice (measured: about 400 ms), so a 1 ms timer ticks many
    // times; planned in one synchronous burst it would not tick once.
    expect(ticks).toBeGreaterThan(3)
  })
})

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { McpToolConfig } from './server-config.js'
import type { McpToolDefinition } from './session-types.js'
import { toolPolicy } from './tool-policy.js'

const tool = (annotations?: Record<string, unknown>): McpToolDefinition => ({ name: 't', inputSchema: { type: 'object' }, ...(annotations === undefined ? {} : { annotations }) })
const hint = fc.option(fc.boolean(), { nil: undefined })
const annotations = fc.record({ readOnlyHint: hint, destructiveHint: hint, idempotentHint: hint, openWorldHint: hint }, { requiredKeys: [] })
const settings = fc.option(
  fc.record(
    { approval: fc.constantFrom('ask', 'allow', 'auto'), concurrencySafe: fc.boolean(), idempotent: fc.boolean() },
    { requiredKeys: [] },
  ) as fc.Arbitrary<McpToolConfig>,
  { nil: undefined },
)

describe('trust that loosens: hints of an untrusted server', () => {
  it("destructiveHint: false of an untrusted server no longer skips the ask (it did: the claim alone lifted it)", () => {
    const policy = toolPolicy(tool({ destructiveHint: false }), false, undefined)
    expect(policy.ask).toBe(true)
    expect(policy.reason).toBe('t is a tool of an MCP server that is not trusted, whose annotations cannot lift the ask')
    expect(toolPolicy(tool({ readOnlyHint: true, destructiveHint: false }), false, undefined)).toEqual({ ...policy, concurrencySafe: false, replayable: false })
  })

  it('never reduce what is asked, nor make a tool parallel or replayable: any hints, any per-tool config (property)', () => {
    fc.assert(
      fc.property(annotations, settings, (hints, config) => {
        const hinted = toolPolicy(tool(hints), false, config)
        const bare = toolPolicy(tool(), false, config)
        expect(hinted.ask).toBe(bare.ask)
        expect(hinted.concurrencySafe).toBe(bare.concurrencySafe)
        expect(hinted.replayable).toBe(bare.replayable)
        // Only the host's own config lifts the ask.
        expect(hinted.ask).toBe(config?.approval !== 'allow')
      }),
      { numRuns: 500 },
    )
  })

  it('still let a trusted server skip the ask for a read-only or non-destructive tool, and the config override everything', () => {
    expect(toolPolicy(tool({ readOnlyHint: true }), true, undefined)).toMatchObject({ ask: false, concurrencySafe: true, replayable: true })
    expect(toolPolicy(tool({ destructiveHint: false }), true, undefined)).toMatchObject({ ask: false, concurrencySafe: false })
    expect(toolPolicy(tool(), true, undefined).ask).toBe(true)
    expect(toolPolicy(tool({ destructiveHint: true }), true, undefined).reason).toBe('the MCP server marks t as destructive')
    expect(toolPolicy(tool({ readOnlyHint: true }), true, { approval: 'ask' }).ask).toBe(true)
    expect(toolPolicy(tool(), false, { approval: 'allow', concurrencySafe: true })).toMatchObject({ ask: false, concurrencySafe: true })
  })

  it('ignores annotations that are not an object', () => {
    expect(toolPolicy({ ...tool(), annotations: 'readOnly' as never }, true, undefined)).toMatchObject({ ask: true, concurrencySafe: false })
  })
})

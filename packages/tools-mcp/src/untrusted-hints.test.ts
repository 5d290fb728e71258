// Trust that loosens: an untrusted server's `destructiveHint: false` skipped the approval, although the page said an
// untrusted server's hints can only tighten policy. Every tool of an untrusted server asks unless the host allows it.
import { afterEach, describe, expect, it } from 'vitest'
import { fixtureTool } from './test-support/fixtures.js'
import { expectNoLeftovers, loadFixture } from './test-support/load.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await expectNoLeftovers()
})

describe("an untrusted server's hints", () => {
  it('destructiveHint: false (with readOnlyHint) does not skip the ask; only the host config does', async () => {
    const harmless = fixtureTool('harmless', { annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true } })
    const allowed = fixtureTool('allowed', { annotations: { destructiveHint: false } })
    const { t, status } = await loadFixture([harmless, allowed], cleanups, { config: { tools: { allowed: { approval: 'allow' } } } })
    const denied = await t.tools.execute({ callId: 'h', name: 'mcp__fx__harmless', arguments: {} })
    expect(denied.error?.code).toBe('APPROVAL_NO_AGENT') // asked, and nobody could answer
    expect(status.tools.find((tool) => tool.wireName === 'harmless')).toMatchObject({ asks: true, concurrencySafe: false })
    expect(t.tools.executionMode({ name: 'mcp__fx__harmless' })).toBe('serial')
    const ran = await t.tools.execute({ callId: 'a', name: 'mcp__fx__allowed', arguments: {} })
    expect(ran.isError).toBe(false)
  })

  it('of a trusted server still lift the ask', async () => {
    const { t } = await loadFixture([fixtureTool('harmless', { annotations: { destructiveHint: false } })], cleanups, { config: { trust: true } })
    expect((await t.tools.execute({ callId: 'h', name: 'mcp__fx__harmless', arguments: {} })).isError).toBe(false)
  })
})

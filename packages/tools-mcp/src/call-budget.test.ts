// The budget of a call: an idle budget that progress resets (in the client) under a hard cap that is the tool's
// registered timeoutMs, so @dsh/timeout-policy, when loaded, enforces the cap as the outer deadline.
import { TimeoutPolicy } from '@dsh/timeout-policy'
import { createToolContext, type ToolTestContext } from '@dsh/tools-testing'
import { afterEach, describe, expect, it } from 'vitest'
import { callBudget, mcpServer, resolveMcpServerConfig, whenMcpServerReady, type McpServerConfig } from './index.js'
import { bin } from './test-support/fixtures.js'
import { expectNoLeftovers, recordPids } from './test-support/load.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await expectNoLeftovers()
})

const slow = 'trigger-long-running-operation'
const slowName = `mcp__every__${slow}`

/** server-everything over stdio, its slow tool capped at 4 s with an idle budget of 1.5 s; the policy loaded first when asked. */
async function everything(withPolicy: boolean, extra: Partial<McpServerConfig> = {}): Promise<ToolTestContext> {
  const t = await createToolContext()
  recordPids(t)
  cleanups.push(() => t.dispose())
  if (withPolicy) await t.load(TimeoutPolicy, { graceMs: 2_000 })
  await t.load(mcpServer, {
    id: 'every',
    command: bin('mcp-server-everything'),
    args: ['stdio'],
    trust: true,
    killGraceMs: 1_000,
    tools: { [slow]: { timeoutMs: 4_000, idleTimeoutMs: 1_500 } },
    ...extra,
  })
  const status = await whenMcpServerReady(t.ctx, 'every')
  if (status.state !== 'ready') throw new Error(`server-everything is ${status.state}: ${status.error?.message}`)
  return t
}

describe('call budgets', () => {
  it('registers the hard cap as each tool\'s timeoutMs: the tool\'s own, else timeouts.callTotal', async () => {
    const t = await everything(false, { timeouts: { callTotal: 90_000 } })
    expect(t.tools.get(slowName)?.timeoutMs).toBe(4_000)
    expect(t.tools.get('mcp__every__echo')?.timeoutMs).toBe(90_000)
    expect(t.tools.schemas().find((schema) => schema.name === slowName)).not.toHaveProperty('timeoutMs')
  })

  it('resolves the idle budget under the cap, and rejects unknown or invalid per-tool settings', () => {
    const config = resolveMcpServerConfig({ id: 's', command: 'x', timeouts: { call: 60_000, callTotal: 120_000 }, tools: { a: { timeoutMs: 5_000 }, b: { idleTimeoutMs: 2_000 } } })
    expect(callBudget(config, 'a')).toEqual({ idleMs: 5_000, totalMs: 5_000 })
    expect(callBudget(config, 'b')).toEqual({ idleMs: 2_000, totalMs: 120_000 })
    expect(callBudget(config, 'other')).toEqual({ idleMs: 60_000, totalMs: 120_000 })
    expect(callBudget(config, 'constructor')).toEqual({ idleMs: 60_000, totalMs: 120_000 })
    expect(() => resolveMcpServerConfig({ id: 's', command: 'x', tools: { a: { idleTimeout: 5 } } })).toThrow(/tools\["a"\]\.idleTimeout: unknown option/)
    expect(() => resolveMcpServerConfig({ id: 's', command: 'x', tools: { a: { idleTimeoutMs: 0 } } })).toThrow(/tools\["a"\]\.idleTimeoutMs: must be an integer/)
  })

  it('with timeout-policy loaded: progress keeps a call alive past the idle budget, the cap is the policy\'s TOOL_TIMEOUT, silence is MCP_TIMEOUT', async () => {
    const t = await everything(true)
    // 2 s of work, progress every 250 ms: past the 1.5 s idle budget, within the 4 s cap.
    const kept = await t.tools.execute({ callId: 'k', name: slowName, arguments: { duration: 2, steps: 8 } })
    expect(kept.isError).toBe(false)
    // 8 s of work with steady progress: the cap fires, and the policy's deadline (which started first) owns it.
    const capped = await t.tools.execute({ callId: 'c', name: slowName, arguments: { duration: 8, steps: 16 } })
    expect(capped.error).toEqual({ name: 'ToolTimeoutError', code: 'TOOL_TIMEOUT' })
    expect(capped.content).toEqual([{ type: 'text', text: `Tool call timed out after 4000ms: "${slowName}" was cancelled at its deadline.` }])
    // One step of 3 s: no progress for longer than the idle budget, long before the cap: the client's own timeout.
    const silent = await t.tools.execute({ callId: 's', name: slowName, arguments: { duration: 3, steps: 1 } })
    expect(silent.error).toEqual({ name: 'McpCallError', code: 'MCP_TIMEOUT' })
    expect(silent.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('sent neither a result nor progress for 1500 ms') })
  })

  it('with timeout-policy loaded, an abort is still ABORTED, not a timeout', async () => {
    const t = await everything(true)
    const controller = new AbortController()
    const pending = t.tools.execute({ callId: 'a', name: slowName, arguments: { duration: 6, steps: 12 }, signal: controller.signal })
    setTimeout(() => controller.abort(), 600)
    const result = await pending
    expect(result.error).toEqual({ name: 'ToolAbortedError', code: 'ABORTED' })
  })

  it('without timeout-policy, the client enforces the cap itself, even while progress keeps coming', async () => {
    const t = await everything(false)
    const capped = await t.tools.execute({ callId: 'c', name: slowName, arguments: { duration: 8, steps: 16 } })
    expect(capped.error).toEqual({ name: 'McpCallError', code: 'MCP_TIMEOUT' })
    expect(capped.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('ran past its cap of 4000 ms (progress or not)') })
  })
})

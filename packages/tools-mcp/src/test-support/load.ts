import { createToolContext, type LoadedPlugin, type ToolTestContext } from '@dsh/tools-testing'
import { mcpServer, whenMcpServerReady, type McpServerStatus } from '../index.js'
import { groupAlive, trackedGroups } from '../process-groups.js'
import { alive, fixture, until } from './fixtures.js'

/** Every server pid any test context saw (from `mcp/status`). */
const seenPids = new Set<number>()

/** Records the server pids of a context's `mcp/status` events, for {@link expectNoLeftovers}. */
export function recordPids(t: ToolTestContext): void {
  t.ctx.on('mcp/status', (status) => {
    if (status.pid !== undefined) seenPids.add(status.pid)
  })
}

/**
 * Fails unless every server process (and process group) any test started is gone: run it in afterEach, after
 * the contexts are disposed. Waits a little, for a group that is still being killed.
 */
export async function expectNoLeftovers(): Promise<void> {
  await until(() => trackedGroups().length === 0 && [...seenPids].every((pid) => !alive(pid) && !groupAlive(pid)), 15_000, `no MCP server processes left (pids ${[...seenPids].filter(alive).join(', ')}; groups ${trackedGroups().join(', ')})`)
  seenPids.clear()
}

/** What {@link loadFixture} returns. */
export interface LoadedFixture {
  readonly t: ToolTestContext
  readonly fx: ReturnType<typeof fixture>
  readonly loaded: LoadedPlugin
  readonly status: McpServerStatus
}

/**
 * Loads the fixture server with `tools` into a fresh tool context and waits until it is ready. Push the returned
 * cleanup into the test's afterEach list: it disposes the context (which ends the server) and removes the temp dir.
 */
export async function loadFixture(
  tools: readonly unknown[],
  cleanups: (() => Promise<void> | void)[],
  options: Parameters<typeof fixture>[1] = {},
): Promise<LoadedFixture> {
  const fx = fixture(tools, options)
  cleanups.push(fx.cleanup)
  const t = await createToolContext()
  recordPids(t)
  cleanups.push(() => t.dispose())
  const loaded = await t.load(mcpServer, fx.config)
  const status = await whenMcpServerReady(t.ctx, fx.config.id ?? 'fx')
  return { t, fx, loaded, status }
}

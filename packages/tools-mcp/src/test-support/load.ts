import { createToolContext, type LoadedPlugin, type ToolTestContext } from '@dsh/tools-testing'
import { mcpServer, whenMcpServerReady, type McpServerStatus } from '../index.js'
import { fixture } from './fixtures.js'

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
  cleanups.push(() => t.dispose())
  const loaded = await t.load(mcpServer, fx.config)
  const status = await whenMcpServerReady(t.ctx, fx.config.id ?? 'fx')
  return { t, fx, loaded, status }
}

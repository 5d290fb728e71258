import { setTimeout as sleep } from 'node:timers/promises'
import { genericCall } from '@dsh/tools-presentation'
import type {} from '@dsh/tools-registry' // types ctx.tools
import { defineTool } from '@dsh/tools-schema'
import type { Context } from 'cordis'

/** Configuration of the `search_archive` plugin. */
export interface SlowSearchConfig {
  /** The budget the tool declares (`timeoutMs`), enforced by `@dsh/timeout-policy`. Default 250. */
  readonly timeoutMs?: number | undefined
  /** How long the simulated archive takes to answer. Default 60,000: it never answers within the budget. */
  readonly latencyMs?: number | undefined
}

/**
 * Builds `search_archive`, a tool that talks to a slow service. It declares a `timeoutMs` budget; the timeout
 * policy fuses a deadline into `exec.signal`, and because the body hands that signal to the work it waits for,
 * the call stops at the deadline and ends as `TOOL_TIMEOUT` ("cancelled at its deadline"). A body that ignored
 * its signal would be abandoned after the policy's grace period instead (`TOOL_TIMEOUT_ABANDONED`).
 */
export function createSlowSearchTool(config: SlowSearchConfig = {}) {
  const latencyMs = config.latencyMs ?? 60_000
  return defineTool({
    name: 'search_archive',
    description: 'Search the project archive for a phrase. The archive is slow.',
    parameters: {
      query: { type: 'string', required: true, description: 'The phrase to look for' },
    },
    timeoutMs: config.timeoutMs ?? 250,
    async execute(args, exec) {
      // Stands for a request to a slow service: cancelled as soon as exec.signal aborts.
      await sleep(latencyMs, undefined, { signal: exec.signal })
      return `No document mentions "${args.query}".`
    },
    presentCall: (args) => genericCall({ title: `Search the archive for "${args.query}"`, kind: 'search' }),
  })
}

/** The plugin name. */
export const name = 'slow-search-tool'
/** The plugin needs the registry. */
export const inject = ['tools']

/** Registers `search_archive`. */
export function apply(ctx: Context, config: SlowSearchConfig = {}): void {
  ctx.tools.register(createSlowSearchTool(config))
}

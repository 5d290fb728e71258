import { setTimeout as sleep } from 'node:timers/promises'
import { genericCall } from '@dsh/tools-presentation'
import type {} from '@dsh/tools-registry' // types ctx.tools
import { defineTool } from '@dsh/tools-schema'
import { taskOf } from '@dsh/tool-tasks'
import type { Context } from 'cordis'

/** Configuration of the `index_archive` plugin. */
export interface IndexArchiveConfig {
  /** How long indexing one collection takes. Default 150 ms (three collections: longer than the budget). */
  readonly collectionMs?: number | undefined
  /** The foreground budget: a call still running after it moves to the background. Default 200 ms. */
  readonly autoBackgroundAfterMs?: number | undefined
}

const COLLECTIONS = ['notes', 'tickets', 'wiki'] as const

/**
 * Builds `index_archive`, a tool whose work takes longer than a turn should wait. It declares
 * `execution: { background: 'optional', autoBackgroundAfterMs }`: with `@dsh/tool-tasks` loaded, a call still running
 * after the budget moves to the background by itself, the model gets a task id at once, and `task_output` later
 * returns the result. The body writes no task code beyond taking the task's signal and reporting its status.
 */
export function createIndexArchiveTool(config: IndexArchiveConfig = {}) {
  const collectionMs = config.collectionMs ?? 150
  return defineTool({
    name: 'index_archive',
    description: 'Rebuild the search index of the project archive. It takes a while; it can run in the background.',
    parameters: {},
    execution: { background: 'optional', autoBackgroundAfterMs: config.autoBackgroundAfterMs ?? 200 },
    async execute(_args, exec) {
      const task = taskOf(exec)
      const signal = task?.signal ?? exec.signal
      for (const [index, collection] of COLLECTIONS.entries()) {
        task?.status(`indexing ${collection} (${index + 1} of ${COLLECTIONS.length})`)
        await sleep(collectionMs, undefined, { signal })
      }
      return `Indexed ${COLLECTIONS.length} collections (${COLLECTIONS.join(', ')}): the archive can be searched again.`
    },
    presentCall: () => genericCall({ title: 'Rebuild the archive index', kind: 'other' }),
  })
}

/** The plugin name. */
export const name = 'index-archive-tool'
/** The plugin needs the registry. */
export const inject = ['tools']

/** Registers `index_archive`. */
export function apply(ctx: Context, config: IndexArchiveConfig = {}): void {
  ctx.tools.register(createIndexArchiveTool(config))
}

// ctx.tools and its types come from the registry's module augmentation; ctx.bash from ./bash-executor.js.
import { checkCordisHost } from '@dsh/tools-registry'
import type { Context } from 'cordis'
import { BackgroundTasks } from './background-tasks.js'
import type {} from './bash-executor.js'
import {
  configSchema,
  resolveBashToolsConfig,
  type BashConfigSchema,
  type BashToolsConfig,
  type ResolvedBashToolsConfig,
} from './bash-tools-config.js'
import { contributeBashGuidance } from './bash-guidance.js'
import { createBashTools, ForegroundRuns } from './create-bash-tools.js'
import { LayerBashTasks } from './layer-tasks.js'
import type { TaskService } from '@dsh/tool-tasks'

/**
 * Registers the model-facing tools `bash`, `bash_output` and `bash_kill` on `ctx.tools`, running commands through
 * `ctx.bash` (the executor seam). Validates `config` (cordis has already run {@link BashTools.Config}). Disposing
 * the plugin's fiber unregisters the tools, stops every background task it started and every foreground command
 * still running, and waits until their processes are gone. While a `systemPrompt` service is present, it also
 * contributes a short guidance section ({@link bashGuidance}).
 */
function apply(ctx: Context, config?: BashToolsConfig): void {
  checkCordisHost(ctx, '@dsh/tool-bash')
  const resolved = resolveBashToolsConfig(config)
  const tools = ctx.tools
  const executor = ctx.bash
  const logger = ctx.logger('bash')
  const tasks = new BackgroundTasks(resolved, (message, error) =>
    error === undefined ? logger.warn(message) : logger.warn(message, error),
  )
  const foreground = new ForegroundRuns()
  const layerTasks = new LayerBashTasks()
  ctx.effect(
    () => () => Promise.all([foreground.dispose(), tasks.dispose(), layerTasks.dispose()]).then(() => undefined),
    'bash tools: running commands',
  )
  // The task layer is optional and asked for at each call: loaded before or after the tools, it runs the background
  // commands started while it is there; without it, tool-bash's own table does.
  const layer = (): TaskService | undefined => ctx.get('tasks') as TaskService | undefined
  const definitions = createBashTools({ executor, tasks, foreground, config: resolved, layer, layerTasks })
  for (const tool of definitions) tools.register(tool)
  contributeBashGuidance(ctx, { tools, definitions, limits: executor.limits, config: resolved })
}

/** The shape of {@link BashTools}: a cordis plugin object. */
export interface BashToolsPlugin {
  /** `'bash-tools'`. */
  readonly name: string
  /** `['tools', 'bash']`: the registry and an executor. */
  readonly inject: string[]
  /** The configuration schema cordis validates with; `validate` throws {@link BashToolsConfigError}. */
  readonly Config: BashConfigSchema<BashToolsConfig, ResolvedBashToolsConfig>
  /** Registers the tools. */
  apply(ctx: Context, config?: BashToolsConfig): void
}

/**
 * The bash tools as a cordis plugin object: `bash`, `bash_output` and `bash_kill`, defined with `defineTool` and
 * registered on `ctx.tools` (`@dsh/tools-registry`). It injects `tools` and `bash`, so it starts once a registry
 * and an executor ({@link LocalBashExecutor} or a replacement) are loaded, and restarts when either is replaced.
 * It never touches processes itself: every command goes through `ctx.bash`.
 *
 * @example
 * ```ts
 * import { Context } from 'cordis'
 * import { ToolRegistry } from '@dsh/tools-registry'
 * import { BashTools, LocalBashExecutor } from '@dsh/tool-bash'
 *
 * const ctx = new Context()
 * await ctx.plugin(ToolRegistry)
 * await ctx.plugin(LocalBashExecutor, { cwd: '/srv/project' })
 * await ctx.plugin(BashTools, { maxBackgroundTasks: 4 })
 * const result = await ctx.tools.execute({ callId: 'call_1', name: 'bash', arguments: { command: 'echo hi' } })
 * console.log(result.content) // [{ type: 'text', text: 'hi' }]
 * ```
 */
export const BashTools: BashToolsPlugin = Object.freeze({
  name: 'bash-tools',
  inject: ['tools', 'bash'],
  Config: configSchema<BashToolsConfig, ResolvedBashToolsConfig>(resolveBashToolsConfig),
  apply,
})

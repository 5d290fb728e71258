import type { Context } from 'cordis'
import { checkCordisHost, warnIfToolRegistryMissing } from '@dsh/tools-registry'
import { BashConfigError } from './bash-config-error.js'
import { BashToolsConfigError } from './bash-tools-config-error.js'
import { configSchema, resolveWithIssues, type BashConfigSchema, type BashToolsConfig } from './bash-tools-config.js'
import { BashTools } from './bash-tools.js'
import { isPlainObject, ownValue } from './config-values.js'
import { resolveLocalBashConfig, type LocalBashConfig } from './local-bash-config.js'
import { LocalBashExecutor } from './local-bash-executor.js'

/** The configuration of {@link LocalBashTools}: one object per plugin it loads. */
export interface LocalBashToolsConfig {
  /** The local executor's configuration ({@link LocalBashConfig}). Default: `{}`. */
  executor?: LocalBashConfig | undefined
  /** The tools' configuration ({@link BashToolsConfig}). Default: `{}`. */
  tools?: BashToolsConfig | undefined
}

/** {@link LocalBashToolsConfig} after validation: both parts present (each is validated again by its plugin). */
export interface ResolvedLocalBashToolsConfig {
  /** The executor's configuration, as given. */
  readonly executor: LocalBashConfig
  /** The tools' configuration, as given. */
  readonly tools: BashToolsConfig
}

/**
 * Validates a {@link LocalBashToolsConfig}: both parts at once, so one error lists every problem, each prefixed
 * with its part (`executor.maxTimeoutMs: …`, `tools.maxBackgroundTasks: …`). Throws {@link BashToolsConfigError}.
 */
export function resolveLocalBashToolsConfig(input: unknown): ResolvedLocalBashToolsConfig {
  if (input === undefined || input === null) input = {}
  if (!isPlainObject(input)) throw new BashToolsConfigError(['config: must be a plain object with executor and tools'])
  const issues: string[] = []
  for (const key of Reflect.ownKeys(input)) {
    if (key !== 'executor' && key !== 'tools') issues.push(`${String(key)}: unknown key (known keys: executor, tools)`)
  }
  const executor = (ownValue(input, 'executor') ?? {}) as LocalBashConfig
  const tools = (ownValue(input, 'tools') ?? {}) as BashToolsConfig
  try {
    resolveLocalBashConfig(executor)
  } catch (error) {
    if (!BashConfigError.isInstance(error)) throw error
    issues.push(...error.issues.map((issue) => `executor.${issue}`))
  }
  try {
    resolveWithIssues(tools, 'tools.', (found) => new BashToolsConfigError(found))
  } catch (error) {
    if (!BashToolsConfigError.isInstance(error)) throw error
    issues.push(...error.issues)
  }
  if (issues.length > 0) throw new BashToolsConfigError(issues)
  return Object.freeze({ executor, tools })
}

/** The shape of {@link LocalBashTools}: a cordis plugin object. */
export interface LocalBashToolsPlugin {
  /** `'local-bash-tools'`. */
  readonly name: string
  /** The configuration schema cordis validates with; `validate` throws {@link BashToolsConfigError}. */
  readonly Config: BashConfigSchema<LocalBashToolsConfig, ResolvedLocalBashToolsConfig>
  /** Loads the executor and the tools. */
  apply(ctx: Context, config?: LocalBashToolsConfig): Promise<void>
}

/**
 * The executor and the tools in one plugin, for harnesses that run commands on the local machine: it loads
 * {@link LocalBashExecutor} with `config.executor` and {@link BashTools} with `config.tools` as its own children,
 * so disposing it stops every command and unloads both. The tools wait for `ctx.tools` (load `ToolRegistry` of
 * `@dsh/tools-registry` too). Both configurations are validated together before anything loads.
 *
 * @example
 * ```ts
 * import { Context } from 'cordis'
 * import { ToolRegistry } from '@dsh/tools-registry'
 * import { LocalBashTools } from '@dsh/tool-bash'
 *
 * const ctx = new Context()
 * await ctx.plugin(ToolRegistry)
 * await ctx.plugin(LocalBashTools, { executor: { cwd: '/srv/project' }, tools: { maxBackgroundTasks: 4 } })
 * ```
 */
export const LocalBashTools: LocalBashToolsPlugin = Object.freeze({
  name: 'local-bash-tools',
  Config: configSchema<LocalBashToolsConfig, ResolvedLocalBashToolsConfig>(resolveLocalBashToolsConfig),
  async apply(ctx: Context, config?: LocalBashToolsConfig): Promise<void> {
    checkCordisHost(ctx, '@dsh/tool-bash')
    const { executor, tools } = resolveLocalBashToolsConfig(config)
    await ctx.plugin(LocalBashExecutor, executor)
    await ctx.plugin(BashTools, tools)
    warnIfToolRegistryMissing(ctx, 'The bash tools of @dsh/tool-bash (LocalBashTools)')
  },
})

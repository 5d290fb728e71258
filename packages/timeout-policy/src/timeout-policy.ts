// ctx.tools and the tools/* events are typed by the registry's module augmentation.
import { checkCordisHost } from '@dsh/tools-registry'
import type { Context } from 'cordis'
import { Config, resolveTimeoutPolicyConfig, type TimeoutPolicyConfigSchema } from './config.js'
import { DeadlineEnforcer } from './deadline-enforcer.js'

/** The plugin's name, as cordis shows it. */
export const name = 'timeout-policy'

/** The services the plugin needs: the tool registry (`@dsh/tools-registry`). */
export const inject: string[] = ['tools']

/**
 * Enforces timeout budgets on tool calls: registers a `tools/execute` wrapper on `ctx.tools` that gives every call
 * whose tool declares `timeoutMs` (or that gets `defaultTimeoutMs`, clamped by `maxTimeoutMs`) a deadline fused into
 * `exec.signal`. A call still running at its deadline is cancelled and ends as `TOOL_TIMEOUT`; one still running
 * `graceMs` later is abandoned as `TOOL_TIMEOUT_ABANDONED`, and its late settlement is only reported on
 * `timeout/late-settlement`. Disposing the plugin removes the wrapper and drops every pending timer: calls already
 * running finish without their deadline (a deadline that already fired still makes the call `TOOL_TIMEOUT`).
 *
 * @param ctx - the plugin's context; needs `ctx.tools`
 * @param config - validated again here (cordis has already run {@link Config}); throws `TimeoutPolicyConfigError`
 */
export function apply(ctx: Context, config?: Config): void {
  checkCordisHost(ctx, '@dsh/timeout-policy')
  const resolved = resolveTimeoutPolicyConfig(config)
  const tools = ctx.tools
  const enforcer = new DeadlineEnforcer(ctx, tools, resolved)
  ctx.effect(() => () => enforcer.dispose(), 'timeout-policy: running deadlines')
  tools.on('tools/execute', enforcer.wrap)
}

/** The shape of {@link TimeoutPolicy}: a cordis plugin object. */
export interface TimeoutPolicyPlugin {
  /** `'timeout-policy'`. */
  readonly name: string
  /** `['tools']`. */
  readonly inject: string[]
  /** The configuration schema cordis validates with. */
  readonly Config: TimeoutPolicyConfigSchema
  /** See {@link apply}. */
  apply(ctx: Context, config?: Config): void
}

/**
 * The timeout policy as one cordis plugin object (also the package's default export):
 * `await ctx.plugin(TimeoutPolicy, { defaultTimeoutMs: 60_000 })`.
 */
export const TimeoutPolicy: TimeoutPolicyPlugin = { name, inject, Config, apply }

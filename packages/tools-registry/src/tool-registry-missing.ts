import type { Context } from 'cordis'

/**
 * The text of the warning: `<plugin>` waits for `ctx.tools`, and how to provide it.
 *
 * @param plugin - who waits, as a person reads it (`the bash tools of @dsh/tool-bash`)
 */
export function toolRegistryMissingText(plugin: string): string {
  return (
    `${plugin} wait for ctx.tools, which no plugin provides: load ToolRegistry from @dsh/tools-registry ` +
    "(import { ToolRegistry } from '@dsh/tools-registry'; await ctx.plugin(ToolRegistry)). Until then nothing is " +
    'registered, and ctx.tools is undefined outside plugins that inject it.'
  )
}

/**
 * Warns, once per call, when `ctx.tools` is not provided when a plugin that needs it is loaded: a cordis plugin that
 * injects `tools` waits silently for it, and the host then fails at its first `ctx.tools.execute(…)` with
 * `Cannot read properties of undefined`. The warning goes to `ctx.logger('tools')` and, because cordis 4 shows no
 * log unless the host sets up an exporter, to `console.warn` too, synchronously: the host's next line may end the
 * process (an asynchronous `process.emitWarning` would never be printed). A plugin that loads tool plugins as its
 * children (`LocalBashTools`) calls it after loading them; nothing is said when the registry is there, so load
 * `ToolRegistry` first.
 *
 * @param ctx - the calling plugin's context
 * @param plugin - who waits, as a person reads it, plural (`the bash tools of @dsh/tool-bash`)
 * @returns whether it warned
 */
export function warnIfToolRegistryMissing(ctx: Context, plugin: string): boolean {
  if (ctx.get('tools') !== undefined) return false
  const text = toolRegistryMissingText(plugin)
  ctx.logger('tools').warn(text)
  globalThis.console?.warn(`Warning: ${text}`)
  return true
}

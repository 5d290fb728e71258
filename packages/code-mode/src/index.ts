// The registry's types add `ctx.tools` to cordis's Context; the import has no run-time cost.
import type {} from '@dsh/tools-registry'
import type { Context } from 'cordis'
import { codeModeTool } from './code-mode-tool.js'

export { codeModeTool } from './code-mode-tool.js'

/** The plugin's name. */
export const name = 'code-mode'

/** Services the plugin needs: the tool registry (`@dsh/tools-registry`). */
export const inject = ['tools']

/** Registers the `code_mode` tool. The registration is undone when the plugin is unloaded. */
export function apply(ctx: Context): void {
  ctx.tools.register(codeModeTool)
}

/** The plugin as an object, for `ctx.plugin(codeModePlugin)`. */
export const codeModePlugin = { name, inject, apply }

export default codeModePlugin

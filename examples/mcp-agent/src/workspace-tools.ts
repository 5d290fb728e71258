import type { ToolExecution } from '@dsh/tools-core'
import { defineTool } from '@dsh/tools-registry'
import type { Context } from 'cordis'

/** The `count_words` tool: the harness's own tool, written with `defineTool` (parallel-safe, so served as read-only). */
export const countWordsTool = defineTool({
  name: 'count_words',
  description: 'Count the words (runs of non-space characters) of a text.',
  parameters: { text: { type: 'string', required: true, description: 'The text to count' } },
  concurrencySafe: true,
  execute: ({ text }) => String(text.match(/\S+/g)?.length ?? 0),
})

/** A shell command that removes files: `rm` as a command word. */
const DELETES = /(?:^|[;&|(])\s*(?:sudo\s+)?rm\s/

function bashCommand(exec: Readonly<ToolExecution>): string | undefined {
  const args = exec.arguments
  if (exec.name !== 'bash' || typeof args !== 'object' || args === null || Array.isArray(args)) return undefined
  const command = (args as Readonly<Record<string, unknown>>).command
  return typeof command === 'string' ? command : undefined
}

/**
 * The harness's own part of the registry: `count_words` and the policy, a `tools/pre-execute` listener that denies
 * shell commands that delete files. The policy sits in the pipeline, so it holds for every caller: the scripted
 * model, and an MCP client of the served registry alike. Registered through `ctx.tools`, so unloading the plugin
 * removes both.
 */
export const name = 'workspace-tools'
/** The plugin needs the registry. */
export const inject = ['tools']

/** Registers `count_words` and the policy listener. */
export function apply(ctx: Context): void {
  ctx.tools.register(countWordsTool)
  ctx.tools.on('tools/pre-execute', (exec, next) => {
    const command = bashCommand(exec)
    return command !== undefined && DELETES.test(command) ? { kind: 'deny', reason: 'this workspace keeps its files: no rm' } : next()
  })
}

/** The plugin as an object, for `ctx.plugin(WorkspaceTools)`. */
export const WorkspaceTools = { name, inject, apply }

import type { ContentBlock, ToolExecution } from '@dsh/tools-core'
import type {} from '@dsh/tools-registry' // types ctx.tools and its events
import type { Context } from 'cordis'
import { destructiveCommandReason } from './destructive-command.js'
import { findCredential } from './find-credential.js'

function stringArgument(exec: Readonly<ToolExecution>, key: string): string | undefined {
  const args = exec.arguments
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined
  const value = (args as Readonly<Record<string, unknown>>)[key]
  return typeof value === 'string' ? value : undefined
}

function text(content: readonly ContentBlock[]): string {
  return content.map((block) => (block.type === 'text' ? block.text : '')).join('\n')
}

/**
 * The demo's policy, all of it outside the tools (a tool never decides whether it may run):
 *
 * - a **guard** that denies destructive shell commands (`rm -rf /`, …). Guards run after the whole
 *   `tools/pre-execute` waterfall and are deny-only, so no listener and no approval can undo them;
 * - a **`tools/pre-execute`** listener that answers `ask` for `write_file`: the registry then asks the approval
 *   service (`toolApproval`), and only `allowed-once` lets the call run;
 * - a **`tools/post-execute`** listener that blocks any result whose text holds something that looks like a
 *   credential: the model gets feedback instead of the secret, plus a note for its next request.
 *
 * Everything is registered through `ctx.tools`, so unloading the plugin removes all of it.
 */
export const name = 'demo-policy'
/** The plugin needs the registry. */
export const inject = ['tools']

/** Registers the guard and the two listeners. */
export function apply(ctx: Context): void {
  const tools = ctx.tools
  tools.guard((exec) => {
    if (exec.name !== 'bash') return undefined
    const command = stringArgument(exec, 'command')
    return command === undefined ? undefined : destructiveCommandReason(command)
  })

  tools.on('tools/pre-execute', (exec, next) => {
    if (exec.name !== 'write_file') return next()
    const path = stringArgument(exec, 'path')
    return { kind: 'ask', reason: path === undefined ? 'it writes a file' : `it writes ${path}` }
  })

  tools.on('tools/post-execute', (exec, result, next) => {
    const finding = findCredential(text(result.content))
    if (finding === undefined) return next()
    return {
      kind: 'block',
      feedback: [
        {
          type: 'text',
          text:
            `The output of "${exec.name}" was withheld: it contains ${finding.kind} (${finding.sample}). ` +
            'Secrets must not enter the conversation; ask the user if the task needs one.',
        },
      ],
      additionalContext: {
        content: [{ type: 'text', text: 'Files such as .env hold credentials: do not print them.' }],
        source: name,
      },
    }
  })
}

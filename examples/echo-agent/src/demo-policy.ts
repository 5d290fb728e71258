import type { ContentBlock, ToolExecution } from '@dsh/tools-core'
import type {} from '@dsh/tools-registry' // types ctx.tools and its events
import type { Context } from 'cordis'
import { destructiveCommandReason } from './destructive-command.js'
import { findCredential, redactJson } from './find-credential.js'

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
 *   `tools/pre-execute` waterfall and are deny-only, so no listener and no approval can undo them; they run before
 *   any person is asked, so nobody is asked to approve a call that a guard denies (and once more after a yes);
 * - a **`tools/pre-execute`** listener that answers `ask` for `write_file` and for shell commands that delete
 *   files (`rm …`): the registry then asks the approval service (`toolApproval`), and only `allowed-once` lets the
 *   call run;
 * - a **`tools/post-execute`** listener that redacts anything that looks like a credential from a result: from
 *   its `content`, its `meta` and its `structuredContent` alike (redacting the text alone would leave the secret
 *   in the others, and so in a session log or a program's hands), plus a note for the model's next request.
 *
 * Everything is registered through `ctx.tools`, so unloading the plugin removes all of it.
 */
export const name = 'demo-policy'
/** The plugin needs the registry. */
export const inject = ['tools']

/** A shell command that removes files: `rm` as a command word. */
const DELETES = /(?:^|[;&|(])\s*(?:sudo\s+)?rm\s/

/** Registers the guard and the two listeners. */
export function apply(ctx: Context): void {
  const tools = ctx.tools
  tools.guard((exec) => {
    if (exec.name !== 'bash') return undefined
    const command = stringArgument(exec, 'command')
    return command === undefined ? undefined : destructiveCommandReason(command)
  })

  tools.on('tools/pre-execute', (exec, next) => {
    if (exec.name === 'bash') {
      const command = stringArgument(exec, 'command')
      return command !== undefined && DELETES.test(command) ? { kind: 'ask', reason: 'it deletes files' } : next()
    }
    if (exec.name !== 'write_file') return next()
    const path = stringArgument(exec, 'path')
    return { kind: 'ask', reason: path === undefined ? 'it writes a file' : `it writes ${path}` }
  })

  tools.on('tools/post-execute', (_exec, result, next) => {
    const finding =
      findCredential(text(result.content)) ?? findCredential(JSON.stringify(result.meta ?? null)) ?? findCredential(JSON.stringify(result.structuredContent ?? null))
    if (finding === undefined) return next()
    return {
      kind: 'accept',
      content: redactJson(result.content),
      meta: redactJson(result.meta),
      structuredContent: redactJson(result.structuredContent),
      additionalContext: {
        content: [{ type: 'text', text: `A result held ${finding.kind}; it was redacted. Files such as .env hold credentials: do not print them.` }],
        source: name,
      },
    }
  })
}

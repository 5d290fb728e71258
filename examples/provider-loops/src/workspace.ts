import { defineTool, ToolRegistry } from '@dsh/tools-registry'
import { Context } from 'cordis'

/** The files the example's tools see: in memory, so every run is the same and nothing on disk is touched. */
const files: Readonly<Record<string, string>> = {
  'notes.txt': 'Ship the provider loops on Friday.',
  'todo.txt': '1. write the examples\n2. run them offline',
}

/**
 * A cordis Context with the tool registry, three small tools and a policy, as a harness would set it up:
 * `list_files` and `read_file` are parallel-safe; `delete_file` is denied by a `tools/pre-execute` listener,
 * and a `tools/post-execute` listener attaches a note (additional context) to every `read_file` result.
 */
export async function workspaceTools(): Promise<Context> {
  const ctx = new Context()
  await ctx.plugin(ToolRegistry)
  ctx.tools.register(
    defineTool({
      name: 'list_files',
      description: 'List the files of the workspace.',
      concurrencySafe: true,
      parameters: {},
      execute: () => Object.keys(files).join('\n'),
    }),
  )
  ctx.tools.register(
    defineTool({
      name: 'read_file',
      description: 'Read a file of the workspace.',
      concurrencySafe: true,
      parameters: { path: { type: 'string', required: true, description: 'A name from list_files.' } },
      execute: ({ path }) => {
        const text = Object.hasOwn(files, path) ? files[path] : undefined
        if (text === undefined) throw new Error(`there is no file ${path}; list_files shows the names`)
        return text
      },
    }),
  )
  ctx.tools.register(
    defineTool({
      name: 'delete_file',
      description: 'Delete a file of the workspace.',
      parameters: { path: { type: 'string', required: true } },
      execute: ({ path }) => `deleted ${path}`,
    }),
  )
  ctx.tools.on('tools/pre-execute', (exec, next) =>
    exec.name === 'delete_file' ? { kind: 'deny', reason: 'this workspace is read-only' } : next(),
  )
  ctx.tools.on('tools/post-execute', (exec, result, next) =>
    exec.name === 'read_file' && !result.isError
      ? { kind: 'accept', additionalContext: { content: [{ type: 'text', text: 'Note: notes.txt is shared; quote it, do not edit it.' }], source: 'notes' } }
      : next(),
  )
  return ctx
}

/** The task every example gives the model. */
export const task = 'List the files, read notes.txt, then delete todo.txt. Summarise what happened in one sentence.'

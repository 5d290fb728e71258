import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { defineTool, ToolRegistry } from '@dsh/tools-registry'
import { Context } from 'cordis'
import type {} from '@dsh/tools-registry' // the ctx.tools typing

/** The note a `tools/post-execute` listener attaches to every `read_file` result, as additional context. */
export const readNote = 'a.txt is generated: edit its template instead.'

/** The reason the policy gives when it denies `delete_file`. */
export const denyReason = 'deleting files is not allowed in this workspace'

/** What the file tool reads: `a.txt` only. */
const files: Readonly<Record<string, string>> = { 'a.txt': 'hello' }

/**
 * A real cordis Context with the registry, two small tools and a policy:
 * - `read_file` (parallel-safe) reads {@link files};
 * - `delete_file` is denied by a `tools/pre-execute` listener (it never runs; `deleted` stays empty);
 * - a `tools/post-execute` listener attaches {@link readNote} to each successful `read_file` result.
 */
export async function loopContext(): Promise<{ ctx: Context; deleted: string[]; dispose: () => Promise<unknown> }> {
  const ctx = new Context()
  await ctx.plugin(ToolRegistry)
  const deleted: string[] = []
  ctx.tools.register(
    defineTool({
      name: 'read_file',
      description: 'Read a file of the workspace.',
      concurrencySafe: true,
      parameters: { path: { type: 'string', required: true, description: 'The file, relative to the workspace.' } },
      execute: ({ path }) => {
        const text = files[path]
        if (text === undefined) throw new Error(`no file ${path}`)
        return `${path}: ${text}`
      },
    }),
  )
  ctx.tools.register(
    defineTool({
      name: 'delete_file',
      description: 'Delete a file of the workspace.',
      parameters: { path: { type: 'string', required: true } },
      execute: ({ path }) => {
        deleted.push(path)
        return `deleted ${path}`
      },
    }),
  )
  ctx.tools.on('tools/pre-execute', (exec, next) => (exec.name === 'delete_file' ? { kind: 'deny', reason: denyReason } : next()))
  ctx.tools.on('tools/post-execute', (exec, result, next) =>
    exec.name === 'read_file' && !result.isError
      ? { kind: 'accept', additionalContext: { content: [{ type: 'text', text: readNote }], source: 'workspace-notes' } }
      : next(),
  )
  return { ctx, deleted, dispose: () => ctx.root.fiber.dispose() }
}

/** A recorded provider response of `fixtures/`, parsed. */
export function fixture(name: string): unknown {
  return JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', `${name}.json`), 'utf8')) as unknown
}

/** The text of a tool message or result part, whatever its shape (a string, or text parts). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content.map((part: unknown) => (typeof part === 'object' && part !== null && 'text' in part ? String(part.text) : '')).join('\n')
}

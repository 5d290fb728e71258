import { readFile, realpath, writeFile } from 'node:fs/promises'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { diffResult, fileDiff, fileDiffHunks, genericCall } from '@dsh/tools-presentation'
import type {} from '@dsh/tools-registry' // types ctx.tools
import { defineTool } from '@dsh/tools-schema'
import type { Context } from 'cordis'
import { WorkspacePathError } from './workspace-path-error.js'

/** Configuration of the `write_file` plugin. */
export interface WriteFileConfig {
  /** The workspace: an existing directory (absolute); the tool writes only inside it. */
  readonly root: string
}

function lines(count: number): string {
  return `${count} ${count === 1 ? 'line' : 'lines'}`
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code
}

function lexicalTarget(root: string, path: string): string | undefined {
  if (path === '' || isAbsolute(path)) return undefined
  const target = resolve(root, path)
  return target.startsWith(root + sep) ? target : undefined
}

/**
 * Builds the `write_file` tool for a workspace. It has an `output` schema whose value carries the file's text
 * before and after; `output.presentationMeta` keeps them in the result's `meta`, so `presentResult` can show a diff
 * card without reading the disk (presenters are pure: a UI calls them again when it replays the session, from
 * `content` and `meta` only). The pending card is generic: before the call runs, nobody knows
 * the old text.
 */
export function createWriteFileTool(config: WriteFileConfig) {
  const root = resolve(config.root)
  return defineTool({
    name: 'write_file',
    description: 'Write a text file in the workspace, replacing it if it exists. Paths are relative to the workspace.',
    parameters: {
      path: { type: 'string', required: true, description: 'The file, relative to the workspace' },
      content: { type: 'string', required: true, description: 'The complete new text of the file' },
    },
    output: {
      schema: {
        type: 'object',
        additionalProperties: false,
        properties: {
          path: { type: 'string', required: true },
          absolutePath: { type: 'string', required: true },
          oldText: { oneOf: [{ type: 'string' }, { type: 'null' }], required: true },
          newText: { type: 'string', required: true },
        },
      },
      render: (_args, value) => {
        const { status, additions, deletions } = fileDiffHunks(fileDiff(value.absolutePath, value.oldText, value.newText))
        if (status === 'created') return `Created ${value.path} (${lines(additions)}).`
        if (status === 'unchanged') return `${value.path} already had this content; nothing changed.`
        return `Updated ${value.path}: ${lines(additions)} added, ${deletions} removed.`
      },
      presentationMeta: (_args, value) => ({ path: value.path, absolutePath: value.absolutePath, oldText: value.oldText, newText: value.newText }),
    },
    async execute(args, exec) {
      const lexical = lexicalTarget(root, args.path)
      if (lexical === undefined) throw new WorkspacePathError(args.path, 'is not inside the workspace')
      // Follow symbolic links of the directory: the real place must be inside the real workspace too.
      const realRoot = await realpath(root)
      let realDirectory: string
      try {
        realDirectory = await realpath(dirname(lexical))
      } catch (error) {
        if (isErrno(error, 'ENOENT')) throw new WorkspacePathError(args.path, 'is in a directory that does not exist', { cause: error })
        throw error
      }
      if (realDirectory !== realRoot && !realDirectory.startsWith(realRoot + sep)) {
        throw new WorkspacePathError(args.path, 'leads outside the workspace through a symbolic link')
      }
      const target = join(realDirectory, relative(dirname(lexical), lexical))
      let oldText: string | null = null
      try {
        oldText = await readFile(target, { encoding: 'utf8', signal: exec.signal })
      } catch (error) {
        if (!isErrno(error, 'ENOENT')) throw error
      }
      await writeFile(target, args.content, { encoding: 'utf8', signal: exec.signal })
      return { path: relative(realRoot, target), absolutePath: lexical, oldText, newText: args.content }
    },
    presentCall: (args) => {
      const target = lexicalTarget(root, args.path)
      return genericCall({ title: `Write ${args.path}`, kind: 'edit', locations: target === undefined ? [] : [{ path: target }] })
    },
    presentResult: (_args, result) =>
      result.meta === undefined
        ? undefined
        : diffResult({
            title: `${result.meta.oldText === null ? 'Create' : 'Edit'} ${result.meta.path}`,
            diffs: [fileDiff(result.meta.absolutePath, result.meta.oldText, result.meta.newText)],
          }),
  })
}

/** The plugin name. */
export const name = 'write-file-tool'
/** The plugin needs the registry. */
export const inject = ['tools']

/** Registers `write_file` for the workspace `config.root`. */
export function apply(ctx: Context, config: WriteFileConfig): void {
  ctx.tools.register(createWriteFileTool(config))
}

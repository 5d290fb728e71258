import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { findUnbrandedErrorClasses } from '@dsh/tools-core'
import { createToolContext, expectCleanUnload } from '@dsh/tools-testing'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { WorkspacePathError } from './workspace-path-error.js'
import * as writeFilePlugin from './write-file-tool.js'

let root: string
let outside: string

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'write-file-root-'))
  outside = await mkdtemp(join(tmpdir(), 'write-file-outside-'))
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
  await rm(outside, { recursive: true, force: true })
})

describe('write_file', () => {
  it('creates a file and returns its old (null) and new text as the value', async () => {
    await using t = await createToolContext({ plugins: [[writeFilePlugin, { root }]] })
    const result = await t.tools.execute({ callId: 'c1', name: 'write_file', arguments: { path: 'a.txt', content: 'one\ntwo\n' } })
    expect(result).toEqual({
      callId: 'c1',
      isError: false,
      content: [{ type: 'text', text: 'Created a.txt (2 lines).' }],
      meta: { path: 'a.txt', absolutePath: join(root, 'a.txt'), oldText: null, newText: 'one\ntwo\n' },
      structuredContent: { path: 'a.txt', absolutePath: join(root, 'a.txt'), oldText: null, newText: 'one\ntwo\n' },
    })
    expect(await readFile(join(root, 'a.txt'), 'utf8')).toBe('one\ntwo\n')
  })

  it('replaces a file, and presents the change as a diff card', async () => {
    await writeFile(join(root, 'a.txt'), 'one\ntwo\n')
    await using t = await createToolContext({ plugins: [[writeFilePlugin, { root }]] })
    const args = { path: 'a.txt', content: 'one\n2\n' }
    const result = await t.tools.execute({ callId: 'c1', name: 'write_file', arguments: args })
    expect(result.content).toEqual([{ type: 'text', text: 'Updated a.txt: 1 line added, 1 removed.' }])
    const tool = t.tools.get('write_file')
    expect(tool?.presentResult?.(args, result)).toEqual({
      card: 'diff',
      title: 'Edit a.txt',
      diffs: [{ path: join(root, 'a.txt'), oldText: 'one\ntwo\n', newText: 'one\n2\n' }],
    })
    expect(tool?.presentCall?.(args)).toEqual({
      card: 'generic',
      title: 'Write a.txt',
      kind: 'edit',
      locations: [{ path: join(root, 'a.txt') }],
    })
  })

  it('says so when the content is already there', async () => {
    await writeFile(join(root, 'a.txt'), 'same\n')
    await using t = await createToolContext({ plugins: [[writeFilePlugin, { root }]] })
    const result = await t.tools.execute({ callId: 'c1', name: 'write_file', arguments: { path: 'a.txt', content: 'same\n' } })
    expect(result.content).toEqual([{ type: 'text', text: 'a.txt already had this content; nothing changed.' }])
  })

  it.each([
    ['an absolute path', () => join(outside, 'x.txt'), 'is not inside the workspace'],
    ['a path that climbs out', () => '../x.txt', 'is not inside the workspace'],
    ['the workspace itself', () => '.', 'is not inside the workspace'],
    ['a missing directory', () => 'missing/x.txt', 'is in a directory that does not exist'],
  ])('refuses %s with INVALID_ARGS, touching nothing', async (_label, path, reason) => {
    await using t = await createToolContext({ plugins: [[writeFilePlugin, { root }]] })
    const result = await t.tools.execute({ callId: 'c1', name: 'write_file', arguments: { path: path(), content: 'x' } })
    expect(result.error).toEqual({ name: 'WorkspacePathError', code: 'INVALID_ARGS' })
    expect(result.content[0]).toEqual({
      type: 'text',
      text: `The path "${path()}" ${reason}. Give a path relative to the workspace, inside it.`,
    })
  })

  it('refuses a path that leads outside through a symbolic link', async () => {
    await symlink(outside, join(root, 'link'))
    await using t = await createToolContext({ plugins: [[writeFilePlugin, { root }]] })
    const result = await t.tools.execute({ callId: 'c1', name: 'write_file', arguments: { path: 'link/x.txt', content: 'x' } })
    expect(result.error?.code).toBe('INVALID_ARGS')
    expect(result.content[0]).toMatchObject({ text: expect.stringContaining('leads outside the workspace through a symbolic link') })
    await expect(readFile(join(outside, 'x.txt'))).rejects.toThrow(/ENOENT/)
  })

  it('writes into subdirectories of the workspace', async () => {
    await mkdir(join(root, 'docs'))
    await using t = await createToolContext({ plugins: [[writeFilePlugin, { root }]] })
    const result = await t.tools.execute({ callId: 'c1', name: 'write_file', arguments: { path: 'docs/b.md', content: '# B\n' } })
    expect(result.meta).toMatchObject({ path: join('docs', 'b.md') })
    expect(await readFile(join(root, 'docs', 'b.md'), 'utf8')).toBe('# B\n')
  })

  it('brands its error class', async () => {
    expect(findUnbrandedErrorClasses(await import('./workspace-path-error.js'))).toEqual([])
    expect(WorkspacePathError.isInstance(new WorkspacePathError('x', 'is odd'))).toBe(true)
  })

  it('leaves nothing behind when the plugin is unloaded', async () => {
    const report = await expectCleanUnload(writeFilePlugin, { config: { root } })
    expect(report.footprint.tools).toEqual(['write_file'])
  })
})

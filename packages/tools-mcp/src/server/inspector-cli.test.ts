// The MCP Inspector's CLI (`mcp-inspector-cli --cli`, the CLI that `@modelcontextprotocol/inspector --cli` runs; the
// inspector's own launcher needs Node 22) as a peer of a served registry, over stdio and Streamable HTTP: it lists
// the declared title and annotations, reports an unknown tool as the JSON-RPC error -32602 (it exits 1; an `isError`
// result would have been printed as a success), gets a denial naming why for a call a policy asks about (it declares
// no elicitation), and reads clean JSON although the served tool writes to stdout.
import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { defineTool } from '@dsh/tools-registry'
import { createToolContext } from '@dsh/tools-testing'
import { afterEach, describe, expect, it } from 'vitest'
import { serveToolsHttp } from './index.js'

const require = createRequire(import.meta.url)
const inspectorRoot = dirname(require.resolve('@modelcontextprotocol/inspector-cli/package.json'))
const inspector = join(inspectorRoot, 'build', 'cli.js')
const here = join(import.meta.dirname, '..', 'test-support')
const stdioTarget = [process.execPath, join(here, 'serve-stdio-child.mjs'), join(here, 'serve-stdio-noisy-entry.ts')]

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs the Inspector CLI once (its cwd is its own build folder, where it finds its package.json). */
function inspect(target: readonly string[], ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [inspector, '--cli', ...target, ...args], { cwd: join(inspectorRoot, 'build'), timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1
      resolve({ code, stdout, stderr })
    })
  })
}

function json(run: Run): Record<string, unknown> {
  expect(run.code, run.stderr).toBe(0)
  return JSON.parse(run.stdout) as Record<string, unknown>
}

async function httpTarget(): Promise<string[]> {
  const t = await createToolContext()
  cleanups.push(() => t.dispose())
  t.tools.register(
    defineTool({
      name: 'read_notes',
      description: 'Reads the notes.',
      title: 'Read the notes',
      annotations: { readOnlyHint: true, openWorldHint: false },
      concurrencySafe: true,
      parameters: {},
      execute: () => 'the notes',
    }),
  )
  t.tools.register(defineTool({ name: 'rm', description: 'Removes a file.', parameters: { path: { type: 'string', required: true } }, execute: ({ path }) => `removed ${path}` }))
  t.tools.on('tools/pre-execute', (exec, next) => (exec.name === 'rm' ? { kind: 'ask', reason: 'it deletes a file' } : next()))
  const served = await serveToolsHttp(t.ctx)
  cleanups.push(() => served.close())
  return [served.url, '--transport', 'http']
}

describe.each([
  ['stdio', async () => stdioTarget],
  ['Streamable HTTP', httpTarget],
])('the MCP Inspector CLI against a served registry (%s)', (_label, target) => {
  it('lists declared titles and annotations, gets -32602 for an unknown tool, and a denial naming why for an ask', async () => {
    const peer = await target()
    const listed = json(await inspect(peer, '--method', 'tools/list')).tools as { name: string; title?: string; annotations?: unknown }[]
    const notes = listed.find((tool) => tool.name === 'read_notes')
    expect(notes?.title).toBe('Read the notes')
    expect(notes?.annotations).toEqual({ readOnlyHint: true, openWorldHint: false })
    expect(listed.find((tool) => tool.name === 'rm')?.annotations).toBeUndefined()

    const unknown = await inspect(peer, '--method', 'tools/call', '--tool-name', 'no_such_tool')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('MCP error -32602: Unknown tool: "no_such_tool"')

    const asked = json(await inspect(peer, '--method', 'tools/call', '--tool-name', 'rm', '--tool-arg', 'path=/tmp/x'))
    expect(asked.isError).toBe(true)
    expect(asked._meta).toEqual({ 'dsh/error': { name: 'ToolDeniedError', code: 'APPROVAL_UNAVAILABLE' } })
    expect(JSON.stringify(asked.content)).toContain('did not declare the elicitation capability')
  })
})

describe('the MCP Inspector CLI and a served tool that writes to stdout (stdio)', () => {
  it('reads the result as clean JSON: the tool output went to stderr', async () => {
    const run = await inspect(stdioTarget, '--method', 'tools/call', '--tool-name', 'noisy')
    expect(json(run).content).toEqual([{ type: 'text', text: 'quiet result' }])
    expect(run.stdout).not.toContain('tool log line')
  })
})

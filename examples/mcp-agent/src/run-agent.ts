import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { LocalBashTools } from '@dsh/tool-bash'
import { mcpServer, whenMcpServerReady } from '@dsh/tools-mcp'
import { contentText, createToolContext, runScriptedSession } from '@dsh/tools-testing'

const here = dirname(fileURLToPath(import.meta.url))
const filesystemServer = join(here, '..', 'node_modules', '.bin', 'mcp-server-filesystem')

/** What one run printed, line by line, and the MCP server's pid (gone once the run returns). */
export interface AgentRun {
  readonly lines: readonly string[]
  readonly serverPid: number | undefined
}

/**
 * A scripted model in a workspace folder: it lists the folder with the MCP server's `list_directory`, reads a
 * file with its `read_text_file`, and counts the words with the built-in `bash`. Every call goes through
 * `ctx.tools.execute`. Disposing the context at the end unregisters the MCP tools and ends the server.
 */
export async function runAgent(): Promise<AgentRun> {
  const workspace = await mkdtemp(join(tmpdir(), 'mcp-agent-'))
  const lines: string[] = []
  const t = await createToolContext({ plugins: [[LocalBashTools, { executor: { cwd: workspace } }]] })
  try {
    await writeFile(join(workspace, 'notes.txt'), 'MCP tools run through the same pipeline as bash.\n')
    await t.load(mcpServer, { id: 'fs', command: filesystemServer, args: [workspace], trust: true })
    const status = await whenMcpServerReady(t.ctx, 'fs')
    if (status.state !== 'ready') throw new Error(`the filesystem server did not start: ${status.error?.message ?? status.state}`)
    lines.push(`tools: ${t.tools.schemas().map((schema) => schema.name).sort().join(', ')}`)
    const session = await runScriptedSession(t.tools, ({ step }) => {
      if (step === 1) return [{ id: 'ls', name: 'mcp__fs__list_directory', arguments: { path: workspace } }]
      if (step === 2) return [{ id: 'read', name: 'mcp__fs__read_text_file', arguments: { path: join(workspace, 'notes.txt') } }]
      if (step === 3) return [{ id: 'wc', name: 'bash', arguments: { command: 'wc -w < notes.txt', description: 'count words' } }]
      return []
    })
    for (const step of session.steps) {
      for (const [index, call] of step.calls.entries()) {
        const result = step.results[index]
        lines.push(`${call.name} → ${result?.isError ? 'error: ' : ''}${contentText(result?.content ?? []).trim()}`)
      }
    }
    return { lines, serverPid: status.pid }
  } finally {
    await t.dispose()
    await rm(workspace, { recursive: true, force: true })
  }
}

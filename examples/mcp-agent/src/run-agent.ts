import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { LocalBashTools } from '@dsh/tool-bash'
import { mcpServer, whenMcpServerReady } from '@dsh/tools-mcp'
import { serveToolsHttp } from '@dsh/tools-mcp/server'
import { contentText, createToolContext, runScriptedSession } from '@dsh/tools-testing'
import { openServedToolsClient, type ServedCallResult } from './served-tools-client.js'
import { WorkspaceTools } from './workspace-tools.js'

const here = dirname(fileURLToPath(import.meta.url))
const filesystemServer = join(here, '..', 'node_modules', '.bin', 'mcp-server-filesystem')

/** What one run printed, line by line, and what it started (all of it gone once the run returns). */
export interface AgentRun {
  readonly lines: readonly string[]
  /** The pid of the filesystem MCP server. */
  readonly serverPid: number | undefined
  /** The 127.0.0.1 port the registry was served on. */
  readonly servedPort: number | undefined
}

function clientLine(name: string, result: ServedCallResult): string {
  const error = result.error === undefined ? '' : ` (${result.error.name}, ${result.error.code})`
  return `mcp client: ${name} → ${result.isError ? `error${error}: ` : ''}${result.text.trim()}`
}

/**
 * Both directions of MCP around one registry.
 *
 * 1. In: a scripted model in a workspace folder lists the folder with the filesystem server's `list_directory`,
 *    reads a file with its `read_text_file`, and counts the words with the built-in `bash`. Every call goes through
 *    `ctx.tools.execute`.
 * 2. Out: the same registry (bash, the filesystem server's tools, and the harness's own `count_words` with its
 *    policy) is served over Streamable HTTP on 127.0.0.1 with `serveToolsHttp`, and a client of the official MCP
 *    SDK lists the tools and calls three of them: the re-served `mcp__fs__read_text_file`, `count_words`, and a
 *    `bash` command that the policy denies, which the client gets as an error result with the registry's code.
 *
 * At the end the client's session is ended, the port closed, and disposing the context unregisters everything and
 * ends the filesystem server.
 */
export async function runAgent(): Promise<AgentRun> {
  const workspace = await mkdtemp(join(tmpdir(), 'mcp-agent-'))
  const notes = join(workspace, 'notes.txt')
  const lines: string[] = []
  const t = await createToolContext({ plugins: [[LocalBashTools, { executor: { cwd: workspace } }], WorkspaceTools] })
  try {
    await writeFile(notes, 'MCP tools run through the same pipeline as bash.\n')
    await t.load(mcpServer, { id: 'fs', command: filesystemServer, args: [workspace], trust: true })
    const status = await whenMcpServerReady(t.ctx, 'fs')
    if (status.state !== 'ready') throw new Error(`the filesystem server did not start: ${status.error?.message ?? status.state}`)
    lines.push(`tools: ${t.tools.schemas().map((schema) => schema.name).sort().join(', ')}`)
    const session = await runScriptedSession(t.tools, ({ step }) => {
      if (step === 1) return [{ id: 'ls', name: 'mcp__fs__list_directory', arguments: { path: workspace } }]
      if (step === 2) return [{ id: 'read', name: 'mcp__fs__read_text_file', arguments: { path: notes } }]
      if (step === 3) return [{ id: 'wc', name: 'bash', arguments: { command: 'wc -w < notes.txt', description: 'count words' } }]
      return []
    })
    for (const step of session.steps) {
      for (const [index, call] of step.calls.entries()) {
        const result = step.results[index]
        lines.push(`${call.name} → ${result?.isError ? 'error: ' : ''}${contentText(result?.content ?? []).trim()}`)
      }
    }

    const token = randomBytes(16).toString('hex')
    const served = await serveToolsHttp(t.ctx, { token })
    const servedPort = Number(new URL(served.url).port)
    try {
      lines.push('served: the registry over MCP (Streamable HTTP on 127.0.0.1, bearer token)')
      await using client = await openServedToolsClient({ url: served.url, token })
      lines.push(`mcp client: tools/list → ${(await client.toolNames()).join(', ')}`)
      const read = await client.call('mcp__fs__read_text_file', { path: notes })
      lines.push(clientLine('mcp__fs__read_text_file', read))
      lines.push(clientLine('count_words', await client.call('count_words', { text: read.text })))
      lines.push(clientLine('bash', await client.call('bash', { command: 'rm notes.txt', description: 'delete the notes' })))
    } finally {
      await served.close()
    }
    return { lines, serverPid: status.pid, servedPort }
  } finally {
    await t.dispose()
    await rm(workspace, { recursive: true, force: true })
  }
}

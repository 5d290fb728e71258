import { connect } from 'node:net'
import { expect, it } from 'vitest'
import { runAgent } from './run-agent.js'

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Whether something still accepts connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port })
    socket.once('connect', () => (socket.destroy(), resolve(true)))
    socket.once('error', () => resolve(false))
  })
}

it("uses the MCP server's tools next to bash, serves the same registry over MCP, and leaves nothing running", async () => {
  const run = await runAgent()
  const registryTools = run.lines[0]
  expect(registryTools).toContain('mcp__fs__read_text_file')
  expect(registryTools).toContain('bash')
  expect(registryTools).toContain('count_words')
  expect(run.lines).toContain('mcp__fs__list_directory → [FILE] notes.txt')
  expect(run.lines).toContain('mcp__fs__read_text_file → MCP tools run through the same pipeline as bash.')
  expect(run.lines).toContain('bash → 9')

  // The other direction: an SDK client of the served registry sees exactly the registry's tools, and its calls go
  // through the same pipeline, the policy included.
  expect(run.lines.slice(4)).toEqual([
    'served: the registry over MCP (Streamable HTTP on 127.0.0.1, bearer token)',
    `mcp client: tools/list → ${registryTools?.replace(/^tools: /, '')}`,
    'mcp client: mcp__fs__read_text_file → MCP tools run through the same pipeline as bash.',
    'mcp client: count_words → 9',
    'mcp client: bash → error (ToolDeniedError, DENIED): The call to "bash" was denied: this workspace keeps its files: no rm',
  ])

  expect(run.servedPort).toBeGreaterThan(0)
  expect(await listening(run.servedPort as number)).toBe(false)
  expect(run.serverPid).toBeTypeOf('number')
  const deadline = Date.now() + 10_000
  while (alive(run.serverPid as number) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
  expect(alive(run.serverPid as number)).toBe(false)
})

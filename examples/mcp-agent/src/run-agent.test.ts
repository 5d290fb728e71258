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

it("uses the MCP server's tools next to bash, and leaves no server process behind", async () => {
  const run = await runAgent()
  expect(run.lines[0]).toContain('mcp__fs__read_text_file')
  expect(run.lines[0]).toContain('bash')
  expect(run.lines).toContain('mcp__fs__list_directory → [FILE] notes.txt')
  expect(run.lines).toContain('mcp__fs__read_text_file → MCP tools run through the same pipeline as bash.')
  expect(run.lines).toContain('bash → 9')
  expect(run.serverPid).toBeTypeOf('number')
  const deadline = Date.now() + 10_000
  while (alive(run.serverPid as number) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
  expect(alive(run.serverPid as number)).toBe(false)
})

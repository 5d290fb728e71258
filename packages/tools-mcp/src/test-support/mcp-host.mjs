// A plain host process (no vitest) for the host-exit and shutdown tests. It loads the registry and the fixture MCP
// server (stdio, in its own process group), has the server start a grandchild that ignores SIGTERM (in the server's
// group, its stdio not connected: it holds nothing of the host open), then prints
// `ready <server pid> <grandchild pid>`. Arguments: <dir> <mode>, where <dir> is a scratch directory.
// - `plain`: waits (the live server keeps the host's event loop busy) for a signal to kill it.
// - `own-sigint`: a SIGINT handler of the host's own says `survived`; the host exits (code 7) when stdin ends.
// - `dispose`: `await fiber.dispose()` at the top level, then prints `disposed` and lets the host end by itself.
import { readFileSync, writeFileSync } from 'node:fs'
import { register } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

register('./ts-loader.mjs', import.meta.url)

const [dir, mode] = process.argv.slice(2)
if (mode === 'own-sigint') {
  process.on('SIGINT', () => process.stdout.write('survived\n'))
  process.stdin.on('end', () => process.exit(7))
  process.stdin.resume()
}

const { Context } = await import('cordis')
const { ToolRegistry } = await import('@dsh/tools-registry')
const { mcpServer, whenMcpServerReady } = await import('../index.ts')

const toolsFile = join(dir, 'tools.json')
const pidFile = join(dir, 'grandchild.pid')
writeFileSync(toolsFile, JSON.stringify([{ name: 'grandchild', description: 'Starts a grandchild.', inputSchema: { type: 'object', properties: { pidFile: { type: 'string' } } } }]))

const ctx = new Context()
await ctx.plugin(ToolRegistry)
const fiber = await ctx.plugin(mcpServer, {
  id: 'fx',
  command: process.execPath,
  args: [fileURLToPath(new URL('./fixture-server.mjs', import.meta.url))],
  env: { FIXTURE_TOOLS: toolsFile },
  tools: { grandchild: { approval: 'allow' } },
  killGraceMs: 300,
})
const status = await whenMcpServerReady(ctx, 'fx')
if (status.state !== 'ready') throw new Error(`the fixture server did not start: ${status.error?.message}`)
const result = await ctx.tools.execute({ callId: 'g', name: 'mcp__fx__grandchild', arguments: { pidFile } })
if (result.isError) throw new Error(`the grandchild tool failed: ${JSON.stringify(result.content)}`)
process.stdout.write(`ready ${status.pid} ${readFileSync(pidFile, 'utf8').trim()}\n`)

if (mode === 'dispose') {
  await fiber.dispose()
  process.stdout.write('disposed\n')
}

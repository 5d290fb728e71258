// An MCP server over stdio for the tests: its tool list comes from the JSON file named by FIXTURE_TOOLS (re-read on
// every tools/list, so a test can change it), paginated FIXTURE_PAGE_SIZE at a time. FIXTURE_LOOP_CURSOR=1 makes
// every page point at the same cursor. Tool behaviour is chosen by name (see the switch below).
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { Server } from '@modelcontextprotocol/server'
import { serveStdio } from '@modelcontextprotocol/server/stdio'

const toolsFile = process.env.FIXTURE_TOOLS
const pageSize = Number(process.env.FIXTURE_PAGE_SIZE ?? '1000')
const readTools = () => JSON.parse(readFileSync(toolsFile, 'utf8'))
process.stderr.write(`fixture server ${process.pid} starting\n`)

// serveStdio builds servers from this factory and speaks both protocol eras (legacy and 2026-07-28) on stdio.
function build() {
const server = new Server(
  { name: 'fixture', version: '1.0.0' },
  { capabilities: { tools: process.env.FIXTURE_ADVERTISE === '1' ? { listChanged: true } : {} } },
)

server.setRequestHandler('tools/list', async (request) => {
  const tools = readTools()
  const start = Number(request.params?.cursor ?? '0')
  const page = tools.slice(start, start + pageSize)
  const next = start + pageSize < tools.length ? String(start + pageSize) : undefined
  if (process.env.FIXTURE_LOOP_CURSOR === '1') return { tools: page, nextCursor: 'again' }
  return next === undefined ? { tools: page } : { tools: page, nextCursor: next }
})

const sleep = (ms, signal) => new Promise((resolve, reject) => {
  const timer = setTimeout(resolve, ms)
  signal.addEventListener('abort', () => { clearTimeout(timer); reject(new Error('cancelled')) }, { once: true })
})

server.setRequestHandler('tools/call', async (request, ctx) => {
  const args = request.params.arguments ?? {}
  const signal = ctx.mcpReq.signal
  switch (request.params.name) {
    case 'sleep': {
      const token = request.params._meta?.progressToken
      const steps = args.steps ?? 1
      for (let step = 1; step <= steps; step += 1) {
        await sleep(args.ms / steps, signal).catch(() => {
          if (args.marker) writeFileSync(args.marker, 'cancelled')
          throw new Error('cancelled')
        })
        if (token !== undefined && args.progress) {
          await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: step, total: steps, message: `step ${step}` } })
        }
      }
      return { content: [{ type: 'text', text: `slept ${args.ms} ms` }] }
    }
    case 'crash':
      setTimeout(() => process.exit(3), 20)
      return await new Promise(() => {})
    case 'huge':
      return { content: [{ type: 'text', text: 'x'.repeat(args.bytes) }] }
    case 'many_blocks':
      return { content: Array.from({ length: args.count }, (_, index) => ({ type: 'text', text: `block ${index}` })) }
    case 'mixed':
      return {
        content: [
          { type: 'text', text: 'hello', annotations: { audience: ['user'], priority: 0.5 } },
          { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' },
          { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' },
          { type: 'resource', resource: { uri: 'file:///b.txt', text: 'bee' } },
          { type: 'hologram', data: 'zzz' },
        ],
      }
    case 'error_image':
      return {
        isError: true,
        content: [
          { type: 'text', text: 'render failed; this is what was drawn:' },
          { type: 'image', data: args.data ?? 'aGVsbG8=', mimeType: 'image/png' },
        ],
        structuredContent: { wrong: true },
      }
    case 'error_structured':
      return { isError: true, content: [{ type: 'text', text: 'real error: disk full' }], structuredContent: { wrong: true } }
    case 'structured':
      return { content: [{ type: 'text', text: JSON.stringify(args.value) }], structuredContent: args.value }
    case 'grandchild': {
      const child = spawn('sh', ['-c', 'trap "" TERM; while true; do sleep 1; done'], { stdio: 'ignore' })
      writeFileSync(args.pidFile, String(child.pid))
      return { content: [{ type: 'text', text: String(child.pid) }] }
    }
    case 'notify_changed':
      await server.sendToolListChanged()
      return { content: [{ type: 'text', text: 'notified' }] }
    case 'env':
      return { content: [{ type: 'text', text: JSON.stringify(Object.keys(process.env).sort()) }] }
    default:
      return { content: [{ type: 'text', text: `echo ${JSON.stringify(args)}` }] }
  }
})

return server
}

serveStdio(build)

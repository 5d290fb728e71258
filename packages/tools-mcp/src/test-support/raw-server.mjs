// A hand-written MCP server (newline-delimited JSON-RPC over stdio, no SDK) for what an SDK server refuses to
// send: content blocks of unknown types. Its tools come from the JSON file named by FIXTURE_TOOLS.
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`)
createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line)
  if (message.id === undefined) return
  switch (message.method) {
    case 'initialize':
      return send({ id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1.0.0' } } })
    case 'tools/list':
      return send({ id: message.id, result: { tools: JSON.parse(readFileSync(process.env.FIXTURE_TOOLS, 'utf8')) } })
    case 'tools/call':
      return send({
        id: message.id,
        result: {
          content: [
            { type: 'text', text: 'hello', annotations: { audience: ['user'], priority: 0.5 } },
            { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' },
            { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' },
            { type: 'resource', resource: { uri: 'file:///b.txt', text: 'bee' } },
            { type: 'hologram', data: 'zzz' },
            { type: 'image', mimeType: 'image/png' },
          ],
        },
      })
    default:
      return send({ id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } })
  }
})

// A hand-written 2025-era MCP server over stdio (newline-delimited JSON-RPC, no SDK) whose answers to tools/call are
// malformed on purpose, chosen by the tool's name; `ok` answers properly. Its tools come from FIXTURE_TOOLS.
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'

/** What each tool answers to tools/call: the members of the JSON-RPC message besides `jsonrpc` and `id`. */
export const malformedAnswers = {
  null_result: { result: null },
  array_result: { result: [] },
  string_result: { result: 'done' },
  both: { result: { content: [] }, error: { code: -32000, message: 'both' } },
  neither: {},
  bad_error: { error: 'boom' },
  wrong_shape: { result: { content: 'not an array' } },
  object_structured: { result: { content: [{ type: 'text', text: '{"n":1}' }], structuredContent: { n: 1 } } },
  array_structured: { result: { content: [{ type: 'text', text: '[1,2]' }], structuredContent: [1, 2] } },
  ok: { result: { content: [{ type: 'text', text: 'fine' }] } },
}

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`)
if (process.env.FIXTURE_TOOLS !== undefined) {
  createInterface({ input: process.stdin }).on('line', (line) => {
    const message = JSON.parse(line)
    if (message.id === undefined) return
    switch (message.method) {
      case 'initialize':
        return send({ id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'malformed', version: '1.0.0' } } })
      case 'tools/list':
        return send({ id: message.id, result: { tools: JSON.parse(readFileSync(process.env.FIXTURE_TOOLS, 'utf8')) } })
      case 'tools/call': {
        const answer = malformedAnswers[message.params.name] ?? malformedAnswers.ok
        if (message.params.name === 'no_jsonrpc') return process.stdout.write(`${JSON.stringify({ id: message.id, result: { content: [] } })}\n`)
        return send({ id: message.id, ...answer })
      }
      default:
        return send({ id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } })
    }
  })
}

// A hand-written MCP server (newline-delimited JSON-RPC over stdio, no SDK) that says whatever a test makes it say,
// however malformed or large: its tools/list pages come from the JSON file named by FIXTURE_TOOLS (re-read on every
// listing; FIXTURE_PAGE_SIZE tools a page, else the file's text as it is), and the result of each tools/call is the raw JSON text found under the
// tool's name in the JSON file named by FIXTURE_RESULTS (raw text, so a value nested too deep for JSON.stringify
// still goes out). Every request is counted in the file named by FIXTURE_LOG, one method per line.
import { appendFileSync, readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'

const pageSize = Number(process.env.FIXTURE_PAGE_SIZE)
const write = (text) => process.stdout.write(`${text}\n`)
const send = (message) => write(JSON.stringify({ jsonrpc: '2.0', ...message }))

createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
  const message = JSON.parse(line)
  if (message.id === undefined) return
  if (process.env.FIXTURE_LOG) appendFileSync(process.env.FIXTURE_LOG, `${message.method}\n`)
  switch (message.method) {
    case 'initialize':
      return send({ id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '1.0.0' } } })
    case 'tools/list': {
      const text = readFileSync(process.env.FIXTURE_TOOLS, 'utf8')
      // Unpaged, the listing goes out as its raw text: a tool too deep for JSON.stringify is sent all the same.
      if (process.env.FIXTURE_PAGE_SIZE === undefined) return write(`{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"tools":${text}}}`)
      const tools = JSON.parse(text)
      const start = Number(message.params?.cursor ?? '0')
      const next = start + pageSize < tools.length ? { nextCursor: String(start + pageSize) } : {}
      return send({ id: message.id, result: { tools: tools.slice(start, start + pageSize), ...next } })
    }
    case 'tools/call': {
      const results = JSON.parse(readFileSync(process.env.FIXTURE_RESULTS, 'utf8'))
      const raw = results[message.params.name]
      if (raw === undefined) return send({ id: message.id, result: { content: [{ type: 'text', text: 'no result configured' }], isError: true } })
      return write(`{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${raw}}`)
    }
    default:
      return send({ id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } })
  }
})

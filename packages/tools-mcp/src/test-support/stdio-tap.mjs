// A transparent stdio proxy for the tests: runs the command in argv[2..] and relays newline-delimited JSON-RPC both
// ways, appending each message to the JSONL file named by TAP_LOG as { dir: 'in' | 'out', message } in wire order
// ('in' is client → server). TAP_CAPABILITIES (a JSON object) is merged into the client capabilities of every
// `initialize` request, so a server shows what it does for a client that advertises them.
import { spawn } from 'node:child_process'
import { appendFileSync } from 'node:fs'
import { createInterface } from 'node:readline'

const log = process.env.TAP_LOG
const extra = process.env.TAP_CAPABILITIES === undefined ? undefined : JSON.parse(process.env.TAP_CAPABILITIES)
const [command, ...args] = process.argv.slice(2)
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] })

function record(dir, line) {
  let message
  try {
    message = JSON.parse(line)
  } catch {
    message = { unparsed: line.slice(0, 200) }
  }
  if (log !== undefined) appendFileSync(log, `${JSON.stringify({ dir, message })}\n`)
  return message
}

createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {
  const message = record('in', line)
  if (extra !== undefined && message.method === 'initialize' && typeof message.params === 'object') {
    message.params.capabilities = { ...message.params.capabilities, ...extra }
    child.stdin.write(`${JSON.stringify(message)}\n`)
  } else {
    child.stdin.write(`${line}\n`)
  }
})
process.stdin.on('end', () => child.stdin.end())
createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', (line) => {
  record('out', line)
  process.stdout.write(`${line}\n`)
})
child.stdin.on('error', () => {})
child.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 0 : 1)))

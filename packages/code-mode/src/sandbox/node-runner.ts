import { guestPrelude } from '../runtime/guest-prelude.js'

/**
 * The script the sandboxed Node process runs (`node -e`), as text: plain CommonJS, nothing of this package's build
 * needed inside the sandbox. It evaluates the same guest prelude as the QuickJS runtime (the strict encoder, the
 * frozen null-prototype `tools`, the bounded console), with host functions that speak newline-delimited JSON:
 *
 * - out (stdout): `{"t":"ready"}` once Node is up; `{"t":"call","id","tool","args"}`; `{"t":"log","level","text"}`;
 *   `{"t":"end","ok":true,"value"?}` or `{"t":"end","ok":false,"name"?,"code"?,"message","line"?,"what"?,"kind"?}`.
 * - in (stdin): `{"t":"start","program","config"}` (after `ready`, so the host's CPU clock starts with the program),
 *   then `{"t":"settle","id","ok":true,"json"}` or `{"t":"settle","id","ok":false,"error":{name,code,message}}`.
 *
 * Nothing here is a boundary: the program runs in this same Node, can reach `process` and rewrite all of this. The
 * boundary is the sandbox around the process (and Node's permission model inside it); the host treats every line as
 * hostile. This script only makes the honest program's life the same as under QuickJS.
 */
export const nodeRunnerSource = String.raw`'use strict'
const vm = require('node:vm')
const write = (message) => { try { process.stdout.write(JSON.stringify(message) + '\n') } catch (error) {} }
const pending = new Map()
let api
let nextId = 1
let ended = false
let logLeft = 0
let logDropped = 0
let input = ''

function keepAlive() {
  // stdin holds the process open only while a sub-call is in flight: when nothing is, and the program waits on a
  // promise no timer can settle either, the event loop empties and 'beforeExit' ends the run.
  if (pending.size > 0) process.stdin.ref()
  else process.stdin.unref()
}

function utf8Cut(text, bytes) {
  const buffer = Buffer.from(text, 'utf8')
  let end = Math.max(0, bytes)
  while (end > 0 && (buffer[end] & 0xc0) === 0x80) end--
  return buffer.subarray(0, end).toString('utf8')
}

function end(message) {
  if (ended) return
  ended = true
  if (logDropped > 0 || (api && api.droppedLogs() > 0)) {
    const count = logDropped + (api ? api.droppedLogs() : 0)
    write({ t: 'log', level: 'warn', text: '… ' + count + ' more log line' + (count === 1 ? '' : 's') + " dropped: the program's logs are limited to " + config.maxLogBytes + ' bytes' })
  }
  write(message)
  process.exit(0)
}

let config
function hostCall(tool, json) {
  if (ended) return 'the run is over'
  if (typeof tool !== 'string' || typeof json !== 'string') return 'a sub-call needs a tool name and JSON text'
  if (Buffer.byteLength(json, 'utf8') > config.maxArgBytes) return 'the argument is over the limit of ' + config.maxArgBytes + ' bytes of JSON'
  const id = nextId++
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject })
    keepAlive()
    write({ t: 'call', id, tool, args: json })
  })
}

function hostLog(level, line) {
  if (ended) return 0
  if (typeof line !== 'string' || logLeft <= 0) {
    logDropped++
    return logLeft
  }
  let text = line
  const bytes = Buffer.byteLength(text, 'utf8') + 1
  if (bytes > logLeft) {
    text = utf8Cut(text, logLeft - 4) + '…'
    logLeft = 0
  } else {
    logLeft -= bytes
  }
  write({ t: 'log', level, text })
  return logLeft
}

function hostEnd(ok, a, b, c, d, e) {
  if (ok === true) return end(a === undefined ? { t: 'end', ok: true } : { t: 'end', ok: true, value: a })
  const message = { t: 'end', ok: false, message: typeof c === 'string' ? c : '' }
  if (typeof a === 'string') message.name = a
  if (typeof b === 'string') message.code = b
  if (typeof d === 'string') message.line = d
  if (e === 'value') message.what = 'value'
  // Off-heap memory (ArrayBuffers) runs into the process's address-space limit as a catchable RangeError.
  if (a === 'RangeError' && /^Array buffer allocation failed/.test(message.message)) message.kind = 'memory'
  end(message)
}

function settle(message) {
  const entry = pending.get(message.id)
  if (entry === undefined || ended) return
  pending.delete(message.id)
  keepAlive()
  if (message.ok === true && typeof message.json === 'string') {
    let value
    try {
      value = api.parse(message.json)
    } catch (error) {
      return entry.reject(api.makeError('Error', 'NON_JSON_VALUE', 'the tool result is not JSON'))
    }
    entry.resolve(value)
  } else {
    const error = message.error || {}
    const text = (value, max) => (typeof value === 'string' ? value.slice(0, max) : '')
    entry.reject(api.makeError(text(error.name, 200), text(error.code, 200), text(error.message, 8000)))
  }
}

function start(message) {
  config = message.config
  logLeft = config.maxLogBytes
  const setup = vm.runInThisContext('(' + PRELUDE + ')', { filename: 'prelude' })
  api = setup(hostCall, hostLog, hostEnd, JSON.stringify(config))
  let program
  try {
    // The program shares the wrapper's first line, so the stack's line numbers are the program's.
    program = vm.runInThisContext('(async function () {' + message.program + '\n})', { filename: 'program' })
  } catch (error) {
    const name = error && typeof error.name === 'string' ? error.name.slice(0, 200) : 'Error'
    const line = /program:(\d+)/.exec(String(error && error.stack))
    return end({ t: 'end', ok: false, name, message: String(error && error.message).slice(0, 4000), line: line ? line[1] : undefined })
  }
  keepAlive()
  api.start(program)
}

process.on('uncaughtException', (error) => {
  // A callback of the program threw (a timer, an event): the program failed, as it would under QuickJS.
  if (error && (typeof error === 'object' || typeof error === 'function')) {
    let name, code, text, stack
    try { name = typeof error.name === 'string' ? error.name.slice(0, 200) : undefined } catch (failure) {}
    try { code = typeof error.code === 'string' ? error.code.slice(0, 200) : undefined } catch (failure) {}
    try { text = typeof error.message === 'string' ? error.message.slice(0, 4000) : '' } catch (failure) { text = '' }
    try { stack = String(error.stack) } catch (failure) { stack = '' }
    const line = /program:(\d+)/.exec(stack)
    hostEnd(false, name, code, text, line ? line[1] : undefined)
  } else {
    hostEnd(false, undefined, undefined, 'the program threw a value that is not an Error')
  }
})
process.on('unhandledRejection', () => {})
process.on('beforeExit', () => {
  end({ t: 'end', ok: false, message: 'the program is waiting for a promise that nothing can settle (no sub-call is in flight)' })
})

process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => {
  input += chunk
  let newline
  while ((newline = input.indexOf('\n')) >= 0) {
    const line = input.slice(0, newline)
    input = input.slice(newline + 1)
    let message
    try { message = JSON.parse(line) } catch (error) { continue }
    if (message.t === 'start' && api === undefined) start(message)
    else if (message.t === 'settle' && api !== undefined) settle(message)
  }
})
process.stdin.on('end', () => end({ t: 'end', ok: false, message: 'the host closed the run' }))
write({ t: 'ready' })
`.replace('PRELUDE', () => JSON.stringify(guestPrelude))

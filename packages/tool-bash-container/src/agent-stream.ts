// The host's reading of what the agent sends. The agent's stdout is a pipe in the container, and a command runs as
// the agent's user, so it can open /proc/<agent>/fd/1 and write there: every line is untrusted input. Lines are split
// on bytes (a frame may end inside a UTF-8 character), bounded in length, and each message is checked field by
// field and rebuilt from the fields the host knows before anything acts on it. A line that is not a message ends the
// session (as a container that died would): the stream can no longer be trusted to frame the agent's own messages.
import type { BashResult, CapturedOutput, SpillInfo } from '@dsh/tool-bash'
import type { AgentError, AgentMessage, ContainerFacts } from './agent-protocol.js'

/** What the host needs to read a line: the output window bounds the texts of a result. */
export interface AgentStreamLimits {
  /** The longest line accepted, in bytes. */
  readonly maxLineBytes: number
  /** The longest head or tail text of a result, in UTF-16 units. */
  readonly maxTextLength: number
}

/** The most characters of text from the container (the agent's standard error, its fatal messages) the host logs per session. */
export const AGENT_LOG_CHARACTERS = 65_536

/** A line that is not a message of the protocol (why, for the log and the note). */
export class AgentProtocolError extends Error {
  override readonly name = 'AgentProtocolError'
}

/** The line limits for an output window of `windowBytes`: a result holds two windows' text, escaped. */
export function agentStreamLimits(windowBytes: number): AgentStreamLimits {
  return { maxLineBytes: 4 * 1_048_576 + 16 * windowBytes, maxTextLength: 2 * windowBytes + 16 }
}

/** Splits a byte stream into lines, refusing one longer than `maxLineBytes` before it is buffered whole. */
export class LineSplitter {
  private pending: Buffer[] = []
  private pendingBytes = 0

  constructor(private readonly maxLineBytes: number) {}

  /** The complete lines in `chunk` (and what came before it). Throws {@link AgentProtocolError} past the bound. */
  push(chunk: Buffer): string[] {
    const lines: string[] = []
    let start = 0
    let newline = chunk.indexOf(10, start)
    while (newline >= 0) {
      const part = chunk.subarray(start, newline)
      if (this.pendingBytes + part.length > this.maxLineBytes) throw new AgentProtocolError(`a line of over ${this.maxLineBytes} bytes`)
      lines.push(this.pendingBytes === 0 ? part.toString('utf8') : Buffer.concat([...this.pending, part]).toString('utf8'))
      this.pending = []
      this.pendingBytes = 0
      start = newline + 1
      newline = chunk.indexOf(10, start)
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start)
      if (this.pendingBytes + rest.length > this.maxLineBytes) throw new AgentProtocolError(`a line of over ${this.maxLineBytes} bytes`)
      // A copy: the engine's buffer may be reused.
      this.pending.push(Buffer.from(rest))
      this.pendingBytes += rest.length
    }
    return lines
  }
}

type Fields = Record<string, unknown>

const fail = (what: string): never => {
  throw new AgentProtocolError(what)
}
const own = (value: Fields, key: string): unknown => (Object.hasOwn(value, key) ? value[key] : undefined)
const object = (value: unknown, what: string): Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : fail(`${what} is not an object`)
const text = (value: unknown, what: string, max: number): string =>
  typeof value === 'string' && value.length <= max ? value : fail(`${what} is not a string of at most ${max} characters`)
const amount = (value: unknown, what: string): number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fail(`${what} is not a non-negative number`)
const count = (value: unknown, what: string): number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : fail(`${what} is not a count`)
const integerOrNull = (value: unknown, what: string): number | null =>
  value === null ? null : typeof value === 'number' && Number.isSafeInteger(value) ? value : fail(`${what} is not an integer or null`)
const flag = (value: unknown, what: string): boolean => (typeof value === 'boolean' ? value : fail(`${what} is not a boolean`))
const oneOf = <T extends string | null>(value: unknown, what: string, allowed: readonly T[]): T =>
  allowed.includes(value as T) ? (value as T) : fail(`${what} is not one of ${allowed.join(', ')}`)
const numberOrNull = (value: unknown, what: string): number | null =>
  value === null ? null : typeof value === 'number' && Number.isFinite(value) ? value : fail(`${what} is not a number or null`)

const SHORT = 4_096

function spill(value: unknown, what: string): SpillInfo | null {
  if (value === null) return null
  const fields = object(value, what)
  const failure = own(fields, 'failure')
  return {
    path: own(fields, 'path') === null ? null : text(own(fields, 'path'), `${what}.path`, SHORT),
    bytes: count(own(fields, 'bytes'), `${what}.bytes`),
    complete: flag(own(fields, 'complete'), `${what}.complete`),
    stoppedBy: oneOf(own(fields, 'stoppedBy'), `${what}.stoppedBy`, ['cap', 'error', null] as const),
    ...(failure === undefined ? {} : { failure: text(failure, `${what}.failure`, 256) }),
  }
}

function captured(value: unknown, what: string, limits: AgentStreamLimits): CapturedOutput {
  const fields = object(value, what)
  return {
    head: text(own(fields, 'head'), `${what}.head`, limits.maxTextLength),
    tail: text(own(fields, 'tail'), `${what}.tail`, limits.maxTextLength),
    omittedBytes: count(own(fields, 'omittedBytes'), `${what}.omittedBytes`),
    totalBytes: count(own(fields, 'totalBytes'), `${what}.totalBytes`),
    spill: spill(own(fields, 'spill'), `${what}.spill`),
  }
}

/** A result as the agent's local executor makes it, rebuilt from the known fields (its `executorMeta` is the host's to set). */
function result(value: unknown, limits: AgentStreamLimits): BashResult {
  const fields = object(value, 'result')
  const note = own(fields, 'note')
  const cutOff = own(fields, 'outputCutOff')
  return {
    command: text(own(fields, 'command'), 'result.command', 1_048_576),
    cwd: text(own(fields, 'cwd'), 'result.cwd', SHORT),
    pid: integerOrNull(own(fields, 'pid'), 'result.pid'),
    exitCode: integerOrNull(own(fields, 'exitCode'), 'result.exitCode'),
    signal: own(fields, 'signal') === null ? null : text(own(fields, 'signal'), 'result.signal', 32),
    timedOut: flag(own(fields, 'timedOut'), 'result.timedOut'),
    aborted: flag(own(fields, 'aborted'), 'result.aborted'),
    stopReason: oneOf(own(fields, 'stopReason'), 'result.stopReason', ['timeout', 'abort', 'kill', 'dispose', null] as const),
    timeoutMs: count(own(fields, 'timeoutMs'), 'result.timeoutMs'),
    durationMs: amount(own(fields, 'durationMs'), 'result.durationMs'),
    outputCutOff: cutOff === undefined ? null : oneOf(cutOff, 'result.outputCutOff', ['drain', 'stop', null] as const),
    stdout: captured(own(fields, 'stdout'), 'result.stdout', limits),
    stderr: captured(own(fields, 'stderr'), 'result.stderr', limits),
    ...(note === undefined ? {} : { note: text(note, 'result.note', SHORT) }),
  }
}

function agentError(value: unknown): AgentError {
  const fields = object(value, 'error')
  const field = own(fields, 'field')
  const cwd = own(fields, 'cwd')
  return {
    name: text(own(fields, 'name'), 'error.name', 128),
    message: text(own(fields, 'message'), 'error.message', SHORT),
    ...(field === undefined ? {} : { field: text(field, 'error.field', 128) }),
    ...(cwd === undefined ? {} : { cwd: text(cwd, 'error.cwd', SHORT) }),
  }
}

function facts(value: unknown): ContainerFacts {
  const fields = object(value, 'facts')
  const interfaces = own(fields, 'interfaces')
  if (!Array.isArray(interfaces) || interfaces.length > 256) fail('facts.interfaces is not a list')
  return {
    capEff: text(own(fields, 'capEff'), 'facts.capEff', 64),
    noNewPrivs: flag(own(fields, 'noNewPrivs'), 'facts.noNewPrivs'),
    seccomp: count(own(fields, 'seccomp'), 'facts.seccomp'),
    interfaces: (interfaces as unknown[]).map((name, index) => text(name, `facts.interfaces[${index}]`, 64)),
    memoryBytes: numberOrNull(own(fields, 'memoryBytes'), 'facts.memoryBytes'),
    memorySwapBytes: numberOrNull(own(fields, 'memorySwapBytes'), 'facts.memorySwapBytes'),
    pidsLimit: numberOrNull(own(fields, 'pidsLimit'), 'facts.pidsLimit'),
    cpus: numberOrNull(own(fields, 'cpus'), 'facts.cpus'),
    nofile: numberOrNull(own(fields, 'nofile'), 'facts.nofile'),
    readOnlyRoot: flag(own(fields, 'readOnlyRoot'), 'facts.readOnlyRoot'),
    userNamespace: own(fields, 'userNamespace') === null ? null : flag(own(fields, 'userNamespace'), 'facts.userNamespace'),
    agentInspectable: own(fields, 'agentInspectable') === null ? null : flag(own(fields, 'agentInspectable'), 'facts.agentInspectable'),
    agentPid: count(own(fields, 'agentPid'), 'facts.agentPid'),
    node: text(own(fields, 'node'), 'facts.node', 64),
  }
}

const id = (fields: Fields): number => count(own(fields, 'id'), 'id')
const conn = (fields: Fields): number => count(own(fields, 'conn'), 'conn')

/**
 * Parses one line of the agent's output into a message the host can act on, every field checked and the message
 * rebuilt from the known ones. Throws {@link AgentProtocolError} naming what is wrong.
 */
export function readAgentMessage(line: string, limits: AgentStreamLimits): AgentMessage {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    fail(`a line that is not JSON: ${JSON.stringify(line.slice(0, 80))}`)
  }
  const fields = object(value, 'the message')
  const op = own(fields, 'op')
  switch (op) {
    case 'ready':
      return { op, facts: facts(own(fields, 'facts')) }
    case 'fatal':
      return { op, message: text(own(fields, 'message'), 'message', SHORT) }
    case 'resolved': {
      const resolved = own(fields, 'value')
      if (resolved === undefined) return { op, id: id(fields), error: agentError(own(fields, 'error')) }
      const request = object(resolved, 'value')
      return {
        op,
        id: id(fields),
        value: {
          command: text(own(request, 'command'), 'value.command', 1_048_576),
          cwd: text(own(request, 'cwd'), 'value.cwd', SHORT),
          timeoutMs: count(own(request, 'timeoutMs'), 'value.timeoutMs'),
        },
      }
    }
    case 'started':
      return { op, id: id(fields), pid: integerOrNull(own(fields, 'pid'), 'pid'), startedAt: amount(own(fields, 'startedAt'), 'startedAt') }
    case 'out': {
      const data = text(own(fields, 'data'), 'data', limits.maxLineBytes)
      return { op, id: id(fields), stream: oneOf(own(fields, 'stream'), 'stream', ['stdout', 'stderr'] as const), data }
    }
    case 'done': {
      const done = own(fields, 'result')
      if (done === undefined) return { op, id: id(fields), error: agentError(own(fields, 'error')) }
      return { op, id: id(fields), result: result(done, limits) }
    }
    case 'swept': {
      const pids = own(fields, 'pids')
      if (!Array.isArray(pids) || pids.length > 100_000) fail('pids is not a list')
      return { op, pids: (pids as unknown[]).map((pid, index) => count(pid, `pids[${index}]`)) }
    }
    case 'net-open':
    case 'net-end':
    case 'net-close':
      return { op, conn: conn(fields) }
    case 'net-ack':
      return { op, conn: conn(fields), bytes: count(own(fields, 'bytes'), 'bytes') }
    case 'net-data': {
      const data = text(own(fields, 'data'), 'data', limits.maxLineBytes)
      return { op, conn: conn(fields), data }
    }
    default:
      return fail(`an unknown op ${JSON.stringify(String(op).slice(0, 40))}`)
  }
}

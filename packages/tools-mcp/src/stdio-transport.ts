import { spawn, type ChildProcess } from 'node:child_process'
import { groupAlive, signalGroup, trackGroup } from './process-groups.js'
import { StderrTail } from './stderr-tail.js'

/** The structural transport the SDK adapter hands to the SDK client (the SDK's `Transport` shape). */
export interface MessageTransport {
  start(): Promise<void>
  send(message: object): Promise<void>
  close(): Promise<void>
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: ((message: never) => void) | undefined
}

/** Why a transport closed, as far as it knows. */
export type CloseReason = 'closed' | 'exited' | 'too-large' | 'spawn-failed'

/** What starting a stdio server needs. */
export interface StdioTransportOptions {
  readonly command: string
  readonly args: readonly string[]
  readonly cwd?: string | undefined
  readonly env: Readonly<Record<string, string>>
  /** A message from the server larger than this closes the transport with reason `too-large`. */
  readonly maxMessageBytes: number
  /** How many bytes of stderr are kept for error messages. */
  readonly stderrTailBytes: number
  /** How long a closing server gets after stdin EOF, then after SIGTERM to its group, before SIGKILL. */
  readonly killGraceMs: number
  /** Each stderr line, for logs (never treated as an error). */
  readonly onStderrLine?: ((line: string) => void) | undefined
}

// Ref'd on purpose: these waits are the shutdown of a server, which a host awaits (`await fiber.dispose()` in a plain
// script). An unref'd timer lets Node find the loop empty while the group is still being killed and exit with
// code 13 (unsettled top-level await) before the line after the `await`. Each wait is bounded by `killGraceMs`.
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Resolves when `promise` settles or after `ms`, whichever comes first; its timer never outlives it. */
function within(promise: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const elapsed = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))
  return Promise.race([promise, elapsed]).finally(() => clearTimeout(timer))
}

/**
 * A newline-delimited JSON-RPC transport over a child process spawned in its own process group (POSIX
 * `detached`), with stderr always piped and drained into a bounded tail. `close()` ends stdin, then signals the
 * whole group (SIGTERM, then SIGKILL after a grace), so wrappers (`sh -c`, `npx`) and their children go too.
 */
export class StdioTransport implements MessageTransport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: ((message: never) => void) | undefined
  readonly stderr: StderrTail
  readonly #options: StdioTransportOptions
  #child: ChildProcess | undefined
  #pgid: number | undefined
  #untrack: (() => void) | undefined
  #pending: Buffer[] = []
  #pendingSize = 0
  #closed = false
  #finished = false
  #exited: Promise<void> | undefined
  #reason: CloseReason = 'closed'
  #stderrLine = ''

  constructor(options: StdioTransportOptions) {
    this.#options = options
    this.stderr = new StderrTail(options.stderrTailBytes)
  }

  /** The server's pid (and process group id) once started. */
  get pid(): number | undefined {
    return this.#child?.pid
  }

  /** Why the transport closed. */
  get closeReason(): CloseReason {
    return this.#reason
  }

  #started: Promise<void> | undefined

  /** Spawns the server once; later calls (the SDK calls it again on connect) return the same promise. */
  start(): Promise<void> {
    this.#started ??= this.#spawn()
    return this.#started
  }

  #spawn(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.#options.command, [...this.#options.args], {
        cwd: this.#options.cwd,
        env: { ...this.#options.env },
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
        windowsHide: true,
      })
      this.#child = child
      this.#exited = new Promise((done) => child.once('close', () => done()))
      child.once('error', (error) => {
        if (child.pid === undefined) {
          this.#reason = 'spawn-failed'
          reject(error)
          this.#finish()
        } else {
          this.onerror?.(error)
        }
      })
      child.once('spawn', () => {
        this.#pgid = child.pid
        if (this.#pgid !== undefined) this.#untrack = trackGroup(this.#pgid)
        resolve()
      })
      child.stdout?.on('data', (chunk: Buffer) => this.#read(chunk))
      child.stderr?.on('data', (chunk: Buffer) => this.#readStderr(chunk))
      child.stdin?.on('error', () => {}) // EPIPE after the server died: the close handler reports it
      child.once('close', () => {
        if (this.#closed) return // close() or a too-large message is terminating the group and finishes after it
        this.#reason = 'exited'
        this.#finish()
      })
    })
  }

  send(message: object): Promise<void> {
    const stdin = this.#child?.stdin
    if (this.#closed || stdin === undefined || stdin === null || !stdin.writable) {
      return Promise.reject(new Error('Not connected: the server process is not running'))
    }
    return new Promise((resolve, reject) => {
      stdin.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : resolve()))
    })
  }

  #closing: Promise<void> | undefined

  /** Ends the server's whole group; every call (the SDK's close and ours) waits for the same, single shutdown. */
  close(): Promise<void> {
    if (this.#child === undefined || this.#finished) return this.#closing ?? Promise.resolve()
    this.#closed = true
    this.#closing ??= this.#terminate().finally(() => this.#finish())
    return this.#closing
  }

  async #terminate(): Promise<void> {
    const child = this.#child
    const pgid = this.#pgid
    if (child === undefined) return
    child.stdin?.end()
    const grace = this.#options.killGraceMs
    const exited = this.#exited ?? Promise.resolve()
    const childDone = child.exitCode !== null || child.signalCode !== null
    if (!childDone) await within(exited, grace)
    if (pgid !== undefined && process.platform !== 'win32') {
      if (groupAlive(pgid)) {
        signalGroup(pgid, 'SIGTERM')
        for (let waited = 0; waited < grace && groupAlive(pgid); waited += 25) await sleep(25)
        if (groupAlive(pgid)) signalGroup(pgid, 'SIGKILL')
      }
    } else if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL')
    }
    await within(exited, grace)
  }

  #finish(): void {
    if (this.#finished) return
    this.#finished = true
    this.#closed = true
    // Whatever is left of the group once the server is gone (or the grace ran out) is killed outright.
    if (this.#pgid !== undefined && process.platform !== 'win32' && groupAlive(this.#pgid)) signalGroup(this.#pgid, 'SIGKILL')
    this.#untrack?.()
    this.#untrack = undefined
    this.onclose?.()
  }

  #read(chunk: Buffer): void {
    let start = 0
    for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, index)
      start = index + 1
      if (this.#pendingSize + piece.length > this.#options.maxMessageBytes) return this.#tooLarge()
      const line = this.#pending.length === 0 ? piece : Buffer.concat([...this.#pending, piece])
      this.#pending = []
      this.#pendingSize = 0
      this.#deliver(line.toString('utf8'))
      if (this.#closed) return
    }
    const rest = chunk.subarray(start)
    if (rest.length === 0) return
    if (this.#pendingSize + rest.length > this.#options.maxMessageBytes) return this.#tooLarge()
    this.#pending.push(rest)
    this.#pendingSize += rest.length
  }

  #deliver(line: string): void {
    const text = line.endsWith('\r') ? line.slice(0, -1) : line
    if (text.trim() === '') return
    let message: unknown
    try {
      message = JSON.parse(text)
    } catch (error) {
      this.onerror?.(new Error(`The server wrote a line that is not JSON-RPC: ${text.slice(0, 200)}`, { cause: error }))
      return
    }
    this.onmessage?.(message as never)
  }

  #tooLarge(): void {
    this.#pending = []
    this.#pendingSize = 0
    if (this.#closed) return
    this.#reason = 'too-large'
    this.#closed = true
    this.#child?.stdout?.removeAllListeners('data')
    this.#child?.stdout?.resume()
    this.onerror?.(new Error(`A message from the server exceeded ${this.#options.maxMessageBytes} bytes`))
    void (this.#closing ??= this.#terminate().finally(() => this.#finish())).catch(() => {})
  }

  #readStderr(chunk: Buffer): void {
    this.stderr.push(chunk)
    const onLine = this.#options.onStderrLine
    if (onLine === undefined) return
    const lines = (this.#stderrLine + chunk.toString('utf8')).split('\n')
    this.#stderrLine = (lines.pop() ?? '').slice(-4096)
    for (const line of lines) onLine(line.slice(0, 4096))
  }
}

// While a registry is served over stdio, this process's stdout is the protocol stream: one stray `console.log` of a
// tool (or of anything else in the process) would corrupt it. The guard routes every `process.stdout.write` to
// stderr and hands the transport a stream of its own that writes to the real stdout.
import { Writable } from 'node:stream'

type Write = typeof process.stdout.write

interface Installed {
  /** The `write` that was in place (an own property of `process.stdout`, or the inherited one). */
  readonly original: Write
  readonly wasOwn: boolean
  readonly routed: Write
  users: number
}

let installed: Installed | undefined

/** The protocol's own way to stdout, and the undo of the routing. */
export interface StdoutGuard {
  /** Writes to the real stdout (the protocol stream); hand it to the stdio transport. */
  readonly protocol: Writable
  /** Ends the routing (the last guard restores `process.stdout.write`); idempotent. */
  release(): void
}

/**
 * Routes `process.stdout.write` (and so `console.log`, `console.info`, `console.debug`, `console.table`, …) to
 * stderr until every guard is released, and returns the stream the protocol writes to instead. Guards nest: the
 * first installs the routing, the last release restores what was there, unless something replaced
 * `process.stdout.write` meanwhile (then it is left alone). Writes to file descriptor 1 that bypass
 * `process.stdout` (`fs.writeSync(1, …)`, a child process spawned with inherited stdio) cannot be routed.
 */
export function guardStdout(): StdoutGuard {
  const stdout = process.stdout
  if (installed === undefined) {
    const wasOwn = Object.hasOwn(stdout, 'write')
    const original = stdout.write
    const routed = function write(this: unknown, ...args: unknown[]): boolean {
      return Reflect.apply(process.stderr.write, process.stderr, args) as boolean
    } as Write
    stdout.write = routed
    installed = { original, wasOwn, routed, users: 0 }
  }
  const current = installed
  current.users += 1
  const protocol = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      Reflect.apply(current.original, stdout, [chunk, (error?: Error | null) => callback(error ?? null)])
    },
  })
  // The transport listens for errors on `protocol`; the real stdout's (EPIPE when the client is gone) reach it here,
  // and would otherwise be unhandled and crash the host.
  const forward = (error: Error) => protocol.destroy(error)
  stdout.on('error', forward)
  let released = false
  return {
    protocol,
    release: () => {
      if (released) return
      released = true
      stdout.off('error', forward)
      current.users -= 1
      if (current.users > 0 || installed !== current) return
      installed = undefined
      if (stdout.write !== current.routed) return
      if (current.wasOwn) stdout.write = current.original
      else delete (stdout as { write?: Write }).write
    },
  }
}

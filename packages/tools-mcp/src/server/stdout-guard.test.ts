// The mechanism behind serveToolsStdio's clean protocol stream (the child-process round trips are in
// serve-stdio-noise.test.ts): while guarded, process.stdout.write goes to stderr and only the protocol's own stream
// reaches the real stdout; guards nest; releasing the last one restores write and the listeners as they were.
import { afterEach, describe, expect, it } from 'vitest'
import { guardStdout } from './stdout-guard.js'

type Write = typeof process.stdout.write

/** Records what reaches `stream.write` (as an own property) until `restore()`. */
function record(stream: NodeJS.WriteStream): { readonly written: string[]; readonly write: Write; restore(): void } {
  const written: string[] = []
  const write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'))
    const callback = rest.find((value) => typeof value === 'function') as ((error?: Error | null) => void) | undefined
    callback?.(null)
    return true
  }) as Write
  stream.write = write
  return { written, write, restore: () => void delete (stream as { write?: Write }).write }
}

const restores: (() => void)[] = []
afterEach(() => {
  for (const restore of restores.splice(0).reverse()) restore()
})

describe('guardStdout', () => {
  it('routes process.stdout writes to stderr, gives the protocol the real stdout, and restores both on release', async () => {
    const stdout = record(process.stdout)
    const stderr = record(process.stderr)
    restores.push(stdout.restore, stderr.restore)
    const errorListeners = process.stdout.listenerCount('error')

    const guard = guardStdout()
    // (console.log is vitest's own in this worker; the child-process tests cover it.)
    process.stdout.write('a stray log line\n')
    process.stdout.write('no newline')
    await new Promise<void>((resolve, reject) => guard.protocol.write('{"jsonrpc":"2.0"}\n', (error) => (error ? reject(error) : resolve())))
    expect(stderr.written).toEqual(['a stray log line\n', 'no newline'])
    expect(stdout.written).toEqual(['{"jsonrpc":"2.0"}\n'])
    expect(process.stdout.listenerCount('error')).toBe(errorListeners + 1)

    // Guards nest: the routing ends with the last release.
    const inner = guardStdout()
    inner.release()
    process.stdout.write('still routed')
    expect(stderr.written.at(-1)).toBe('still routed')

    guard.release()
    guard.release()
    expect(process.stdout.write).toBe(stdout.write)
    expect(process.stdout.listenerCount('error')).toBe(errorListeners)
    process.stdout.write('back on stdout')
    expect(stdout.written.at(-1)).toBe('back on stdout')
  })

  it('leaves process.stdout.write alone when something else replaced it while guarded', () => {
    const stdout = record(process.stdout)
    restores.push(stdout.restore)
    const guard = guardStdout()
    const later = record(process.stdout)
    guard.release()
    expect(process.stdout.write).toBe(later.write)
  })

  it("an error of the real stdout (EPIPE: the client is gone) reaches the protocol stream, not the host's uncaught handler", () => {
    const before = new Set(process.stdout.listeners('error'))
    const guard = guardStdout()
    restores.push(() => guard.release())
    const seen: Error[] = []
    guard.protocol.on('error', (error) => void seen.push(error))
    // The guard's own listener on the real stdout (emitting there would also reach the test runner's listeners).
    const added = process.stdout.listeners('error').filter((listener) => !before.has(listener))
    expect(added).toHaveLength(1)
    added[0]?.(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))
    expect(guard.protocol.destroyed).toBe(true)
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        expect(seen.map((error) => error.message)).toEqual(['write EPIPE'])
        resolve()
      }),
    )
  })
})

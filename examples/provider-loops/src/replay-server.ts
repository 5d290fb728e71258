import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A running replay server: its base URL, and close(). */
export interface Replay {
  readonly url: string
  close(): Promise<void>
}

/**
 * Starts an HTTP server on 127.0.0.1 (an ephemeral port) that answers each POST with the next recorded response
 * body, in order, as JSON (after the last one, a 400 the SDKs do not retry). It stands in for the provider's API
 * when no API key is set, so the example runs offline. `delayMs` holds each answer back (a slow model, to try
 * Ctrl-C offline).
 */
export async function startReplay(replies: readonly unknown[], delayMs = 0): Promise<Replay> {
  let next = 0
  const timers = new Set<NodeJS.Timeout>()
  const server = createServer((request, response) => {
    request.resume() // the request body is not needed: the replies are recorded
    request.on('end', () => {
      const reply = request.method === 'POST' ? replies[next++] : undefined
      const body = JSON.stringify(reply ?? { error: { type: 'invalid_request_error', message: 'the replay has no more responses' } })
      const timer = setTimeout(() => {
        timers.delete(timer)
        response.writeHead(reply === undefined ? 400 : 200, { 'content-type': 'application/json' })
        response.end(body)
      }, delayMs)
      timers.add(timer)
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer)
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

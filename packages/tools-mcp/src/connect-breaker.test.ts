// A server that accepts connections and never answers was retried forever with the default settings: each attempt
// took the whole connect budget (30 s), so fewer attempts than `maxRestarts` fit in `windowMs` and the circuit
// breaker could never trip; and the first `mcp/status` event came only when the first attempt failed, 30 s in.
import { createServer, type Socket } from 'node:net'
import { createToolContext } from '@dsh/tools-testing'
import { afterEach, describe, expect, it } from 'vitest'
import { backoffDelay, RestartBreaker } from './backoff.js'
import { mcpServer, resolveMcpServerConfig, whenMcpServerReady, type McpServerStatus } from './index.js'
import { expectNoLeftovers, recordPids } from './test-support/load.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await expectNoLeftovers()
})

/** A TCP server on 127.0.0.1 that accepts every connection and never sends a byte. */
async function startSilentServer(): Promise<{ url: string; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<Socket>()
  let connections = 0
  const server = createServer((socket) => {
    connections += 1
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    socket.resume() // read and drop whatever the client sends
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    connections: () => connections,
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

describe('the circuit breaker counts failures in a row', () => {
  it('with the defaults, attempts that each take the whole connect budget trip it: suspended after maxRestarts + 1 in a row', () => {
    const config = resolveMcpServerConfig({ id: 'silent', url: 'http://127.0.0.1:9/mcp' })
    const { maxRestarts } = config.restart
    const breaker = new RestartBreaker(config.restart.windowMs)
    let now = 0
    let attempts = 0
    let tripped = false
    let mostInWindow = 0
    while (!tripped && attempts < 100) {
      attempts += 1
      now += config.timeouts.connect // the attempt times out
      const { failures, inWindow } = breaker.failure(now)
      mostInWindow = Math.max(mostInWindow, inWindow)
      tripped = failures > maxRestarts
      now += backoffDelay(config.restart, failures)
    }
    expect(tripped).toBe(true)
    expect(attempts).toBe(maxRestarts + 1)
    // The window alone never held more than 2 of them: counting only within it, the breaker could not trip.
    expect(mostInWindow).toBeLessThanOrEqual(2)
  })

  it('a server that got ready starts the count over: only crashes within the window add up after that', () => {
    const breaker = new RestartBreaker(1_000)
    expect(breaker.failure(0).failures).toBe(1)
    expect(breaker.failure(5_000).failures).toBe(2) // in a row, outside the window: still counted
    breaker.ready()
    expect(breaker.failure(20_000)).toEqual({ failures: 1, inARow: 1, inWindow: 1 })
    breaker.ready()
    expect(breaker.failure(20_500)).toEqual({ failures: 2, inARow: 1, inWindow: 2 })
  })
})

describe('a server that accepts connections and never answers', () => {
  for (const transport of ['http', 'stdio'] as const) {
    it(`${transport}: says at once that it is connecting, then ends suspended although each attempt outlasts the window`, async () => {
      const silent = transport === 'http' ? await startSilentServer() : undefined
      if (silent !== undefined) cleanups.push(() => silent.close())
      const t = await createToolContext()
      recordPids(t)
      cleanups.push(() => t.dispose())
      const events: McpServerStatus[] = []
      t.ctx.on('mcp/status', (status) => void events.push(status))
      const target = silent !== undefined ? { url: silent.url } : { command: process.execPath, args: ['-e', 'process.stdin.resume()'] }
      // Scaled down: an attempt takes the connect budget (300 ms), longer than the whole window (250 ms). Measured:
      // suspended after about 1 s; counting only within the window it was retried until the test timed out (15 s).
      await t.load(mcpServer, { id: 'silent', ...target, timeouts: { connect: 300 }, restart: { maxRestarts: 2, windowMs: 250, initialDelayMs: 10, maxDelayMs: 20 }, killGraceMs: 100 })
      expect(events[0]?.state).toBe('connecting') // before any attempt could have failed
      const status = await whenMcpServerReady(t.ctx, 'silent')
      expect(status.state).toBe('suspended')
      expect(status.error?.code).toBe('MCP_UNAVAILABLE')
      expect(status.error?.message).toMatch(/suspended after 3 failures in a row without becoming ready/)
      expect(status.restarts).toBe(2)
      expect(events.map((event) => event.state)).toEqual(['connecting', 'restarting', 'restarting', 'suspended'])
      if (silent !== undefined) expect(silent.connections()).toBeGreaterThanOrEqual(3)
    })
  }
})

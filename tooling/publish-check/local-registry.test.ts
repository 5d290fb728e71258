import { existsSync } from 'node:fs'
import { expect, it } from 'vitest'
import { isAlive, startRegistry } from './local-registry.mjs'

it('serves on 127.0.0.1, hands out a token, and leaves no process or folder once stopped', async () => {
  const registry = await startRegistry()
  try {
    expect(registry.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)
    expect(registry.token.length).toBeGreaterThan(10)
    expect(isAlive(registry.pid)).toBe(true)
    const ping = await fetch(new URL('-/ping', registry.url))
    expect(ping.status).toBe(200)
    // No uplinks: a package it does not hold is a 404, not a fetch from the public registry.
    expect((await fetch(new URL('cordis', registry.url))).status).toBe(404)
  } finally {
    await registry.stop()
  }
  expect(isAlive(registry.pid)).toBe(false)
  expect(existsSync(registry.dir)).toBe(false)
})

import { expect, it } from 'vitest'
import { serveMany } from './serve-many.js'

it('the served variant: each token sees and runs only its agent\'s scope, an unknown token is refused, the server drains', async () => {
  const lines = await serveMany()
  expect(lines).toContain('reviewer (2025-era SDK client) sees: review, status')
  expect(lines).toContain('deployer (2026-07-28, mcpServer plugin) registered: mcp__ops__deploy, mcp__ops__status')
  expect(lines).toContain('deployer calls deploy: b7 deployed')
  expect(lines.find((line) => line.startsWith('reviewer calls deploy:'))).toMatch(/-32602: Unknown tool: "deploy"/)
  expect(lines.find((line) => line.startsWith('an unknown token:'))).toMatch(/HTTP 401, WWW-Authenticate: Bearer error="invalid_token"/)
  expect(lines.at(-1)).toMatch(/^drained/)
})

// The served variant (`npm run example:mcp -- --served`): one registry served to two agents the way a team runs it
// behind a load balancer: sessions: false (any replica answers any request), one token per caller mapped onto an
// agent's scope, health, readiness, counters and a graceful drain. A 2025-era client (the v1 SDK, what most hosts
// embed) and a 2026-07-28 client (this repository's mcpServer plugin, with its bearer auth) each see their scope.
import type { Agent } from '@dsh/tools-core'
import { mcpServer, whenMcpServerReady } from '@dsh/tools-mcp'
import { callerTokens, serveToolsHttp } from '@dsh/tools-mcp/server'
import { defineTool } from '@dsh/tools-registry'
import { contentText, createToolContext } from '@dsh/tools-testing'
import { openServedToolsClient } from './served-tools-client.js'

export async function serveMany(): Promise<string[]> {
  const lines: string[] = []
  const reviewer: Agent = { id: 'reviewer' }
  const deployer: Agent = { id: 'deployer' }
  const server = await createToolContext()
  const client = await createToolContext()
  try {
    server.tools.register(defineTool({ name: 'status', description: 'Service status.', annotations: { readOnlyHint: true }, parameters: {}, execute: (_args, exec) => `all green (asked by ${exec.agent?.id ?? 'nobody'})` }))
    server.tools.scope(reviewer).register(defineTool({ name: 'review', description: 'Reviews a change.', annotations: { readOnlyHint: true }, parameters: { change: { type: 'string', required: true } }, execute: ({ change }) => `${change}: approved` }))
    server.tools.scope(deployer).register(defineTool({ name: 'deploy', description: 'Deploys a build.', annotations: { destructiveHint: false }, parameters: { build: { type: 'string', required: true } }, execute: ({ build }) => `${build} deployed` }))
    const tokens = new Map([
      ['reviewer-token', { id: 'reviewer', agent: reviewer }],
      ['deployer-token', { id: 'deployer', agent: deployer }],
    ])
    const served = await serveToolsHttp(server.ctx, { sessions: false, auth: callerTokens(tokens), metrics: true })
    const base = new URL(served.url)
    lines.push(`served: ${served.url} (sessions: false, one token per caller)`)
    lines.push(`GET /healthz → ${await (await fetch(new URL('/healthz', base))).text()}, GET /readyz → ${await (await fetch(new URL('/readyz', base))).text()}`)

    await using reviewerClient = await openServedToolsClient({ url: served.url, token: 'reviewer-token' })
    lines.push(`reviewer (2025-era SDK client) sees: ${(await reviewerClient.toolNames()).join(', ')}`)
    lines.push(`reviewer calls review: ${(await reviewerClient.call('review', { change: 'PR 12' })).text}`)
    const denied = await reviewerClient.call('deploy', { build: 'b7' }).catch((error: unknown) => ({ text: error instanceof Error ? error.message : String(error) }))
    lines.push(`reviewer calls deploy: ${denied.text}`)

    await client.load(mcpServer, { id: 'ops', url: served.url, protocol: 'modern', auth: { type: 'bearer', token: 'deployer-token' }, trust: true })
    await whenMcpServerReady(client.ctx, 'ops')
    lines.push(`deployer (2026-07-28, mcpServer plugin) registered: ${client.tools.schemas().map((schema) => schema.name).sort().join(', ')}`)
    const deployed = await client.tools.execute({ callId: 'd1', name: 'mcp__ops__deploy', arguments: { build: 'b7' } })
    lines.push(`deployer calls deploy: ${contentText(deployed.content)}`)

    const revoked = await fetch(served.url, { method: 'POST', headers: { authorization: 'Bearer nobody', 'content-type': 'application/json' }, body: '{}' })
    lines.push(`an unknown token: HTTP ${revoked.status}, WWW-Authenticate: ${revoked.headers.get('www-authenticate')}`)
    const metrics = served.metrics()
    lines.push(`counters: ${metrics.callsTotal} calls, ${metrics.callsInFlight} in flight, denials ${JSON.stringify(metrics.denials)}`)
    await reviewerClient.close()
    await client.dispose()
    await served.drain({ timeoutMs: 5_000 })
    lines.push('drained: readiness answered 503, the running calls finished, the port is closed')
  } finally {
    await client.dispose()
    await server.dispose()
  }
  return lines
}

import type { Agent } from '@dsh/tools-core'
import { defineTool } from '@dsh/tools-registry'
import { createToolContext, type ToolTestContext } from '@dsh/tools-testing'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterEach, describe, expect, it } from 'vitest'
import { mcpServer, whenMcpServerReady, type McpServerConfig } from '../index.js'
import { startIssuer } from '../test-support/oauth-issuer.js'
import { callerTokens, oauthResourceServer, serveToolsHttp, type ServedCaller } from './index.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const alice: Agent = { id: 'alice' }
const bob: Agent = { id: 'bob' }

/** A registry with a global `echo` and one tool in each of alice's and bob's scopes, each saying who ran it. */
async function scopedRegistry(): Promise<ToolTestContext> {
  const t = await createToolContext()
  cleanups.push(() => t.dispose())
  t.tools.register(defineTool({ name: 'echo', description: 'Echoes.', annotations: { readOnlyHint: true }, parameters: { text: { type: 'string', required: true } }, execute: ({ text }, exec) => `${exec.agent?.id ?? 'nobody'}: ${text}` }))
  for (const agent of [alice, bob]) {
    t.tools.scope(agent).register(defineTool({ name: `${agent.id}_notes`, description: `${agent.id}'s notes.`, annotations: { readOnlyHint: true }, parameters: {}, execute: (_args, exec) => `notes of ${exec.agent?.id ?? 'nobody'}` }))
  }
  return t
}

/** Our client plugin against `url`; returns the registry names it registered and a call's text. */
async function connect(config: Omit<McpServerConfig, 'id'>) {
  const client = await createToolContext()
  cleanups.push(() => client.dispose())
  await client.load(mcpServer, { id: 's', trust: true, restart: { maxRestarts: 0 }, ...config })
  const status = await whenMcpServerReady(client.ctx, 's')
  return { client, status, names: client.tools.schemas().map((schema) => schema.name).sort() }
}

/** A raw 2025-era initialize with `authorization`: the HTTP status and the challenge. */
async function probe(url: string, authorization?: string): Promise<{ status: number; challenge: string | null; body: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization === undefined ? {} : { authorization }) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } } }),
  })
  const body = await response.text()
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body }
}

describe('serving to many callers: per-caller tokens', () => {
  it('each token sees and runs only its agent\'s scope, in both eras; a revoked token is refused at once; a session belongs to its caller', async () => {
    const t = await scopedRegistry()
    const tokens = new Map<string, ServedCaller>([
      ['alice-token', { id: 'alice', agent: alice }],
      ['bob-token', { id: 'bob', agent: bob }],
    ])
    const served = await serveToolsHttp(t.ctx, { auth: callerTokens(tokens) })
    cleanups.push(() => served.close())
    for (const protocol of ['legacy', 'modern'] as const) {
      const { client, names, status } = await connect({ url: served.url, protocol, auth: { type: 'bearer', token: 'alice-token' } })
      expect(status.state).toBe('ready')
      expect(names).toEqual(['mcp__s__alice_notes', 'mcp__s__echo'])
      const notes = await client.tools.execute({ callId: 'n', name: 'mcp__s__alice_notes', arguments: {} })
      expect(notes.content).toEqual([{ type: 'text', text: 'notes of alice' }])
      const echo = await client.tools.execute({ callId: 'e', name: 'mcp__s__echo', arguments: { text: protocol } })
      expect(echo.content).toEqual([{ type: 'text', text: `alice: ${protocol}` }])
    }
    // Bob cannot reach alice's tool by name.
    const sdk = new Client({ name: 'bob', version: '1' }, { versionNegotiation: { mode: 'legacy' } })
    const transport = new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers: { authorization: 'Bearer bob-token' } } })
    await sdk.connect(transport)
    cleanups.push(() => sdk.close())
    expect((await sdk.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['bob_notes', 'echo'])
    await expect(sdk.callTool({ name: 'alice_notes', arguments: {} })).rejects.toMatchObject({ code: -32602 })
    // Bob's session id with alice's token reads as an unknown session.
    const stolen = await fetch(served.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer alice-token', 'mcp-session-id': transport.sessionId ?? '', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
    })
    expect(stolen.status).toBe(404)
    // Revocation: the next request is refused, no restart.
    expect((await probe(served.url, 'Bearer alice-token')).status).toBe(200)
    tokens.delete('alice-token')
    const revoked = await probe(served.url, 'Bearer alice-token')
    expect(revoked.status).toBe(401)
    expect(revoked.challenge).toBe('Bearer error="invalid_token", error_description="The bearer token is unknown or was revoked."')
    expect((await probe(served.url)).challenge).toBe('Bearer')
    expect(served.metrics().denials).toMatchObject({ INVALID_TOKEN: 1, UNAUTHORIZED: 1, SESSION_NOT_FOUND: 1 })
  })
})

describe('serving to many callers: OAuth 2.1 resource server', () => {
  it('validates JWTs against the issuer\'s keys: expired, wrong audience, tampered, unknown key, missing scope and unknown caller refused as the spec says; a rotated key is picked up; a client-credentials client connects', async () => {
    const issuer = await startIssuer({ alice: { secret: 'alice-secret', scope: 'tools' } })
    cleanups.push(() => issuer.close())
    const t = await scopedRegistry()
    const resource = 'https://tools.test/mcp'
    const auth = oauthResourceServer({
      resource,
      issuer: issuer.issuer,
      jwksUrl: issuer.jwksUrl,
      requiredScopes: ['tools'],
      keyRefetchCooldownMs: 0,
      agent: (claims) => ({ alice, bob })[claims.sub as 'alice' | 'bob'],
    })
    const served = await serveToolsHttp(t.ctx, { auth })
    cleanups.push(() => served.close())
    const metadataUrl = 'https://tools.test/.well-known/oauth-protected-resource/mcp'

    // The protected-resource metadata at its well-known path, without credentials.
    const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', served.url))
    expect(metadata.status).toBe(200)
    expect(await metadata.json()).toEqual({ resource, authorization_servers: [issuer.issuer], bearer_methods_supported: ['header'], scopes_supported: ['tools'] })

    const none = await probe(served.url)
    expect(none).toMatchObject({ status: 401, challenge: `Bearer resource_metadata="${metadataUrl}"` })
    const good = await issuer.sign({ sub: 'alice', aud: resource, scope: 'tools' })
    expect((await probe(served.url, `Bearer ${good}`)).status).toBe(200)
    const refusals = {
      expired: await issuer.sign({ sub: 'alice', aud: resource, scope: 'tools' }, { expiresInSeconds: -60 }),
      audience: await issuer.sign({ sub: 'alice', aud: 'https://other.test/mcp', scope: 'tools' }),
      tampered: `${good.slice(0, good.indexOf('.') + 5)}${good[good.indexOf('.') + 5] === 'A' ? 'B' : 'A'}${good.slice(good.indexOf('.') + 6)}`,
      stray: await issuer.sign({ sub: 'alice', aud: resource, scope: 'tools' }, { key: await issuer.strayKey() }),
    }
    for (const [name, token] of Object.entries(refusals)) {
      const answer = await probe(served.url, `Bearer ${token}`)
      expect(answer.status, name).toBe(401)
      expect(answer.challenge, name).toMatch(new RegExp(`^Bearer resource_metadata="${metadataUrl}", error="invalid_token", error_description="[^"]+"$`))
      expect(JSON.parse(answer.body), name).toMatchObject({ error: 'invalid_token' })
    }
    expect((await probe(served.url, `Bearer ${refusals.expired}`)).challenge).toContain('expired')
    const noScope = await probe(served.url, `Bearer ${await issuer.sign({ sub: 'alice', aud: resource, scope: 'other' })}`)
    expect(noScope).toMatchObject({ status: 403 })
    expect(noScope.challenge).toContain('error="insufficient_scope"')
    expect(noScope.challenge).toContain('scope="tools"')
    expect((await probe(served.url, `Bearer ${await issuer.sign({ sub: 'mallory', aud: resource, scope: 'tools' })}`)).status).toBe(403)

    // Rotation: a token of the new key works at once (the key set is fetched again for an unknown key id).
    const fetchesBefore = issuer.jwksFetches
    await issuer.rotate({ dropOld: true })
    expect((await probe(served.url, `Bearer ${await issuer.sign({ sub: 'alice', aud: resource, scope: 'tools' })}`)).status).toBe(200)
    expect(issuer.jwksFetches).toBeGreaterThan(fetchesBefore)
    // The old key, dropped by the issuer, is refused once the keys are reloaded (or the cache's max age passed).
    await auth.reloadKeys()
    expect((await probe(served.url, `Bearer ${good}`)).status).toBe(401)

    // Our client with a client-credentials grant: a token from the issuer's endpoint, alice's scope only.
    const { names, status } = await connect({
      url: served.url,
      protocol: 'auto',
      auth: { type: 'client_credentials', tokenUrl: issuer.tokenUrl, clientId: 'alice', clientSecret: 'alice-secret', resource },
    })
    expect(status.state).toBe('ready')
    expect(names).toEqual(['mcp__s__alice_notes', 'mcp__s__echo'])
    const wrong = await connect({ url: served.url, protocol: 'legacy', auth: { type: 'client_credentials', tokenUrl: issuer.tokenUrl, clientId: 'alice', clientSecret: 'nope', resource } })
    expect(wrong.status.state).toBe('suspended')
    expect(wrong.names).toEqual([])
  })
})

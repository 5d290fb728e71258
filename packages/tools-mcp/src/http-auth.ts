import { isRecord } from './is-record.js'

/**
 * How this client authenticates to a Streamable HTTP server (`auth` of the server config):
 *
 * - `bearer`: a token you hold (a string, or a function asked before every request, so a token you refresh
 *   elsewhere is picked up).
 * - `client_credentials`: an OAuth 2.1 client-credentials grant at `tokenUrl` (client_secret_basic), with `scope`
 *   and the RFC 8707 `resource` (this server's URL, default the `url`). The token is kept until 30 s before its
 *   `expires_in`, and fetched again when the server answers 401 (once per request).
 */
export type McpHttpAuth =
  | { readonly type: 'bearer'; readonly token: string | (() => string | undefined | Promise<string | undefined>) }
  | {
      readonly type: 'client_credentials'
      readonly tokenUrl: string
      readonly clientId: string
      readonly clientSecret: string
      readonly scope?: string | undefined
      readonly resource?: string | undefined
    }

/** What the SDK's HTTP transport asks for a token (its `AuthProvider` shape; internal). */
export interface HttpTokenSource {
  token(): Promise<string | undefined>
  onUnauthorized?(): Promise<void>
}

/** Problems of an `auth` value (empty when it is valid). */
export function httpAuthProblems(value: unknown): string[] {
  if (!isRecord(value)) return ['auth: must be { type: "bearer", token } or { type: "client_credentials", tokenUrl, clientId, clientSecret, scope?, resource? }']
  if (value.type === 'bearer') {
    const ok = (typeof value.token === 'string' && value.token !== '') || typeof value.token === 'function'
    return ok ? [] : ['auth.token: must be a non-empty string or a function returning the current token']
  }
  if (value.type === 'client_credentials') {
    const issues: string[] = []
    try {
      const url = new URL(String(value.tokenUrl))
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error()
    } catch {
      issues.push(`auth.tokenUrl: must be an http(s) URL, got ${JSON.stringify(value.tokenUrl)}`)
    }
    for (const key of ['clientId', 'clientSecret'] as const) if (typeof value[key] !== 'string' || value[key] === '') issues.push(`auth.${key}: must be a non-empty string`)
    for (const key of ['scope', 'resource'] as const) if (value[key] !== undefined && typeof value[key] !== 'string') issues.push(`auth.${key}: must be a string`)
    return issues
  }
  return [`auth.type: must be "bearer" or "client_credentials", got ${JSON.stringify(value.type)}`]
}

/** Refetch this long before a token's `expires_in` runs out. */
const expirySkewMs = 30_000

/** The token source of a validated `auth` (`resource` defaults to the server's URL). */
export function httpTokenSource(auth: McpHttpAuth, serverUrl: string): HttpTokenSource {
  if (auth.type === 'bearer') {
    const { token } = auth
    return { token: async () => (typeof token === 'string' ? token : await token()) }
  }
  let current: { token: string; expiresAt: number } | undefined
  let pending: Promise<string> | undefined
  const fetchToken = async (): Promise<string> => {
    const form = new URLSearchParams({ grant_type: 'client_credentials', resource: auth.resource ?? serverUrl })
    if (auth.scope !== undefined) form.set('scope', auth.scope)
    const basic = Buffer.from(`${encodeURIComponent(auth.clientId)}:${encodeURIComponent(auth.clientSecret)}`).toString('base64')
    const response = await fetch(auth.tokenUrl, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form,
    })
    const body: unknown = await response.json().catch(() => undefined)
    if (!response.ok || !isRecord(body) || typeof body.access_token !== 'string') {
      const reason = isRecord(body) && typeof body.error === 'string' ? `${body.error}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''}` : `HTTP ${response.status}`
      throw new Error(`The token endpoint ${auth.tokenUrl} refused the client-credentials grant of ${auth.clientId} (${reason}).`)
    }
    const lifetimeMs = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in * 1000 : 3_600_000
    current = { token: body.access_token, expiresAt: Date.now() + Math.max(lifetimeMs - expirySkewMs, lifetimeMs / 2) }
    return body.access_token
  }
  return {
    token: async () => {
      if (current !== undefined && Date.now() < current.expiresAt) return current.token
      pending ??= fetchToken().finally(() => (pending = undefined))
      return pending
    },
    onUnauthorized: async () => {
      current = undefined
    },
  }
}

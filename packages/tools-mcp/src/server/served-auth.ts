import type { Agent } from '@dsh/tools-core'
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose'
import { McpConfigError } from '../mcp-config-error.js'

/** Who sent a request, as an {@link ServedAuth} established it. */
export interface ServedCaller {
  /**
   * A stable id of the caller (a token's name, a JWT's `sub` or `client_id`): a 2025-era session belongs to it, and so
   * do the tasks of a 2026-07-28 caller, so a refreshed token of the same caller keeps both.
   */
  readonly id: string
  /**
   * The agent the caller is served as: `tools/list` shows what this agent sees, every call runs as it. `undefined`:
   * the serving entry's own `agent` option (without one, the global tools).
   */
  readonly agent?: Agent | undefined
  /** The scopes the caller's token carries (OAuth), for the record. */
  readonly scopes?: readonly string[] | undefined
}

/** An authentication refusal, as the MCP authorization spec (RFC 6750, RFC 9728) answers it. */
export interface ServedAuthRefusal {
  readonly ok: false
  /** 401 (no or bad credentials), 403 (valid, but not enough), 503 (the issuer's keys could not be read). */
  readonly status: 401 | 403 | 503
  /** The RFC 6750 error code; absent when the request carried no credentials at all. */
  readonly error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope' | 'temporarily_unavailable' | undefined
  /** Why, for a person reading the response (never the token itself). */
  readonly description: string
  /** The scopes that would have been enough (`insufficient_scope`). */
  readonly scope?: string | undefined
}

/** What {@link ServedAuth.authenticate} decides for one request. */
export type ServedAuthVerdict = { readonly ok: true; readonly caller: ServedCaller } | ServedAuthRefusal

/**
 * How the HTTP serving entries authenticate a request: `authenticate` reads its `Authorization` header on every
 * request (so a revoked token or a rotated key counts at once). {@link callerTokens} and {@link oauthResourceServer}
 * build one; any object of this shape does.
 */
export interface ServedAuth {
  authenticate(authorization: string | undefined): Promise<ServedAuthVerdict>
  /**
   * The RFC 9728 protected-resource metadata: served at `path` (GET, no credentials needed) and named in every
   * `WWW-Authenticate` challenge as `resource_metadata="<url>"`, so a client finds the authorization server.
   */
  readonly resourceMetadata?: { readonly path: string; readonly url: string; readonly document: Readonly<Record<string, unknown>> } | undefined
}

function bearerOf(authorization: string | undefined): string | undefined | null {
  if (authorization === undefined || authorization === '') return undefined
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization)
  return match === null ? null : match[1]
}

const missing: ServedAuthRefusal = { ok: false, status: 401, description: 'This MCP server requires a bearer token (Authorization: Bearer <token>).' }
const malformed: ServedAuthRefusal = { ok: false, status: 401, error: 'invalid_request', description: 'The Authorization header is not a bearer token (Authorization: Bearer <token>).' }

/**
 * Static per-caller tokens: each token names its caller and the agent it is served as. `tokens` is read on every
 * request: delete an entry from the `Map` (or have the function stop answering for it) and the token is refused from
 * the next request on, without a restart; add one and it works at once.
 *
 * ```ts
 * const tokens = new Map([[process.env.CI_TOKEN!, { id: 'ci', agent: ciAgent }]])
 * await serveToolsHttp(ctx, { auth: callerTokens(tokens) })
 * ```
 */
export function callerTokens(tokens: ReadonlyMap<string, ServedCaller> | ((token: string) => ServedCaller | undefined)): ServedAuth {
  if (typeof tokens !== 'function' && !(tokens instanceof Map)) throw new McpConfigError(['auth: callerTokens takes a Map of token → { id, agent? } or a function of the token'])
  const lookup = typeof tokens === 'function' ? tokens : (token: string) => tokens.get(token)
  return {
    authenticate: async (authorization) => {
      const token = bearerOf(authorization)
      if (token === undefined) return missing
      if (token === null) return malformed
      const caller = lookup(token)
      if (caller === undefined) return { ok: false, status: 401, error: 'invalid_token', description: 'The bearer token is unknown or was revoked.' }
      return { ok: true, caller }
    },
  }
}

/** Options of {@link oauthResourceServer}. */
export interface OAuthResourceServerOptions {
  /** This server's public URL, the resource identifier (RFC 8707): `https://tools.example.com/mcp`. */
  readonly resource: string
  /** The authorization server's issuer identifier: every token's `iss` must be exactly this. */
  readonly issuer: string
  /** Where the issuer publishes its signing keys (a JWKS document). */
  readonly jwksUrl: string
  /** The audiences a token must name (its `aud`). Default: `resource`. */
  readonly audience?: string | readonly string[] | undefined
  /** Scopes every token must carry (its `scope` claim); a token without them gets 403 `insufficient_scope`. */
  readonly requiredScopes?: readonly string[] | undefined
  /** Scopes listed in the metadata as `scopes_supported`. Default: `requiredScopes`. */
  readonly scopesSupported?: readonly string[] | undefined
  /**
   * The agent a token's caller is served as. Return `undefined` to refuse the token (403 `insufficient_scope`):
   * a token this function does not know is never served the global tools by accident.
   */
  readonly agent: (claims: Readonly<JWTPayload>) => Agent | undefined
  /** The caller's id. Default: the `sub` claim, else `client_id`, else `azp`. */
  readonly callerId?: ((claims: Readonly<JWTPayload>) => string | undefined) | undefined
  /** Revocation of single tokens (a `jti` deny list, say), asked on every request; `true` refuses the token. */
  readonly isRevoked?: ((claims: Readonly<JWTPayload>) => boolean | Promise<boolean>) | undefined
  /** Accepted signature algorithms. Default `['RS256', 'PS256', 'ES256', 'EdDSA']` (never `none`, never HMAC). */
  readonly algorithms?: readonly string[] | undefined
  /** Clock skew tolerated on `exp` and `nbf`, in seconds. Default 5. */
  readonly clockToleranceSeconds?: number | undefined
  /**
   * A token signed with a key id the cached key set does not hold makes the key set be fetched again, at most once
   * per this many ms (a rotated-in key is picked up at the first token that uses it). Default 30000.
   */
  readonly keyRefetchCooldownMs?: number | undefined
  /**
   * The cached key set is fetched again after this long, so a key the issuer removed (revoked) stops being accepted
   * within it at the latest. Default 600000 (10 minutes).
   */
  readonly keyCacheMaxAgeMs?: number | undefined
  /** A name advertised as `resource_name` in the metadata. */
  readonly resourceName?: string | undefined
}

/** An {@link ServedAuth} for OAuth 2.1 access tokens, plus a way to drop the cached keys. */
export interface OAuthResourceServer extends ServedAuth {
  readonly resourceMetadata: NonNullable<ServedAuth['resourceMetadata']>
  /** Fetches the issuer's key set now (after a known rotation or a revoked key), instead of waiting for the cache. */
  reloadKeys(): Promise<void>
}

function nonNegative(issues: string[], name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) issues.push(`${name}: must be a non-negative number, got ${JSON.stringify(value) ?? String(value)}`)
  return value
}

function httpUrl(issues: string[], name: string, value: unknown): URL | undefined {
  try {
    const url = new URL(String(value))
    if (url.protocol === 'https:' || url.protocol === 'http:') return url
  } catch {}
  issues.push(`${name}: must be an http(s) URL, got ${JSON.stringify(value) ?? String(value)}`)
  return undefined
}

/** The RFC 9728 well-known path of a resource: `/.well-known/oauth-protected-resource` + its path (if any). */
function metadataPath(resource: URL): string {
  const path = resource.pathname === '/' ? '' : resource.pathname.replace(/\/$/, '')
  return `/.well-known/oauth-protected-resource${path}`
}

/**
 * OAuth 2.1 resource-server mode, as the MCP authorization spec describes it: every request carries an access token
 * (a JWT) issued by `issuer` for this resource. A token is accepted when its signature verifies against the issuer's
 * published keys (JWKS, fetched with `jose` and cached; a new key id makes it fetch again), its `iss` is `issuer`, its
 * `aud` names `audience` (default: `resource`), it has an `exp` not past (and an `nbf` reached, within
 * `clockToleranceSeconds`), it carries `requiredScopes`, `isRevoked` does not refuse it and `agent` maps it to an
 * agent. Otherwise: 401 `invalid_token` (bad signature, expired, wrong audience or issuer, unknown key, revoked), 401
 * without an error code (no token), 403 `insufficient_scope` (a missing scope, or no agent for the caller), 503 (the
 * key set could not be fetched). Every refusal carries `WWW-Authenticate: Bearer resource_metadata="…"`, and the
 * protected-resource metadata (RFC 9728) is served at its well-known path.
 */
export function oauthResourceServer(options: OAuthResourceServerOptions): OAuthResourceServer {
  const issues: string[] = []
  const resource = httpUrl(issues, 'resource', options.resource)
  httpUrl(issues, 'issuer', options.issuer)
  const jwksUrl = httpUrl(issues, 'jwksUrl', options.jwksUrl)
  if (typeof options.agent !== 'function') issues.push('agent: must be a function of the token claims returning the caller\'s agent')
  const cooldown = nonNegative(issues, 'keyRefetchCooldownMs', options.keyRefetchCooldownMs, 30_000)
  const maxAge = nonNegative(issues, 'keyCacheMaxAgeMs', options.keyCacheMaxAgeMs, 600_000)
  const tolerance = nonNegative(issues, 'clockToleranceSeconds', options.clockToleranceSeconds, 5)
  const required = [...(options.requiredScopes ?? [])]
  if (issues.length > 0 || resource === undefined || jwksUrl === undefined) throw new McpConfigError(issues)
  const audience = options.audience === undefined ? options.resource : typeof options.audience === 'string' ? options.audience : [...options.audience]
  const algorithms = [...(options.algorithms ?? ['RS256', 'PS256', 'ES256', 'EdDSA'])]
  const keys = createRemoteJWKSet(jwksUrl, { cooldownDuration: cooldown, cacheMaxAge: maxAge })
  const path = metadataPath(resource)
  const metadataUrl = new URL(path, resource).href
  const scopes = options.scopesSupported ?? options.requiredScopes
  const document = Object.freeze({
    resource: options.resource,
    authorization_servers: [options.issuer],
    bearer_methods_supported: ['header'],
    ...(scopes === undefined ? {} : { scopes_supported: [...scopes] }),
    ...(options.resourceName === undefined ? {} : { resource_name: options.resourceName }),
  })
  const invalid = (description: string): ServedAuthRefusal => ({ ok: false, status: 401, error: 'invalid_token', description })
  return {
    resourceMetadata: { path, url: metadataUrl, document },
    reloadKeys: () => keys.reload(),
    authenticate: async (authorization) => {
      const token = bearerOf(authorization)
      if (token === undefined) return missing
      if (token === null) return malformed
      let claims: JWTPayload
      try {
        ;({ payload: claims } = await jwtVerify(token, keys, { issuer: options.issuer, audience, algorithms, clockTolerance: tolerance, requiredClaims: ['exp'] }))
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired) return invalid('The access token has expired.')
        if (error instanceof joseErrors.JWTClaimValidationFailed) return invalid(`The access token was not issued for this server (its "${error.claim}" claim does not match).`)
        if (error instanceof joseErrors.JWKSNoMatchingKey) return invalid('The access token is signed with a key the issuer does not publish.')
        if (error instanceof joseErrors.JWSSignatureVerificationFailed) return invalid('The access token\'s signature does not verify.')
        if (error instanceof joseErrors.JWKSTimeout || error instanceof joseErrors.JWKSInvalid || (error instanceof Error && !(error instanceof joseErrors.JOSEError))) {
          return { ok: false, status: 503, error: 'temporarily_unavailable', description: 'The issuer\'s signing keys could not be read; retry later.' }
        }
        return invalid('The access token is not a valid JWT for this server.')
      }
      const granted = typeof claims.scope === 'string' ? claims.scope.split(' ').filter((scope) => scope !== '') : []
      const lacking = required.filter((scope) => !granted.includes(scope))
      if (lacking.length > 0) return { ok: false, status: 403, error: 'insufficient_scope', description: `The access token lacks the scope ${lacking.join(' ')}.`, scope: required.join(' ') }
      if (options.isRevoked !== undefined && (await options.isRevoked(claims))) return invalid('The access token was revoked.')
      const id = options.callerId?.(claims) ?? claims.sub ?? (claims.client_id as string | undefined) ?? (claims.azp as string | undefined)
      if (typeof id !== 'string' || id === '') return invalid('The access token names no caller (no sub or client_id claim).')
      const agent = options.agent(claims)
      if (agent === undefined) return { ok: false, status: 403, error: 'insufficient_scope', description: 'The access token\'s caller is not served by this server (no agent for it).' }
      return { ok: true, caller: { id, agent, scopes: granted } }
    },
  }
}

/** The `WWW-Authenticate` value of a refusal (RFC 6750 §3; `resource_metadata` per RFC 9728 §5.1). */
export function bearerChallenge(refusal: ServedAuthRefusal, metadataUrl: string | undefined): string {
  const quoted = (value: string) => `"${value.replace(/["\\]/g, '')}"`
  const parts: string[] = []
  if (metadataUrl !== undefined) parts.push(`resource_metadata=${quoted(metadataUrl)}`)
  if (refusal.error !== undefined) {
    parts.push(`error=${quoted(refusal.error)}`, `error_description=${quoted(refusal.description)}`)
    if (refusal.scope !== undefined) parts.push(`scope=${quoted(refusal.scope)}`)
  }
  return parts.length === 0 ? 'Bearer' : `Bearer ${parts.join(', ')}`
}

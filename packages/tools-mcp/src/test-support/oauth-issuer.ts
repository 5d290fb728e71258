// A local OAuth 2.1 authorization server for the tests, a few lines over node:http and jose: it publishes its
// signing keys (JWKS), grants client-credentials tokens for the clients it knows, signs any token a test asks for
// (expired, for another audience, with a key it does not publish), and rotates its key.
import { createServer } from 'node:http'
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose'

interface SigningKey {
  readonly kid: string
  readonly privateKey: CryptoKey
  readonly publicJwk: JWK
}

export interface LocalIssuer {
  /** The issuer identifier (`iss`), its base URL. */
  readonly issuer: string
  readonly jwksUrl: string
  readonly tokenUrl: string
  /** How many times the JWKS document was fetched. */
  readonly jwksFetches: number
  /** Signs a token with the current key (or `key`), `exp` in `expiresInSeconds` (default 300; negative: expired). */
  sign(claims: JWTPayload, options?: { readonly expiresInSeconds?: number; readonly key?: SigningKey }): Promise<string>
  /** A key that is never published. */
  strayKey(): Promise<SigningKey>
  /** A new key becomes the signing key and is published; `dropOld` unpublishes the previous ones. */
  rotate(options?: { readonly dropOld?: boolean }): Promise<void>
  close(): Promise<void>
}

async function newKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256')
  const kid = `k${Math.random().toString(36).slice(2, 10)}`
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } }
}

/** Starts the issuer on 127.0.0.1; `clients` maps client ids to their secrets and the scope they are granted. */
export async function startIssuer(clients: Readonly<Record<string, { readonly secret: string; readonly scope: string }>> = {}): Promise<LocalIssuer> {
  let keys = [await newKey()]
  let jwksFetches = 0
  let issuer = ''
  const sign = async (claims: JWTPayload, options: { readonly expiresInSeconds?: number; readonly key?: SigningKey } = {}) => {
    const key = options.key ?? (keys.at(-1) as SigningKey)
    const now = Math.floor(Date.now() / 1000)
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' })
      .setIssuer(issuer)
      .setIssuedAt(now)
      .setExpirationTime(now + (options.expiresInSeconds ?? 300))
      .sign(key.privateKey)
  }
  const http = createServer((request, response) => {
    if (request.url === '/jwks') {
      jwksFetches += 1
      return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: keys.map((key) => key.publicJwk) }))
    }
    if (request.url === '/token' && request.method === 'POST') {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => {
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'))
        const basic = Buffer.from((request.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString('utf8')
        const [id = '', secret = ''] = basic.split(':').map(decodeURIComponent)
        const client = clients[id]
        if (form.get('grant_type') !== 'client_credentials' || client === undefined || client.secret !== secret) {
          return void response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_client', error_description: 'unknown client or wrong secret' }))
        }
        const resource = form.get('resource')
        void sign({ sub: id, client_id: id, scope: client.scope, ...(resource === null ? {} : { aud: resource }) }, { expiresInSeconds: 120 }).then((token) =>
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 120 })),
        )
      })
      return
    }
    response.writeHead(404).end()
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const address = http.address()
  issuer = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`
  return {
    issuer,
    jwksUrl: `${issuer}/jwks`,
    tokenUrl: `${issuer}/token`,
    get jwksFetches() {
      return jwksFetches
    },
    sign,
    strayKey: newKey,
    rotate: async ({ dropOld = false } = {}) => {
      const key = await newKey()
      keys = dropOld ? [key] : [...keys, key]
    },
    close: async () => {
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
}

/** A credential found in text: what kind, and a masked sample safe to show. */
export interface CredentialFinding {
  /** What it looks like: `an assignment to API_TOKEN`, `a private key`, … */
  readonly kind: string
  /** The finding with its secret part masked: `API_TOKEN=sk-d…`. */
  readonly sample: string
}

const ASSIGNMENT = /\b([A-Z][A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|PRIVATE_KEY|ACCESS_KEY))\s*[=:]\s*["']?([^\s"']{4,})/
const PATTERNS: readonly { readonly kind: string; readonly pattern: RegExp }[] = [
  { kind: 'a private key', pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----/ },
  { kind: 'an API key', pattern: /\bsk-[A-Za-z0-9_-]{16,}/ },
  { kind: 'a GitHub token', pattern: /\bgh[pousr]_[A-Za-z0-9]{20,}/ },
  { kind: 'an AWS access key id', pattern: /\bAKIA[0-9A-Z]{16}\b/ },
]

function mask(secret: string): string {
  return `${secret.slice(0, Math.min(4, Math.floor(secret.length / 4)))}…`
}

/**
 * The first thing in `text` that looks like a credential, or `undefined`. A post-execute policy uses it to keep
 * secrets that a tool printed out of the conversation.
 */
export function findCredential(text: string): CredentialFinding | undefined {
  const assignment = ASSIGNMENT.exec(text)
  if (assignment?.[1] !== undefined && assignment[2] !== undefined) {
    return { kind: `an assignment to ${assignment[1]}`, sample: `${assignment[1]}=${mask(assignment[2])}` }
  }
  for (const { kind, pattern } of PATTERNS) {
    const match = pattern.exec(text)
    if (match !== null) return { kind, sample: kind === 'a private key' ? match[0] : mask(match[0]) }
  }
  return undefined
}

/** What stands where a secret was. */
export const REDACTED = '[redacted]'

const globalPatterns: readonly RegExp[] = PATTERNS.map(({ pattern }) => new RegExp(pattern.source, 'g'))
const globalAssignment = new RegExp(ASSIGNMENT.source, 'g')

/** `text` with every credential {@link findCredential} would find replaced by {@link REDACTED} (names of assignments kept). */
export function redactCredentials(text: string): string {
  let redacted = text.replace(globalAssignment, (match: string, _name: string, secret: string) => match.replace(secret, REDACTED))
  for (const pattern of globalPatterns) redacted = redacted.replace(pattern, REDACTED)
  return redacted
}

/**
 * A JSON value with {@link redactCredentials} applied to every string in it (object keys included), as a fresh
 * value; `undefined` stays `undefined`. A post-execute policy applies it to a result's `content`, `meta` and
 * `structuredContent` alike: a secret redacted from the content alone would still be in the others.
 */
export function redactJson<T>(value: T): T {
  if (typeof value === 'string') return redactCredentials(value) as T
  if (Array.isArray(value)) return value.map((item: unknown) => redactJson(item)) as T
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [redactCredentials(key), redactJson(item)])) as T
  }
  return value
}

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

import { createHash } from 'node:crypto'

/** The registry's (and the model providers') tool-name rule. */
export const TOOL_NAME_PATTERN: RegExp = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/

/**
 * A server id: letters, digits, and single `-` or `_` between them, at most 32 characters. No `__`, so the
 * `mcp__<server>__` prefix of one server can never be a prefix of another's names.
 */
export const SERVER_ID_PATTERN: RegExp = /^[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*$/
const maxServerIdLength = 32
const maxNameLength = 64
/**
 * Hex digits of the SHA-256 in a mapped name: 64 bits, so finding a second wire name for a given tool's registry
 * name (a second preimage) is out of reach. Two names a server makes up together can still be brought to collide
 * with enough work (a birthday search over 32 bits), which is why a name never decides drift or approval: the
 * connection binds each registry name to the exact wire name that first held it (see `server-connection.ts`).
 */
const hashLength = 16
const hashedSuffix = new RegExp(`_h[0-9a-f]{${hashLength}}$`)

/** Why a server id is not usable, or `undefined` when it is. */
export function serverIdProblem(id: unknown): string | undefined {
  if (typeof id !== 'string') return 'must be a string'
  if (id.length > maxServerIdLength) return `must be at most ${maxServerIdLength} characters, got ${id.length}`
  if (!SERVER_ID_PATTERN.test(id)) return `must be letters and digits with single - or _ between them (no "__"), got ${JSON.stringify(id)}`
  return undefined
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, hashLength)
}

/**
 * The registry name of a server's tool: `mcp__<server>__<tool>`. A tool name that is already provider-safe and
 * fits keeps its spelling; one with characters outside `[A-Za-z0-9_-]` (mapped to `_`) or too long (cut) gets
 * `_h<16 hex digits>` of a SHA-256 of its exact wire name appended, so the mapping is deterministic and two
 * different wire names do not share a registry name by accident (`tools.a` and `tools_a` differ by their hash; a
 * plain name that ends like a hash is hashed too). The server id comes from the config. The name is for models and
 * people; identity is the wire name: a connection never lets a second wire name inherit a registry name.
 */
export function registryToolName(serverId: string, wireName: string, prefix = `mcp__${serverId}__`): string {
  const mapped = wireName.replace(/[^A-Za-z0-9_-]/g, '_')
  const plain = prefix + mapped
  if (mapped === wireName && wireName !== '' && plain.length <= maxNameLength && !hashedSuffix.test(wireName)) return plain
  const suffix = `_h${shortHash(wireName)}`
  return prefix + mapped.slice(0, Math.max(0, maxNameLength - prefix.length - suffix.length)) + suffix
}

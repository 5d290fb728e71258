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
const hashLength = 10

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
 * `_<hash>` of its exact wire name appended, so the mapping is deterministic and two different wire names never
 * share a registry name (`tools.a` and `tools_a` differ by their hash). The server id comes from the config.
 */
export function registryToolName(serverId: string, wireName: string, prefix = `mcp__${serverId}__`): string {
  const mapped = wireName.replace(/[^A-Za-z0-9_-]/g, '_')
  const plain = prefix + mapped
  if (mapped === wireName && wireName !== '' && plain.length <= maxNameLength && !/_h[0-9a-f]{10}$/.test(wireName)) return plain
  const suffix = `_h${shortHash(wireName)}`
  return prefix + mapped.slice(0, Math.max(0, maxNameLength - prefix.length - suffix.length)) + suffix
}

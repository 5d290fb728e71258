import { createHash } from 'node:crypto'
import type { McpToolDefinition } from './session-types.js'

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/**
 * The fingerprint of a tool's definition as the server lists it: SHA-256 over canonical JSON (sorted keys) of
 * everything that changes what the tool means or may do: name, title, description, inputSchema, outputSchema,
 * annotations and execution. `sha256:<hex>`.
 */
export function fingerprintTool(tool: McpToolDefinition): string {
  const { name, title, description, inputSchema, outputSchema, annotations, execution } = tool
  const body = canonical({ name, title, description, inputSchema, outputSchema, annotations, execution })
  return `sha256:${createHash('sha256').update(body).digest('hex')}`
}

import { createHash } from 'node:crypto'
import type { McpToolDefinition } from './session-types.js'

/** Literal text on {@link canonical}'s work stack; with `container`, the token that ends that container's walk. */
class Text {
  constructor(
    readonly text: string,
    readonly container?: object,
  ) {}
}

const byKey = ([a]: [string, unknown], [b]: [string, unknown]): number => (a < b ? -1 : a > b ? 1 : 0)

/**
 * Canonical JSON (object keys sorted, `undefined` members left out, anything that is not JSON written as `null`),
 * built with an explicit stack: a definition nested tens of thousands of levels deep is hashed like any other (no
 * recursion to overflow), in time linear in its size. Throws a `TypeError` on a cycle, which JSON cannot hold.
 */
function canonical(root: unknown): string {
  const out: string[] = []
  const open = new Set<object>()
  const stack: unknown[] = [root]
  while (stack.length > 0) {
    const item = stack.pop()
    if (item instanceof Text) {
      out.push(item.text)
      if (item.container !== undefined) open.delete(item.container)
      continue
    }
    if (typeof item !== 'object' || item === null) {
      // JSON.stringify gives undefined for undefined, functions and symbols: those are written as null.
      out.push((typeof item === 'bigint' ? undefined : JSON.stringify(item)) ?? 'null')
      continue
    }
    if (open.has(item)) throw new TypeError('fingerprintTool: the tool definition contains a cycle, which JSON cannot hold')
    open.add(item)
    if (Array.isArray(item)) {
      out.push('[')
      stack.push(new Text(']', item))
      for (let index = item.length - 1; index >= 0; index -= 1) {
        stack.push(item[index])
        if (index > 0) stack.push(new Text(','))
      }
      continue
    }
    const entries = Object.entries(item as Record<string, unknown>)
      .filter(([, value]) => value !== undefined)
      .sort(byKey)
    out.push('{')
    stack.push(new Text('}', item))
    for (let index = entries.length - 1; index >= 0; index -= 1) {
      const [key, value] = entries[index] as [string, unknown]
      stack.push(value)
      stack.push(new Text(`${index > 0 ? ',' : ''}${JSON.stringify(key)}:`))
    }
  }
  return out.join('')
}

/**
 * The fingerprint of a tool's definition as the server lists it: SHA-256 over canonical JSON (sorted keys) of
 * everything this client reads from a definition, which is everything that changes what the tool means or may do
 * here: name (the exact wire name), title, description, inputSchema, outputSchema, annotations and execution.
 * `sha256:<64 hex digits>`. Drift is decided on this whole fingerprint, never on a registry name or a prefix of a
 * digest.
 */
export function fingerprintTool(tool: McpToolDefinition): string {
  const { name, title, description, inputSchema, outputSchema, annotations, execution } = tool
  const body = canonical({ name, title, description, inputSchema, outputSchema, annotations, execution })
  return `sha256:${createHash('sha256').update(body).digest('hex')}`
}

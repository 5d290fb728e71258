/** Limits on what one MCP call result may put in front of the model (and on the work of reading it). */
export interface ResultBounds {
  /**
   * UTF-8 bytes of model-facing text across the whole result: text blocks, embedded text resources, and the strings
   * of every other block (a `resource_link`'s name, title and description, the URI of a link or a resource, which
   * is kept whole or its block replaced by a placeholder). MIME types (at most 255 characters), annotations and this
   * client's own markers are bounded on their own. Default 100,000.
   */
  readonly maxTextBytes: number
  /** Content blocks kept; the rest are dropped and counted in a marker. Default 32. */
  readonly maxBlocks: number
  /** Base64 characters of one image, audio or blob block. Default 4 MiB. */
  readonly maxBinaryBytes: number
  /** Bytes of `structuredContent` (as JSON) carried on the result. Default 1 MiB. */
  readonly maxStructuredBytes: number
  /** Deepest nesting of arrays and objects in `structuredContent` that is read at all. Default 128. */
  readonly maxStructuredDepth: number
  /**
   * The most work one `outputSchema` check may take, in units: 50 per schema applied to a value (plus one per
   * keyword in it), one per character a length or equality check reads, 20 per character a pattern reads. A value
   * whose check takes more is not checked and not carried. Default 20,000,000 (at most about 0.2 s of one core).
   */
  readonly maxCheckCost: number
}

/** The defaults of {@link ResultBounds}. */
export const DEFAULT_RESULT_BOUNDS: ResultBounds = Object.freeze({
  maxTextBytes: 100_000,
  maxBlocks: 32,
  maxBinaryBytes: 4 * 1024 * 1024,
  maxStructuredBytes: 1024 * 1024,
  maxStructuredDepth: 128,
  maxCheckCost: 20_000_000,
})

/** Cuts `text` to at most `maxBytes` UTF-8 bytes without splitting a character; returns the kept text and the cut bytes. */
export function cutUtf8(text: string, maxBytes: number): { text: string; omitted: number } {
  // Each UTF-16 unit is at most 3 UTF-8 bytes: a text that short fits without being measured or copied.
  if (text.length * 3 <= maxBytes) return { text, omitted: 0 }
  const bytes = Buffer.byteLength(text, 'utf8')
  if (bytes <= maxBytes) return { text, omitted: 0 }
  const buffer = Buffer.from(text, 'utf8')
  let end = Math.max(0, maxBytes)
  while (end > 0 && ((buffer[end] ?? 0) & 0xc0) === 0x80) end -= 1 // step back to a character boundary
  return { text: buffer.subarray(0, end).toString('utf8'), omitted: bytes - end }
}

/**
 * True when `value` nests arrays and objects deeper than `maxDepth` (the root container is level 1). Iterative,
 * and stops at the first level too deep: a value nested a million levels is answered without walking it all.
 */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  const stack: { readonly value: unknown; readonly depth: number }[] = [{ value, depth: 0 }]
  while (stack.length > 0) {
    const item = stack.pop() as { readonly value: unknown; readonly depth: number }
    if (typeof item.value !== 'object' || item.value === null) continue
    const depth = item.depth + 1
    if (depth > maxDepth) return true
    if (Array.isArray(item.value)) for (const entry of item.value) stack.push({ value: entry, depth })
    else for (const key of Object.keys(item.value)) stack.push({ value: (item.value as Record<string, unknown>)[key], depth })
  }
  return false
}

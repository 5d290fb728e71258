/** Limits on what one MCP call result may put in front of the model. */
export interface ResultBounds {
  /** UTF-8 bytes of text across all blocks (text blocks and embedded text resources). Default 100,000. */
  readonly maxTextBytes: number
  /** Content blocks kept; the rest are dropped and counted in a marker. Default 32. */
  readonly maxBlocks: number
  /** Base64 characters of one image, audio or blob block. Default 4 MiB. */
  readonly maxBinaryBytes: number
  /** Bytes of `structuredContent` (as JSON) carried on the result. Default 1 MiB. */
  readonly maxStructuredBytes: number
}

/** The defaults of {@link ResultBounds}. */
export const DEFAULT_RESULT_BOUNDS: ResultBounds = Object.freeze({
  maxTextBytes: 100_000,
  maxBlocks: 32,
  maxBinaryBytes: 4 * 1024 * 1024,
  maxStructuredBytes: 1024 * 1024,
})

/** Cuts `text` to at most `maxBytes` UTF-8 bytes without splitting a character; returns the kept text and the cut bytes. */
export function cutUtf8(text: string, maxBytes: number): { text: string; omitted: number } {
  const bytes = Buffer.byteLength(text, 'utf8')
  if (bytes <= maxBytes) return { text, omitted: 0 }
  const buffer = Buffer.from(text, 'utf8')
  let end = Math.max(0, maxBytes)
  while (end > 0 && ((buffer[end] ?? 0) & 0xc0) === 0x80) end -= 1 // step back to a character boundary
  return { text: buffer.subarray(0, end).toString('utf8'), omitted: bytes - end }
}

/** True for a UTF-8 continuation byte (`10xxxxxx`). */
function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80
}

/** How many bytes the UTF-8 sequence that starts with `lead` has; 1 for ASCII and for bytes that cannot lead. */
function sequenceLength(lead: number): number {
  if (lead >= 0xc2 && lead <= 0xdf) return 2
  if (lead >= 0xe0 && lead <= 0xef) return 3
  if (lead >= 0xf0 && lead <= 0xf4) return 4
  return 1
}

/**
 * The length of the longest prefix of `bytes[0, end)` that does not end inside a multi-byte UTF-8 sequence: a
 * character whose lead byte is present but whose continuation bytes are not yet (or not within the cut) is left
 * out, so decoding the prefix never produces a replacement character the input did not already imply.
 */
export function completePrefixLength(bytes: Uint8Array, end: number = bytes.length): number {
  const floor = Math.max(0, end - 4)
  for (let index = end - 1; index >= floor; index -= 1) {
    const byte = bytes[index] as number
    if (isContinuation(byte)) continue
    return index + sequenceLength(byte) > end ? index : end
  }
  return end
}

/**
 * How many bytes at `bytes[start…]` are continuation bytes of a character that began before `start` (at most 3):
 * a cut that starts there skips them instead of decoding them as replacement characters.
 */
export function continuationPrefixLength(bytes: Uint8Array, start = 0): number {
  let count = 0
  while (count < 3 && start + count < bytes.length && isContinuation(bytes[start + count] as number)) count += 1
  return count
}

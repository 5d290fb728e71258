import { completePrefixLength, continuationPrefixLength } from './utf8-boundary.js'

/** What a {@link ByteWindow} holds, decoded. */
export interface WindowText {
  /** Everything when nothing was omitted, else the kept head (cut back to a character boundary). */
  head: string
  /** The kept tail (cut forward to a character boundary); `''` when nothing was omitted. */
  tail: string
  /** Bytes between head and tail that are not shown (including the bytes of characters split by the cuts). */
  omittedBytes: number
  /** Bytes this text accounts for: head + omitted + tail (the held-back `carry` excluded). */
  totalBytes: number
  /** Trailing bytes of an unfinished character, held back by a non-final take (empty when `final`). */
  carry: Buffer
}

const empty = Buffer.alloc(0)

/**
 * A bounded byte capture of one output stream: everything while the stream fits in `limit` bytes; once it does
 * not, the first `floor(limit / 2)` bytes (the head) and the latest `limit - head` bytes (the tail) and a count of
 * the rest. Memory stays under `limit` plus one chunk whatever the stream's size. Decoding respects UTF-8
 * character boundaries at both cuts and (for incremental reads) at the end.
 */
export class ByteWindow {
  readonly limit: number
  readonly headLimit: number
  readonly tailLimit: number
  /** Bytes pushed so far. */
  total = 0
  private chunks: Buffer[] | null = []
  private head: Buffer = empty
  private tail: Buffer[] = []
  private tailBytes = 0

  constructor(limit: number) {
    this.limit = limit
    this.headLimit = Math.floor(limit / 2)
    this.tailLimit = limit - this.headLimit
  }

  /** True once the stream outgrew the window (a head and a tail are kept, the middle is counted). */
  get truncated(): boolean {
    return this.chunks === null
  }

  /** Every byte pushed so far, while the window is not truncated (used to start a spill file). */
  contents(): readonly Buffer[] {
    return this.chunks ?? []
  }

  /** Adds the next bytes of the stream. */
  push(chunk: Buffer): void {
    if (chunk.length === 0) return
    this.total += chunk.length
    if (this.chunks !== null) {
      this.chunks.push(chunk)
      if (this.total <= this.limit) return
      const everything = Buffer.concat(this.chunks, this.total)
      this.chunks = null
      this.head = Buffer.from(everything.subarray(0, this.headLimit))
      this.tail = [Buffer.from(everything.subarray(everything.length - this.tailLimit))]
      this.tailBytes = this.tailLimit
      return
    }
    if (chunk.length >= this.tailLimit) {
      // A view, not a copy: it keeps at most this one chunk alive, and copying would cost a memcpy per chunk.
      this.tail = [chunk.subarray(chunk.length - this.tailLimit)]
      this.tailBytes = this.tailLimit
      return
    }
    this.tail.push(chunk)
    this.tailBytes += chunk.length
    while (this.tail.length > 1 && this.tailBytes - (this.tail[0] as Buffer).length >= this.tailLimit) {
      this.tailBytes -= (this.tail.shift() as Buffer).length
    }
  }

  /**
   * Decodes what the window holds. With `final: false` (the stream may continue), an unfinished character at the
   * end is held back as `carry` for the next read instead of being decoded as a replacement character.
   */
  take(final: boolean): WindowText {
    if (this.chunks !== null) {
      const bytes = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.total)
      const end = final ? bytes.length : completePrefixLength(bytes)
      return {
        head: bytes.toString('utf8', 0, end),
        tail: '',
        omittedBytes: 0,
        totalBytes: end,
        carry: end === bytes.length ? empty : Buffer.from(bytes.subarray(end)),
      }
    }
    const headEnd = completePrefixLength(this.head)
    const joined = this.tail.length === 1 ? (this.tail[0] as Buffer) : Buffer.concat(this.tail, this.tailBytes)
    const tailBytes = joined.subarray(joined.length - this.tailLimit)
    const tailStart = continuationPrefixLength(tailBytes)
    const tailEnd = final ? tailBytes.length : Math.max(tailStart, completePrefixLength(tailBytes))
    const carry = tailEnd === tailBytes.length ? empty : Buffer.from(tailBytes.subarray(tailEnd))
    const totalBytes = this.total - carry.length
    return {
      head: this.head.toString('utf8', 0, headEnd),
      tail: tailBytes.toString('utf8', tailStart, tailEnd),
      omittedBytes: totalBytes - headEnd - (tailEnd - tailStart),
      totalBytes,
      carry,
    }
  }
}

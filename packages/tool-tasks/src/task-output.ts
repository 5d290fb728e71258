import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'

/** One read of a task's output: the text from a cursor, and the cursor after it. */
export interface OutputRead {
  /** The output from the cursor (UTF-8, decoded; at most the read limit). */
  readonly text: string
  /** Where the read started (the cursor asked for, or later when output before it was dropped). */
  readonly from: number
  /** The cursor to pass next time: the byte offset after the last byte returned. */
  readonly next: number
  /** Bytes between the cursor asked for and `from` that were dropped (past the spill cap) and can never be read. */
  readonly dropped: number
  /** Bytes after `next` that exist but were not returned (past the read limit): read again from `next`. */
  readonly more: number
}

/** Limits of one task's output. */
export interface TaskOutputLimits {
  /** Bytes kept in memory (the newest). */
  readonly windowBytes: number
  /** Bytes kept in the spill file beyond the window; older ones are dropped. 0: no spill file. */
  readonly spillCapBytes: number
  /** Where the spill file goes (a directory the layer owns). */
  readonly spillDirectory: string
}

/**
 * The output of one task as one byte stream, every chunk appended in order (a `stderr` chunk is marked by the body,
 * not here). The newest `windowBytes` stay in memory; older bytes go to a spill file (created at the first
 * overflow) up to `spillCapBytes`, and bytes older still are dropped. A byte offset (the cursor) names a place in the
 * stream for ever: reading from the same cursor twice returns the same bytes while they are kept, so a repeated read
 * loses nothing.
 */
export class TaskOutput {
  /** Bytes appended in all. */
  total = 0
  /** The first byte offset still readable (older ones were dropped). */
  private start = 0
  /** In-memory chunks covering [memoryStart, total). */
  private chunks: Buffer[] = []
  private memoryStart = 0
  private spillFd: number | null = null
  private spillPathValue: string | undefined
  /** Byte offset of the spill file's first byte. */
  private spillStart = 0
  private spilled = 0

  constructor(
    private readonly id: string,
    private readonly limits: TaskOutputLimits,
  ) {}

  /** The spill file, once there is one. */
  get spillPath(): string | undefined {
    return this.spillPathValue
  }

  /** Appends a chunk (a string is UTF-8 encoded). */
  append(chunk: string | Uint8Array): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    if (bytes.length === 0) return
    this.chunks.push(Buffer.from(bytes)) // a copy: the caller may reuse its buffer
    this.total += bytes.length
    this.trim()
  }

  /** Reads from `cursor` (clamped to what is kept), at most `limit` bytes. */
  read(cursor: number, limit: number): OutputRead {
    const asked = Math.min(Math.max(0, Math.floor(cursor)), this.total)
    const from = Math.max(asked, this.start)
    const end = Math.min(this.total, from + limit)
    const parts: Buffer[] = []
    if (from < this.memoryStart && this.spillFd !== null) {
      const spillEnd = Math.min(end, this.memoryStart)
      const buffer = Buffer.alloc(spillEnd - from)
      readSync(this.spillFd, buffer, 0, buffer.length, from - this.spillStart)
      parts.push(buffer)
    }
    if (end > this.memoryStart) {
      let offset = this.memoryStart
      for (const chunk of this.chunks) {
        const chunkEnd = offset + chunk.length
        if (chunkEnd > Math.max(from, this.memoryStart) && offset < end) {
          parts.push(chunk.subarray(Math.max(0, from - offset), Math.min(chunk.length, end - offset)))
        }
        offset = chunkEnd
        if (offset >= end) break
      }
    }
    return { text: Buffer.concat(parts).toString('utf8'), from, next: end, dropped: from - asked, more: this.total - end }
  }

  /** Releases the spill file (the task was forgotten). */
  dispose(): void {
    if (this.spillFd !== null) {
      closeSync(this.spillFd)
      this.spillFd = null
    }
    if (this.spillPathValue !== undefined) rmSync(this.spillPathValue, { force: true })
    this.chunks = []
  }

  /** Moves what overflows the window to the spill file, and drops what overflows the spill cap. */
  private trim(): void {
    const { windowBytes, spillCapBytes } = this.limits
    while (this.total - this.memoryStart > windowBytes && this.chunks.length > 0) {
      const oldest = this.chunks[0] as Buffer
      const overflow = this.total - this.memoryStart - windowBytes
      const moved = oldest.subarray(0, Math.min(oldest.length, overflow))
      this.spill(moved)
      if (moved.length === oldest.length) this.chunks.shift()
      else this.chunks[0] = oldest.subarray(moved.length)
      this.memoryStart += moved.length
    }
    if (spillCapBytes === 0) this.start = this.memoryStart
    else this.start = Math.max(this.start, this.memoryStart - spillCapBytes)
  }

  private spill(bytes: Buffer): void {
    if (this.limits.spillCapBytes === 0) return
    if (this.spillFd === null) {
      this.spillPathValue = join(this.limits.spillDirectory, `${this.id}.out`)
      this.spillFd = openSync(this.spillPathValue, 'w+', 0o600)
      this.spillStart = this.memoryStart
    }
    // Past twice the cap the file starts over from what is still kept: it never grows beyond about twice the cap.
    if (this.spilled + bytes.length > 2 * this.limits.spillCapBytes) this.restartSpill()
    writeSync(this.spillFd, bytes, 0, bytes.length, this.memoryStart - this.spillStart)
    this.spilled = this.memoryStart - this.spillStart + bytes.length
  }

  private restartSpill(): void {
    const fd = this.spillFd as number
    const keepFrom = Math.max(this.spillStart, this.memoryStart - this.limits.spillCapBytes)
    const kept = Buffer.alloc(this.memoryStart - keepFrom)
    readSync(fd, kept, 0, kept.length, keepFrom - this.spillStart)
    closeSync(fd)
    this.spillFd = openSync(this.spillPathValue as string, 'w+', 0o600)
    writeSync(this.spillFd, kept, 0, kept.length, 0)
    this.spillStart = keepFrom
    this.spilled = kept.length
    this.start = Math.max(this.start, keepFrom)
  }
}

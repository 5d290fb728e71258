import type { Readable } from 'node:stream'
import type { CapturedOutput } from './bash-executor.js'
import { ByteWindow, type WindowText } from './byte-window.js'
import type { SpillStore, SpillWriter } from './spill-store.js'

/**
 * One output stream of a command: the whole-stream window (for the result), an optional window of what arrived
 * since the last incremental read (for background tasks), and a spill file once the stream outgrows the window.
 * While the spill file is behind, the pipe is paused, so the child blocks instead of memory growing.
 */
export class StreamSink {
  readonly label: 'stdout' | 'stderr'
  closed = false
  paused = false
  /** Called with each chunk that arrived, after it was captured (the job's output listeners). */
  onData: ((label: 'stdout' | 'stderr', chunk: Buffer) => void) | null = null
  private readonly window: ByteWindow
  private segment: ByteWindow | null
  private spill: SpillWriter | null = null
  private stream: Readable | null = null
  private readonly spills: SpillStore

  constructor(options: { label: 'stdout' | 'stderr'; windowBytes: number; incremental: boolean; spills: SpillStore }) {
    this.label = options.label
    this.window = new ByteWindow(options.windowBytes)
    this.segment = options.incremental ? new ByteWindow(options.windowBytes) : null
    this.spills = options.spills
  }

  /** Starts reading `stream`; `onClose` runs once when it has closed. */
  attach(stream: Readable, onClose: () => void, onError: (error: unknown) => void): void {
    this.stream = stream
    stream.on('data', (chunk: Buffer) => this.push(chunk))
    stream.on('error', onError)
    stream.once('close', () => {
      this.closed = true
      this.paused = false
      onClose()
    })
  }

  /** Stops reading: used when the pipe stays open after every process of the command is gone (the drain bound). */
  destroy(): void {
    this.stream?.destroy()
  }

  private push(chunk: Buffer): void {
    if (this.spill === null && this.window.total + chunk.length > this.window.limit) {
      this.spill = this.spills.open(this.label)
      for (const piece of this.window.contents()) this.spill.write(piece)
    }
    this.window.push(chunk)
    this.segment?.push(chunk)
    this.onData?.(this.label, chunk)
    if (this.spill !== null && !this.spill.write(chunk)) {
      const stream = this.stream
      if (stream === null) return
      stream.pause()
      this.paused = true
      this.spill.whenDrained(() => {
        this.paused = false
        if (!stream.destroyed) stream.resume()
      })
    }
  }

  /** Flushes and closes the spill file, if any. Never rejects. */
  async closeSpill(): Promise<void> {
    await this.spill?.close()
  }

  /** The whole stream as captured (call after the stream closed). */
  capture(): CapturedOutput {
    return this.toOutput(this.window.take(true))
  }

  /** What arrived since the previous call; an unfinished character is held back unless `final`. */
  read(final: boolean): CapturedOutput {
    const segment = this.segment
    if (segment === null) return this.toOutput(new ByteWindow(this.window.limit).take(true))
    const text = segment.take(final)
    const next = new ByteWindow(this.window.limit)
    next.push(text.carry)
    this.segment = next
    return this.toOutput(text)
  }

  private toOutput(text: WindowText): CapturedOutput {
    return Object.freeze({
      head: text.head,
      tail: text.tail,
      omittedBytes: text.omittedBytes,
      totalBytes: text.totalBytes,
      spill: this.spill === null ? null : this.spill.info(),
    })
  }
}

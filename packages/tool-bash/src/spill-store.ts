import { createWriteStream, mkdtempSync, chmodSync, rmSync, type WriteStream } from 'node:fs'
import { rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { SpillInfo } from './bash-executor.js'

/** Bytes a spill file buffers in memory before the producing stream is paused. */
const SPILL_HIGH_WATER_MARK = 1 << 22

/**
 * The executor's spill files: one private directory (mode 0700, made on first use under `root`), files created
 * exclusively with mode 0600, a cap on the bytes all files together may hold, and removal of everything on
 * {@link SpillStore.dispose}.
 */
export class SpillStore {
  readonly root: string
  readonly capBytes: number
  private directory: string | null = null
  private used = 0
  private sequence = 0
  private disposed = false
  private readonly writers = new Set<SpillWriter>()
  private readonly onError: (message: string, error: unknown) => void

  constructor(options: { root: string; capBytes: number; onError: (message: string, error: unknown) => void }) {
    this.root = options.root
    this.capBytes = options.capBytes
    this.onError = options.onError
  }

  /** The private directory, once made. */
  get path(): string | null {
    return this.directory
  }

  /** Bytes granted to spill files so far. */
  get usedBytes(): number {
    return this.used
  }

  /** Grants up to `bytes` of the remaining cap and returns how many were granted. */
  reserve(bytes: number): number {
    const granted = Math.max(0, Math.min(bytes, this.capBytes - this.used))
    this.used += granted
    return granted
  }

  /** @internal Returns bytes granted to a file that never received them (its writes failed). */
  giveBack(bytes: number): void {
    this.used = Math.max(0, this.used - Math.max(0, bytes))
  }

  /** Opens a new spill file named after `label` (for example `stdout`). */
  open(label: string): SpillWriter {
    if (this.disposed || this.capBytes - this.used <= 0) return new SpillWriter(this, null, 'cap')
    try {
      if (this.directory === null) {
        const directory = mkdtempSync(join(this.root, 'dsh-bash-'))
        chmodSync(directory, 0o700)
        this.directory = directory
      }
    } catch (error) {
      this.onError(`cannot create the spill directory under ${this.root}`, error)
      return new SpillWriter(this, null, 'error', failureCode(error))
    }
    this.sequence += 1
    const path = join(this.directory, `${String(this.sequence).padStart(6, '0')}-${label}.log`)
    const writer = new SpillWriter(this, path, null)
    this.writers.add(writer)
    return writer
  }

  /** @internal */
  report(message: string, error: unknown): void {
    this.onError(message, error)
  }

  /** @internal */
  release(writer: SpillWriter): void {
    this.writers.delete(writer)
  }

  /**
   * Removes the directory with everything in it, synchronously, without waiting for open files (the host is
   * exiting or dying by a signal). Nothing is spilled afterwards. Never throws.
   */
  removeNow(): void {
    this.disposed = true
    const directory = this.directory
    this.directory = null
    if (directory === null) return
    try {
      rmSync(directory, { recursive: true, force: true })
    } catch {
      // Nothing more can be done while the host dies.
    }
  }

  /** Closes every open file and removes the directory with everything in it. Idempotent. */
  async dispose(): Promise<void> {
    this.disposed = true
    await Promise.all([...this.writers].map((writer) => writer.close()))
    const directory = this.directory
    this.directory = null
    if (directory !== null) await rm(directory, { recursive: true, force: true })
  }
}

/** The short reason the model and `meta` get for a failed spill: the error code, else the error's name. */
function failureCode(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code
  if (typeof code === 'string' && /^[A-Z0-9_]{1,32}$/.test(code)) return code
  return error instanceof Error ? error.name : 'unknown error'
}

/**
 * One spill file being written. Writes are queued in order; {@link SpillWriter.write} reports backpressure. What it
 * reports ({@link SpillWriter.info}) is what reached the file: after a failure (the file could not be created, a
 * write hit `ENOSPC`) the byte count is what was really written, and no path is named when nothing was.
 */
export class SpillWriter {
  /** The file this writer creates (it may fail to); {@link SpillWriter.info} says whether it holds anything. */
  readonly path: string | null
  /** Bytes granted by the cap and handed to the stream. */
  private bytes = 0
  private stoppedBy: 'cap' | 'error' | null
  private failure: string | undefined
  private stream: WriteStream | null = null
  private closing: Promise<void> | null = null
  private readonly store: SpillStore
  private drainWaiters: (() => void)[] = []

  constructor(store: SpillStore, path: string | null, stoppedBy: 'cap' | 'error' | null, failure?: string) {
    this.store = store
    this.path = path
    this.stoppedBy = stoppedBy
    this.failure = failure
    if (path !== null) {
      const stream = createWriteStream(path, { flags: 'wx', mode: 0o600, highWaterMark: SPILL_HIGH_WATER_MARK })
      stream.on('error', (error) => {
        if (this.failure === undefined) {
          // Whatever the cap stopped before, the file is now cut by the failure, at what really reached it.
          this.stoppedBy = 'error'
          this.failure = failureCode(error)
          const written = stream.bytesWritten
          store.giveBack(this.bytes - written)
          this.bytes = written
        }
        store.report(`cannot write the spill file ${path}`, error)
        this.wake()
      })
      stream.on('drain', () => this.wake())
      this.stream = stream
    }
  }

  /** What the result reports about this file: never a path to a file that holds nothing of the stream. */
  info(): SpillInfo {
    const failed = this.failure !== undefined
    const nothingSaved = this.path === null || (this.stoppedBy !== null && this.bytes === 0)
    return Object.freeze({
      path: nothingSaved ? null : this.path,
      bytes: this.bytes,
      complete: this.stoppedBy === null,
      stoppedBy: this.stoppedBy,
      ...(failed ? { failure: this.failure } : {}),
    })
  }

  /**
   * Appends `chunk` (as much as the cap allows). Returns false when the file is behind and the producer should
   * pause until {@link SpillWriter.whenDrained} fires.
   */
  write(chunk: Buffer): boolean {
    const stream = this.stream
    if (this.stoppedBy !== null || stream === null || this.closing !== null) return true
    const granted = this.store.reserve(chunk.length)
    if (granted < chunk.length) {
      this.stoppedBy = 'cap'
      if (granted > 0) stream.write(chunk.subarray(0, granted))
      this.bytes += granted
      void this.close()
      return true
    }
    this.bytes += granted
    return stream.write(chunk)
  }

  /** Calls `callback` once the buffered writes drained (or the file failed or closed). */
  whenDrained(callback: () => void): void {
    if (this.stream === null || this.stoppedBy === 'error' || !this.stream.writableNeedDrain) {
      queueMicrotask(callback)
      return
    }
    this.drainWaiters.push(callback)
  }

  private wake(): void {
    const waiters = this.drainWaiters
    this.drainWaiters = []
    for (const waiter of waiters) waiter()
  }

  /**
   * Flushes and closes the file, then checks that it is still there (a command can delete its own spill file):
   * a file that is gone is reported as a failure (`removed`), with no path. Idempotent; never rejects.
   */
  close(): Promise<void> {
    if (this.closing !== null) return this.closing
    const stream = this.stream
    const flushed =
      stream === null || stream.closed
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            stream.once('close', () => resolve())
            stream.end()
          })
    this.closing = flushed.then(() => this.checkKept())
    void this.closing.then(() => {
      this.wake()
      this.store.release(this)
    })
    return this.closing
  }

  private async checkKept(): Promise<void> {
    const path = this.path
    if (path === null || this.bytes === 0 || this.failure !== undefined) return
    try {
      const file = await stat(path)
      if (file.isFile() && file.size >= this.bytes) return
    } catch {
      // Gone (or no longer reachable): reported below.
    }
    this.stoppedBy = 'error'
    this.failure = 'removed'
    this.bytes = 0
  }
}

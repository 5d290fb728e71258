import {
  closeSync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  truncateSync,
  unlinkSync,
  writeSync,
} from 'node:fs'
import { basename, dirname, isAbsolute, join, resolve } from 'node:path'
import type { StoredTask, TaskStore } from './task-store.js'
import { DEFAULT_JSONL_TASK_STORE_COMPACT_AFTER, JSONL_TASK_STORE_FORMAT_VERSION, MAX_JSONL_TASK_STORE_LINE_BYTES } from './jsonl-task-store-constants.js'
import { TaskStoreConfigError } from './task-store-config-error.js'
import { TaskStoreInUseError } from './task-store-in-use-error.js'
import { TaskStoreCorruptError } from './task-store-corrupt-error.js'
import { TaskStoreVersionError } from './task-store-version-error.js'
import { TaskStoreRecordError } from './task-store-record-error.js'
import { TaskStoreRecordTooLargeError } from './task-store-record-too-large-error.js'
import { TaskStoreIoError } from './task-store-io-error.js'
import { TaskStoreUnavailableError, type TaskStoreUnavailableReason } from './task-store-unavailable-error.js'

export { DEFAULT_JSONL_TASK_STORE_COMPACT_AFTER, JSONL_TASK_STORE_FORMAT_VERSION, MAX_JSONL_TASK_STORE_LINE_BYTES, TASK_STORE_ERROR_CODES } from './jsonl-task-store-constants.js'
export { TaskStoreConfigError } from './task-store-config-error.js'
export { TaskStoreInUseError } from './task-store-in-use-error.js'
export { TaskStoreCorruptError } from './task-store-corrupt-error.js'
export { TaskStoreVersionError } from './task-store-version-error.js'
export { TaskStoreRecordError } from './task-store-record-error.js'
export { TaskStoreRecordTooLargeError } from './task-store-record-too-large-error.js'
export { TaskStoreIoError, type TaskStoreOperation } from './task-store-io-error.js'
export { TaskStoreUnavailableError, type TaskStoreUnavailableReason } from './task-store-unavailable-error.js'

/** Everything {@link JsonlTaskStore} reports through {@link JsonlTaskStoreOptions.onError}. */
export type JsonlTaskStoreProblem =
  | TaskStoreCorruptError
  | TaskStoreRecordError
  | TaskStoreRecordTooLargeError
  | TaskStoreIoError
  | TaskStoreUnavailableError

/** Options of {@link JsonlTaskStore}. */
export interface JsonlTaskStoreOptions {
  /**
   * The file, as an absolute path. Its directory is created (mode 0700) when missing; the file is created with mode
   * 0600.
   */
  readonly path: string
  /**
   * Called with each problem the store survives: a failed write, a torn or invalid line skipped by `load`, a record
   * too large or malformed, a call refused. Never called for what `load` rejects with. An exception it throws is
   * swallowed. Default: nothing is reported.
   */
  readonly onError?: ((error: JsonlTaskStoreProblem) => void) | undefined
  /**
   * A write that would leave more than this many lines appended since the last compaction compacts the file instead
   * (rewrites it with one line per live task), so the file holds at most one line per live task plus this many.
   * `Infinity` compacts only in `load`. A positive integer. Default {@link DEFAULT_JSONL_TASK_STORE_COMPACT_AFTER}
   * (1000).
   */
  readonly compactAfter?: number | undefined
}

const openPathsKey = Symbol.for('dsh.tool-tasks.JsonlTaskStore.openPaths')

/** Shared through `globalThis`, so two installed copies of this package still see each other's open files. */
function openPaths(): Set<string> {
  const holder = globalThis as unknown as Record<symbol, Set<string> | undefined>
  let paths = holder[openPathsKey]
  if (paths === undefined) {
    paths = new Set()
    holder[openPathsKey] = paths
  }
  return paths
}

const newline = 0x0a
const readChunkBytes = 1024 * 1024
const compactWriteBatchBytes = 4 * 1024 * 1024
/** After a failed compaction, the next attempt waits this long, so a full disk does not cost a rewrite per write. */
const compactionRetryMs = 5000
const taskStatuses: ReadonlySet<string> = new Set(['working', 'input_required', 'completed', 'failed', 'cancelled'])
const utf8 = new TextDecoder('utf-8', { fatal: true })
let tempCounter = 0

type Phase = 'new' | 'loaded' | 'load-failed' | 'closed'

/** What one line of the file holds. */
type ParsedLine =
  | { readonly kind: 'save'; readonly task: StoredTask; readonly text: string }
  | { readonly kind: 'drop'; readonly id: string }
  | { readonly kind: 'malformed'; readonly problem: string }
  | { readonly kind: 'newer'; readonly version: number }
  | { readonly kind: 'invalid'; readonly id: string | undefined; readonly problem: string }

/**
 * A {@link TaskStore} in an append-only JSON-lines file: every `save` and `drop` appends one line, `load` replays
 * them, and the file is compacted (rewritten with one line per live task) after `load` and every `compactAfter`
 * appended lines.
 *
 * **Format.** One JSON object per line, UTF-8, each ending in `\n`, each carrying the format version `v` (1):
 * `{"v":1,"op":"save","task":{…StoredTask}}` or `{"v":1,"op":"drop","id":"…"}`. The latest record of an id wins, a
 * drop removes it, and `load` returns the live tasks by `startedAt`, ties in order of first appearance. A line of a
 * newer version fails `load` ({@link TaskStoreVersionError}); so does a complete line that is not a record
 * ({@link TaskStoreCorruptError}, naming the line). A last line without its newline is a write cut short by a crash:
 * skipped and reported (or kept, when it is nonetheless a whole record). A record without the `StoredTask` shape is
 * skipped and reported ({@link TaskStoreRecordError}). Lines are at most {@link MAX_JSONL_TASK_STORE_LINE_BYTES}.
 *
 * **Durability.** `save` and `drop` write their line with one `write(2)` on a descriptor kept open in append mode
 * before they return, so once they return the line is in the kernel: a SIGKILL or crash of the process loses
 * nothing. They do not `fsync` (measured on the development machine: about 2 µs per 500-byte save without, 170 to
 * 250 µs with, far more on slower disks, all of it blocking the event loop); lines written in the last seconds
 * before a power loss or kernel crash may be lost, and a line cut short that way is skipped as torn. `close`
 * `fdatasync`s; a compaction `fsync`s the new file before the rename that installs it, and the directory after.
 *
 * **Compaction** writes a temporary file beside the store file (`.<name>.<pid>.<n>.tmp`), `fsync`s it and renames
 * it over the file, so a crash leaves the old file or the new one, never a mix; `load` deletes such temporary files
 * left by a crash. It keeps the latest line of every live task in memory for that (about the size of the file after
 * compaction).
 *
 * **Concurrency.** One store per file. A second store on the same path in one process throws
 * {@link TaskStoreInUseError} until the first is closed; stores in two processes on one file are not detected and
 * not supported (compaction would lose the other's lines). Every method is synchronous inside, so calls never
 * interleave.
 *
 * **Errors.** `save` and `drop` never throw: problems go to `onError` and the store keeps going. Call `load` first:
 * a `save` or `drop` before it, after it failed, or after `close` is refused and reported
 * ({@link TaskStoreUnavailableError}); `close` again does nothing.
 */
export class JsonlTaskStore implements TaskStore {
  /** The file (absolute, normalised). */
  readonly path: string
  readonly #onError: ((error: JsonlTaskStoreProblem) => void) | undefined
  readonly #compactAfter: number
  #phase: Phase = 'new'
  #loadFailure: unknown
  /** The latest line (without its newline) of every live task, in order of first appearance. */
  #live = new Map<string, string>()
  #fd: number | undefined
  /** The file's size as this store wrote it, to cut a partly written line back off after a failed append. */
  #size = 0
  /** The file ends without a newline (a torn or unterminated last line that could not be removed). */
  #tailNeedsNewline = false
  #appendedSinceCompaction = 0
  /** An append failed: the file lacks a record `#live` has, until the next compaction. */
  #repairNeeded = false
  #nextCompactionAttempt = 0

  /**
   * Creates the store; nothing is read or written until {@link JsonlTaskStore.load}.
   *
   * @throws {@link TaskStoreConfigError} for invalid options.
   * @throws {@link TaskStoreInUseError} when a store of this process already holds the file open.
   */
  constructor(options: JsonlTaskStoreOptions) {
    const issues: string[] = []
    const path: unknown = options?.path
    if (typeof path !== 'string' || !isAbsolute(path)) issues.push(`path: must be an absolute file path, got ${describe(path)}`)
    const onError: unknown = options?.onError
    if (onError !== undefined && typeof onError !== 'function') issues.push(`onError: must be a function, got ${describe(onError)}`)
    const compactAfter: unknown = options?.compactAfter ?? DEFAULT_JSONL_TASK_STORE_COMPACT_AFTER
    if (typeof compactAfter !== 'number' || !(compactAfter === Infinity || (Number.isInteger(compactAfter) && compactAfter >= 1))) {
      issues.push(`compactAfter: must be a positive integer or Infinity, got ${describe(compactAfter)}`)
    }
    if (issues.length > 0) throw new TaskStoreConfigError(issues)
    this.path = resolve(path as string)
    this.#onError = onError as ((error: JsonlTaskStoreProblem) => void) | undefined
    this.#compactAfter = compactAfter as number
    const paths = openPaths()
    if (paths.has(this.path)) throw new TaskStoreInUseError(this.path)
    paths.add(this.path)
  }

  /**
   * Reads the file (a missing one holds no tasks), then compacts it when it holds more than one line per live task
   * or a line it skipped. May be called again to re-read the file.
   *
   * @throws {@link TaskStoreCorruptError} for a complete line that is not a record.
   * @throws {@link TaskStoreVersionError} for a line of a newer format.
   * @throws {@link TaskStoreIoError} when the file exists but cannot be read.
   * @throws {@link TaskStoreUnavailableError} after `close`.
   * After a rejection, `save` and `drop` are refused until a `load` succeeds, so the file is left as it is.
   */
  async load(): Promise<StoredTask[]> {
    if (this.#phase === 'closed') throw new TaskStoreUnavailableError(this.path, 'load', 'closed')
    this.#closeDescriptor()
    let read: ReadResult
    try {
      read = this.#read()
    } catch (error) {
      this.#phase = 'load-failed'
      this.#loadFailure = error
      throw error
    }
    this.#live = new Map([...read.live].map(([id, entry]) => [id, entry.line]))
    this.#phase = 'loaded'
    this.#loadFailure = undefined
    this.#size = read.bytes
    this.#tailNeedsNewline = false
    this.#repairNeeded = false
    this.#appendedSinceCompaction = 0
    this.#nextCompactionAttempt = 0
    this.#removeStaleTemporaryFiles()
    const compact = read.lines !== read.live.size || read.skipped || read.unterminated !== 'none'
    if (compact && !this.#compact()) {
      this.#appendedSinceCompaction = read.lines
      if (read.unterminated === 'torn') {
        try {
          truncateSync(this.path, read.completeBytes)
          this.#size = read.completeBytes
        } catch (error) {
          // The next append starts a new line (the fragment becomes a line `load` names); the next compaction drops it.
          this.#tailNeedsNewline = true
          this.#repairNeeded = true
          this.#report(new TaskStoreIoError(this.path, 'truncate', { cause: error }))
        }
      } else if (read.unterminated === 'record') {
        this.#tailNeedsNewline = true
      }
    }
    const tasks = [...read.live.values()].map((entry) => entry.task)
    return tasks.sort((left, right) => left.startedAt - right.startedAt)
  }

  /** Appends `task` as the latest record of its id. Never throws: problems go to `onError`. */
  save(task: StoredTask): void {
    if (!this.#accepts('save')) return
    const problem = storedTaskProblem(task)
    if (problem !== undefined) {
      const id = isRecord(task) && typeof task['id'] === 'string' ? task['id'] : undefined
      this.#report(new TaskStoreRecordError(this.path, undefined, id, problem))
      return
    }
    let line: string
    try {
      line = encodeLine({ v: JSONL_TASK_STORE_FORMAT_VERSION, op: 'save', task })
    } catch (error) {
      this.#report(new TaskStoreRecordError(this.path, undefined, task.id, 'it is not JSON', { cause: error }))
      return
    }
    const bytes = lineBytes(line)
    if (bytes > MAX_JSONL_TASK_STORE_LINE_BYTES) {
      const smaller = task.result === undefined ? undefined : encodeLine({ v: JSONL_TASK_STORE_FORMAT_VERSION, op: 'save', task: { ...task, result: undefined } })
      const fits = smaller !== undefined && lineBytes(smaller) <= MAX_JSONL_TASK_STORE_LINE_BYTES
      this.#report(new TaskStoreRecordTooLargeError(this.path, task.id, bytes, fits))
      if (!fits) return
      line = smaller
    }
    if (this.#live.get(task.id) === line) return
    this.#live.set(task.id, line)
    this.#write(line)
  }

  /** Appends a drop of `id` (nothing when no live task has it). Never throws: problems go to `onError`. */
  drop(id: string): void {
    if (!this.#accepts('drop')) return
    if (typeof id !== 'string' || id === '') {
      this.#report(new TaskStoreRecordError(this.path, undefined, undefined, `a drop needs a non-empty string id, got ${describe(id)}`))
      return
    }
    if (!this.#live.delete(id)) return
    this.#write(encodeLine({ v: JSONL_TASK_STORE_FORMAT_VERSION, op: 'drop', id }))
  }

  /**
   * `fdatasync`s and closes the file and releases it for another store of this process. Failures go to `onError`.
   * A second `close` does nothing; `save` and `drop` after it are refused and reported.
   */
  async close(): Promise<void> {
    if (this.#phase === 'closed') return
    this.#phase = 'closed'
    this.#live = new Map()
    const fd = this.#fd
    this.#fd = undefined
    try {
      if (fd !== undefined) {
        try {
          fdatasyncSync(fd)
        } catch (error) {
          this.#report(new TaskStoreIoError(this.path, 'sync', { cause: error }))
        }
        try {
          closeSync(fd)
        } catch (error) {
          this.#report(new TaskStoreIoError(this.path, 'close', { cause: error }))
        }
      }
    } finally {
      openPaths().delete(this.path)
    }
  }

  #accepts(operation: 'save' | 'drop'): boolean {
    if (this.#phase === 'loaded') return true
    const reason: TaskStoreUnavailableReason = this.#phase === 'new' ? 'not-loaded' : this.#phase
    this.#report(
      new TaskStoreUnavailableError(this.path, operation, reason, reason === 'load-failed' ? { cause: this.#loadFailure } : undefined),
    )
    return false
  }

  #report(error: JsonlTaskStoreProblem): void {
    try {
      this.#onError?.(error)
    } catch {
      // onError is the host's; its failure must not become the store's.
    }
  }

  /** Writes `line` (already reflected in `#live`): by a compaction when one is due, else by an append. */
  #write(line: string): void {
    const due = this.#repairNeeded || this.#appendedSinceCompaction >= this.#compactAfter
    if (due && Date.now() >= this.#nextCompactionAttempt && this.#compact()) return
    this.#append(line)
  }

  #append(line: string): void {
    const fd = this.#descriptor()
    if (fd === undefined) {
      this.#repairNeeded = true
      return
    }
    // Encoded straight into one buffer: `line + '\n'` would copy a result of megabytes once more.
    const prefix = this.#tailNeedsNewline ? 1 : 0
    const size = Buffer.byteLength(line, 'utf8')
    const bytes = Buffer.allocUnsafe(prefix + size + 1)
    if (prefix === 1) bytes[0] = newline
    bytes.write(line, prefix, 'utf8')
    bytes[prefix + size] = newline
    let written = 0
    try {
      // One write(2) in practice; a short write (a full disk) is continued, and its error handled below.
      while (written < bytes.length) written += writeSync(fd, bytes, written)
    } catch (error) {
      this.#repairNeeded = true
      this.#report(new TaskStoreIoError(this.path, 'append', { cause: error }))
      if (written > 0) {
        try {
          ftruncateSync(fd, this.#size)
        } catch (truncateError) {
          this.#tailNeedsNewline = true
          this.#report(new TaskStoreIoError(this.path, 'truncate', { cause: truncateError }))
        }
      }
      return
    }
    this.#size += bytes.length
    this.#tailNeedsNewline = false
    this.#appendedSinceCompaction += 1
  }

  #descriptor(): number | undefined {
    if (this.#fd !== undefined) return this.#fd
    try {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 })
      const fd = openSync(this.path, 'a', 0o600)
      try {
        this.#size = fstatSync(fd).size
      } catch (error) {
        closeSync(fd)
        throw error
      }
      this.#fd = fd
      return fd
    } catch (error) {
      this.#report(new TaskStoreIoError(this.path, 'open', { cause: error }))
      return undefined
    }
  }

  #closeDescriptor(): void {
    const fd = this.#fd
    this.#fd = undefined
    if (fd === undefined) return
    try {
      closeSync(fd)
    } catch {
      // The descriptor's data is already in the kernel; a failed close loses nothing of it.
    }
  }

  /** Rewrites the file with one line per live task: temporary file, fsync, rename, fsync of the directory. */
  #compact(): boolean {
    const directory = dirname(this.path)
    tempCounter += 1
    const temporary = join(directory, `.${basename(this.path)}.${process.pid}.${tempCounter}.tmp`)
    let fd: number | undefined
    let size = 0
    try {
      mkdirSync(directory, { recursive: true, mode: 0o700 })
      fd = openSync(temporary, 'wx', 0o600)
      let batch: string[] = []
      let batchBytes = 0
      const flush = (descriptor: number) => {
        const bytes = Buffer.from(batch.join(''), 'utf8')
        let written = 0
        while (written < bytes.length) written += writeSync(descriptor, bytes, written)
        size += bytes.length
        batch = []
        batchBytes = 0
      }
      for (const line of this.#live.values()) {
        batch.push(line, '\n')
        batchBytes += line.length + 1
        if (batchBytes >= compactWriteBatchBytes) flush(fd)
      }
      flush(fd)
      fsyncSync(fd)
      closeSync(fd)
      fd = undefined
      renameSync(temporary, this.path)
    } catch (error) {
      if (fd !== undefined) {
        try {
          closeSync(fd)
        } catch {
          // Already failing; the temporary file is removed next.
        }
      }
      try {
        unlinkSync(temporary)
      } catch {
        // Never created, or `load` removes it later.
      }
      this.#nextCompactionAttempt = Date.now() + compactionRetryMs
      this.#report(new TaskStoreIoError(this.path, 'compact', { cause: error }))
      return false
    }
    this.#closeDescriptor()
    this.#size = size
    this.#tailNeedsNewline = false
    this.#appendedSinceCompaction = 0
    this.#repairNeeded = false
    this.#nextCompactionAttempt = 0
    try {
      const directoryFd = openSync(directory, 'r')
      try {
        fsyncSync(directoryFd)
      } finally {
        closeSync(directoryFd)
      }
    } catch (error) {
      // The rename is done (a process crash keeps it); only its survival of a power loss is in doubt.
      this.#report(new TaskStoreIoError(this.path, 'sync', { cause: error }))
    }
    return true
  }

  #removeStaleTemporaryFiles(): void {
    const pattern = new RegExp(`^\\.${escapeRegExp(basename(this.path))}\\.\\d+\\.\\d+\\.tmp$`)
    let names: string[]
    try {
      names = readdirSync(dirname(this.path))
    } catch {
      return // no directory: no leftovers
    }
    for (const name of names) {
      if (!pattern.test(name)) continue
      try {
        unlinkSync(join(dirname(this.path), name))
      } catch {
        // A leftover that cannot be removed is harmless: nothing reads it.
      }
    }
  }

  #read(): ReadResult {
    const result: ReadResult = { live: new Map(), lines: 0, bytes: 0, completeBytes: 0, skipped: false, unterminated: 'none' }
    let fd: number
    try {
      fd = openSync(this.path, 'r')
    } catch (error) {
      if (isErrnoException(error) && error.code === 'ENOENT') return result
      throw new TaskStoreIoError(this.path, 'read', { cause: error })
    }
    try {
      let pieces: Buffer[] = []
      let pieceBytes = 0
      let overlong = false
      const take = (piece: Buffer) => {
        if (overlong) return
        if (pieceBytes + piece.length > MAX_JSONL_TASK_STORE_LINE_BYTES) {
          overlong = true
          pieces = []
          return
        }
        pieces.push(piece)
        pieceBytes += piece.length
      }
      const finish = (terminated: boolean) => {
        result.lines += 1
        const parsed = overlong
          ? ({ kind: 'malformed', problem: `longer than ${MAX_JSONL_TASK_STORE_LINE_BYTES} bytes` } as const)
          : parseLine(pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces, pieceBytes))
        this.#apply(parsed, result, terminated)
        pieces = []
        pieceBytes = 0
        overlong = false
      }
      for (;;) {
        const chunk = Buffer.allocUnsafe(readChunkBytes)
        let filled: number
        try {
          filled = readSync(fd, chunk, 0, chunk.length, null)
        } catch (error) {
          throw new TaskStoreIoError(this.path, 'read', { cause: error })
        }
        if (filled === 0) break
        let start = 0
        for (;;) {
          const end = chunk.indexOf(newline, start)
          if (end === -1 || end >= filled) {
            if (start < filled) take(chunk.subarray(start, filled))
            break
          }
          take(chunk.subarray(start, end))
          finish(true)
          start = end + 1
          result.completeBytes = result.bytes + start
        }
        result.bytes += filled
      }
      if (pieceBytes > 0 || overlong) finish(false)
    } finally {
      closeSync(fd)
    }
    return result
  }

  #apply(parsed: ParsedLine, result: ReadResult, terminated: boolean): void {
    const line = result.lines
    switch (parsed.kind) {
      case 'save': {
        // The line as read is the line a compaction writes (version 1 is the only one). Map.set keeps an existing id
        // in place: order of first appearance.
        result.live.set(parsed.task.id, { task: parsed.task, line: parsed.text })
        break
      }
      case 'drop':
        result.live.delete(parsed.id)
        break
      case 'newer':
        throw new TaskStoreVersionError(this.path, line, parsed.version)
      case 'malformed':
        if (terminated) throw new TaskStoreCorruptError(this.path, line, parsed.problem, false)
        result.skipped = true
        result.unterminated = 'torn'
        this.#report(new TaskStoreCorruptError(this.path, line, parsed.problem, true))
        return
      case 'invalid':
        result.skipped = true
        this.#report(new TaskStoreRecordError(this.path, line, parsed.id, parsed.problem))
        break
    }
    if (!terminated) result.unterminated = 'record'
  }
}

interface ReadResult {
  readonly live: Map<string, { readonly task: StoredTask; readonly line: string }>
  /** Lines read, the last one included whether or not it ends in a newline. */
  lines: number
  bytes: number
  /** Bytes up to and including the last newline. */
  completeBytes: number
  /** A line was skipped (invalid, or torn). */
  skipped: boolean
  /** The last line has no newline: `torn` (skipped) or `record` (a whole record, kept). */
  unterminated: 'none' | 'torn' | 'record'
}

function encodeLine(record: { v: number; op: 'save'; task: StoredTask } | { v: number; op: 'drop'; id: string }): string {
  return JSON.stringify(record)
}

function lineBytes(line: string): number {
  // A UTF-16 code unit is at most 3 UTF-8 bytes: short lines skip the exact count.
  return line.length * 3 <= MAX_JSONL_TASK_STORE_LINE_BYTES ? line.length : Buffer.byteLength(line, 'utf8')
}

function parseLine(bytes: Buffer): ParsedLine {
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    return { kind: 'malformed', problem: 'not valid UTF-8' }
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { kind: 'malformed', problem: `not JSON (${error instanceof Error ? error.message : String(error)})` }
  }
  if (!isRecord(value)) return { kind: 'malformed', problem: 'not a JSON object' }
  const version = value['v']
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    return { kind: 'malformed', problem: `no format version ("v" must be a positive integer, got ${describe(version)})` }
  }
  if (version > JSONL_TASK_STORE_FORMAT_VERSION) return { kind: 'newer', version }
  const op = value['op']
  if (op === 'drop') {
    const id = value['id']
    if (typeof id === 'string' && id !== '') return { kind: 'drop', id }
    return { kind: 'invalid', id: undefined, problem: `a drop needs a non-empty string "id", got ${describe(id)}` }
  }
  if (op === 'save') {
    const task = value['task']
    const problem = storedTaskProblem(task)
    if (problem === undefined) return { kind: 'save', task: task as StoredTask, text }
    const id = isRecord(task) && typeof task['id'] === 'string' ? task['id'] : undefined
    return { kind: 'invalid', id, problem }
  }
  return { kind: 'invalid', id: undefined, problem: `"op" must be "save" or "drop", got ${describe(op)}` }
}

/** The first way `value` differs from a `StoredTask`, or undefined when it has the shape. */
function storedTaskProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return `a task must be an object, got ${describe(value)}`
  const task = value
  if (typeof task['id'] !== 'string' || task['id'] === '') return `id: must be a non-empty string, got ${describe(task['id'])}`
  if (task['owner'] !== null && typeof task['owner'] !== 'string') return `owner: must be a string or null, got ${describe(task['owner'])}`
  for (const key of ['tool', 'callId', 'title'] as const) {
    if (typeof task[key] !== 'string') return `${key}: must be a string, got ${describe(task[key])}`
  }
  if (typeof task['status'] !== 'string' || !taskStatuses.has(task['status'])) return `status: must be a task status, got ${describe(task['status'])}`
  if (!isFiniteNumber(task['startedAt'])) return `startedAt: must be a finite number, got ${describe(task['startedAt'])}`
  if (task['endedAt'] !== undefined && !isFiniteNumber(task['endedAt'])) return `endedAt: must be a finite number, got ${describe(task['endedAt'])}`
  if (task['error'] !== undefined && !isErrorInfo(task['error'])) return `error: must be { name, code } strings, got ${describe(task['error'])}`
  if (task['spillPath'] !== undefined && typeof task['spillPath'] !== 'string') return `spillPath: must be a string, got ${describe(task['spillPath'])}`
  if (!isFiniteNumber(task['outputBytes']) || task['outputBytes'] < 0) return `outputBytes: must be a number >= 0, got ${describe(task['outputBytes'])}`
  const result = task['result']
  if (result === undefined) return undefined
  if (!isRecord(result)) return `result: must be an object, got ${describe(result)}`
  if (typeof result['isError'] !== 'boolean') return `result.isError: must be a boolean, got ${describe(result['isError'])}`
  if (result['error'] !== undefined && !isErrorInfo(result['error'])) return `result.error: must be { name, code } strings, got ${describe(result['error'])}`
  const content = result['content']
  if (!Array.isArray(content)) return `result.content: must be an array, got ${describe(content)}`
  const index = content.findIndex((block: unknown) => !isRecord(block) || typeof block['type'] !== 'string')
  if (index !== -1) return `result.content[${index}]: must be a content block (an object with a string "type")`
  return undefined
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value)
}

function isErrorInfo(value: unknown): boolean {
  return isRecord(value) && typeof value['name'] === 'string' && typeof value['code'] === 'string'
}

function isErrnoException(value: unknown): value is NodeJS.ErrnoException {
  return value instanceof Error && 'code' in value
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined'
  if (value === null) return 'null'
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return Array.isArray(value) ? 'an array' : typeof value
}

import type { TerminalResultView, ToolResult } from '@dsh/tools-core'
import { terminalResult } from './card-builders.js'
import { contentText } from './content-text.js'

/**
 * The structured exit status a terminal tool (such as `bash`) puts in its result's `meta`, so presenters and UIs
 * read how a command ended as data instead of parsing it back out of the model-facing text. Other keys may sit next
 * to these in the same `meta` object; {@link readTerminalResultMeta} ignores them.
 */
export interface TerminalResultMeta {
  /** The exit code; `null` when the process did not exit on its own (a signal ended it). */
  exitCode: number | null
  /** The signal that ended the process (`SIGTERM`, `SIGKILL`, …), or `null`. */
  signal: string | null
  /** True when the command ran past its timeout and was stopped. */
  timedOut: boolean
  /** How long the command ran, in milliseconds, when the tool measured it. */
  durationMs?: number
}

/** What {@link terminalResultMeta} takes: only `exitCode` is required. */
export interface TerminalResultMetaInput {
  /** The exit code; `null` when a signal ended the process. */
  exitCode: number | null
  /** The signal that ended the process; defaults to `null`. */
  signal?: string | null | undefined
  /** Defaults to `false`. */
  timedOut?: boolean | undefined
  /** How long the command ran, in milliseconds. */
  durationMs?: number | undefined
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Builds the {@link TerminalResultMeta} a terminal tool returns as its result's `meta` (lossless JSON). */
export function terminalResultMeta(input: TerminalResultMetaInput): TerminalResultMeta {
  const meta: TerminalResultMeta = {
    exitCode: input.exitCode,
    signal: input.signal ?? null,
    timedOut: input.timedOut ?? false,
  }
  if (input.durationMs !== undefined) meta.durationMs = input.durationMs
  return meta
}

/**
 * Reads a {@link TerminalResultMeta} out of a result's `meta` and checks it: `exitCode` an integer or `null`,
 * `signal` a non-empty string or `null`, `timedOut` a boolean, `durationMs` (optional) a finite number ≥ 0.
 * Returns a fresh object with just those fields, or `undefined` when `meta` is absent or does not have that shape
 * (the exit status is then unknown: it is never guessed from the output text).
 */
export function readTerminalResultMeta(meta: unknown): TerminalResultMeta | undefined {
  if (!isRecord(meta)) return undefined
  const { exitCode, signal, timedOut, durationMs } = meta
  if (exitCode !== null && !Number.isSafeInteger(exitCode)) return undefined
  if (signal !== null && (typeof signal !== 'string' || signal.length === 0)) return undefined
  if (typeof timedOut !== 'boolean') return undefined
  if (durationMs !== undefined && !(typeof durationMs === 'number' && Number.isFinite(durationMs) && durationMs >= 0)) {
    return undefined
  }
  const read: TerminalResultMeta = { exitCode: exitCode as number | null, signal, timedOut }
  if (durationMs !== undefined) read.durationMs = durationMs
  return read
}

/** Options of {@link terminalResultFromMeta}. */
export interface TerminalResultFromMetaOptions {
  /** Replaces the pending title. */
  title?: string | undefined
  /** The output to show; defaults to the text of the result's content. */
  output?: string | undefined
}

/**
 * The `terminal` result card of a terminal tool's result: the output (the result's text unless given) and the exit
 * status from `result.meta` (see {@link readTerminalResultMeta}). When `meta` holds no valid exit status the card
 * carries none; the output is never parsed for one, so a command that prints `[exit code: 3]` cannot fake it.
 */
export function terminalResultFromMeta(
  result: ToolResult,
  options: TerminalResultFromMetaOptions = {},
): TerminalResultView {
  const meta = readTerminalResultMeta(result.meta)
  return terminalResult({
    title: options.title,
    output: options.output ?? contentText(result.content),
    exitCode: meta?.exitCode,
    signal: meta?.signal,
    timedOut: meta?.timedOut,
  })
}

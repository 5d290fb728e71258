import type {
  CodeCallView,
  CodeLanguage,
  CodeResultView,
  CodeRunStatus,
  CodeSubCall,
  TaskProgress,
  TaskResultView,
  TaskStatus,
  ContentBlock,
  DiffCallView,
  DiffResultView,
  FileDiff,
  FileLocation,
  GenericCallView,
  GenericResultView,
  TerminalCallView,
  TerminalResultView,
  ToolCallKind,
} from '@dsh/tools-core'
import { firstChangedLine } from './diff-hunks.js'
import { findToolCallViewIssue, findToolResultViewIssue } from './validate-card.js'

/** What {@link genericCall} takes. Optional fields may be `undefined`; they are left out of the card. */
export interface GenericCallInput {
  /** One line shown as the card's heading. */
  title: string
  /** Picks the card's icon. */
  kind?: ToolCallKind | undefined
  /** The call's arguments as the UI may show them. */
  rawInput?: unknown
  /** Extra content shown while the call runs. */
  content?: readonly ContentBlock[] | undefined
  /** Files the call reads or changes. */
  locations?: readonly FileLocation[] | undefined
}

/** What {@link terminalCall} takes. */
export interface TerminalCallInput {
  /** The heading: usually the command line. */
  title: string
  /** What the command is for, in words. */
  description?: string | undefined
  /** The directory the command runs in. */
  cwd?: string | undefined
}

/** What {@link diffCall} takes. */
export interface DiffCallInput {
  /** The heading: usually the file's path. */
  title: string
  /** The changes the call proposes. */
  diffs: readonly FileDiff[]
  /**
   * Files the call changes. Defaults to one location per distinct diff path, at its first changed line; pass `[]`
   * for none.
   */
  locations?: readonly FileLocation[] | undefined
}

/** What {@link genericResult} takes. */
export interface GenericResultInput {
  /** Replaces the pending title. */
  title?: string | undefined
  /** The content to show; a consumer defaults it to the result's content. */
  content?: readonly ContentBlock[] | undefined
}

/** What {@link terminalResult} takes. */
export interface TerminalResultInput {
  /** Replaces the pending title. */
  title?: string | undefined
  /** The captured output, possibly truncated. */
  output?: string | undefined
  /** The exit code; `null` when a signal ended the process. */
  exitCode?: number | null | undefined
  /** The signal that ended the process, or `null`. */
  signal?: string | null | undefined
  /** True when the command ran past its timeout and was stopped. */
  timedOut?: boolean | undefined
}

/** What {@link taskResult} takes. */
export interface TaskResultInput {
  /** Replaces the pending title. */
  title?: string | undefined
  /** The task's id. */
  taskId: string
  /** Where the task is. */
  status: TaskStatus
  /** The task's last status message. */
  statusMessage?: string | undefined
  /** The task's last progress report. */
  progress?: TaskProgress | undefined
  /** The output to show (its tail); a consumer defaults it to the result's text. */
  output?: string | undefined
}

/** What {@link codeCall} takes. */
export interface CodeCallInput {
  /** The heading: usually what the program does. */
  title: string
  /** The language the program is written in. */
  language: CodeLanguage
  /** The program, as the model wrote it. */
  code: string
  /** What the program is for, in words. */
  description?: string | undefined
}

/** What {@link codeResult} takes. */
export interface CodeResultInput {
  /** Replaces the pending title. */
  title?: string | undefined
  /** How the run ended. */
  status: CodeRunStatus
  /** Why a failed run failed, in words. */
  error?: string | undefined
  /** How long the run took, in milliseconds (finite, not negative). */
  durationMs?: number | undefined
  /** The captured console output (the card shows its tail). */
  logs?: string | undefined
  /** The returned value as text (the card shows its tail). */
  value?: string | undefined
  /** Every tool call the program made, in the order they ended. Default: none. */
  subCalls?: readonly Readonly<CodeSubCall>[] | undefined
}

/** What {@link diffResult} takes. */
export interface DiffResultInput {
  /** Replaces the pending title. */
  title?: string | undefined
  /** The applied changes. */
  diffs: readonly FileDiff[]
}

function copyLocation(location: FileLocation): FileLocation {
  return location.line === undefined ? { path: location.path } : { path: location.path, line: location.line }
}

/** A detached {@link FileDiff}: `oldText` is `null` for a file the change creates. */
export function fileDiff(path: string, oldText: string | null, newText: string): FileDiff {
  return { path, oldText, newText }
}

/**
 * One location per distinct path of `diffs`, in order, at the first line where old and new text differ (line 1 for
 * a new file; no line when the texts are equal).
 */
export function diffLocations(diffs: readonly FileDiff[]): FileLocation[] {
  const seen = new Set<string>()
  const locations: FileLocation[] = []
  for (const diff of diffs) {
    if (seen.has(diff.path)) continue
    seen.add(diff.path)
    const line = firstChangedLine(diff.oldText, diff.newText)
    locations.push(line === undefined ? { path: diff.path } : { path: diff.path, line })
  }
  return locations
}

/** A `generic` pending card. */
export function genericCall(input: GenericCallInput): GenericCallView {
  const view: GenericCallView = { card: 'generic', title: input.title }
  if (input.kind !== undefined) view.kind = input.kind
  if (input.rawInput !== undefined) view.rawInput = input.rawInput
  if (input.content !== undefined) view.content = [...input.content]
  if (input.locations !== undefined) view.locations = input.locations.map(copyLocation)
  return view
}

/** A `terminal` pending card: a shell command. */
export function terminalCall(input: TerminalCallInput): TerminalCallView {
  const view: TerminalCallView = { card: 'terminal', title: input.title }
  if (input.description !== undefined) view.description = input.description
  if (input.cwd !== undefined) view.cwd = input.cwd
  return view
}

/** A `diff` pending card: a file create or modify. */
export function diffCall(input: DiffCallInput): DiffCallView {
  const diffs = input.diffs.map((diff) => fileDiff(diff.path, diff.oldText, diff.newText))
  const locations = input.locations === undefined ? diffLocations(diffs) : input.locations.map(copyLocation)
  const view: DiffCallView = { card: 'diff', title: input.title, diffs }
  if (locations.length > 0 || input.locations !== undefined) view.locations = locations
  return view
}

/** A `generic` completed card. */
export function genericResult(input: GenericResultInput = {}): GenericResultView {
  const view: GenericResultView = { card: 'generic' }
  if (input.title !== undefined) view.title = input.title
  if (input.content !== undefined) view.content = [...input.content]
  return view
}

/** A `terminal` completed card: the run's output and how it ended. */
export function terminalResult(input: TerminalResultInput = {}): TerminalResultView {
  const view: TerminalResultView = { card: 'terminal' }
  if (input.title !== undefined) view.title = input.title
  if (input.output !== undefined) view.output = input.output
  if (input.exitCode !== undefined) view.exitCode = input.exitCode
  if (input.signal !== undefined) view.signal = input.signal
  if (input.timedOut !== undefined) view.timedOut = input.timedOut
  return view
}

/** A `task` completed card (the task layer's tools): the task's status, message, progress and the tail of its output. */
export function taskResult(input: TaskResultInput): TaskResultView {
  const view: TaskResultView = { card: 'task', taskId: input.taskId, status: input.status }
  if (input.title !== undefined) view.title = input.title
  if (input.statusMessage !== undefined) view.statusMessage = input.statusMessage
  if (input.progress !== undefined) {
    const { progress, total, message } = input.progress
    view.progress = { progress, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) }
  }
  if (input.output !== undefined) view.output = input.output
  return view
}

/**
 * A `code` pending card: the program a `run_code` call runs. Checked like a presenter's card: a field of the wrong
 * shape (a language other than `typescript` or `javascript`, a `code` that is not a string) throws an
 * `InvalidCardError` (`INVALID_CARD`) naming it.
 */
export function codeCall(input: CodeCallInput): CodeCallView {
  const view: CodeCallView = { card: 'code', title: input.title, language: input.language, code: input.code }
  if (input.description !== undefined) view.description = input.description
  const issue = findToolCallViewIssue(view)
  if (issue !== undefined) throw issue
  return view
}

/**
 * A `code` completed card: how the run ended, its logs and returned value, and one entry per sub-call (copied).
 * Checked like {@link codeCall}: an unknown `status`, a `durationMs` that is negative or not finite, a sub-call
 * without a string `name` or a boolean `isError`, … throws an `InvalidCardError` (`INVALID_CARD`) naming it.
 */
export function codeResult(input: CodeResultInput): CodeResultView {
  const subCalls = (input.subCalls ?? []).map((call): CodeSubCall => {
    // Not an object (a caller without types): kept as it is, for the check to name.
    if (typeof call !== 'object' || call === null) return call
    const copy: CodeSubCall = { callId: call.callId, name: call.name, isError: call.isError }
    if (call.code !== undefined) copy.code = call.code
    return copy
  })
  const view: CodeResultView = { card: 'code', status: input.status, subCalls }
  if (input.title !== undefined) view.title = input.title
  if (input.error !== undefined) view.error = input.error
  if (input.durationMs !== undefined) view.durationMs = input.durationMs
  if (input.logs !== undefined) view.logs = input.logs
  if (input.value !== undefined) view.value = input.value
  const issue = findToolResultViewIssue(view)
  if (issue !== undefined) throw issue
  return view
}

/** A task's progress as one short text: `3/5 files`, `3` without a total (internal: the renderer's and ACP's). */
export function taskProgressText(progress: TaskProgress): string {
  const amount = progress.total === undefined ? `${progress.progress}` : `${progress.progress}/${progress.total}`
  return progress.message === undefined ? amount : `${amount} ${progress.message}`
}

/** A duration for people: `340 ms`, `1.2 s`, `2 min 5 s` (internal: the renderer's and ACP's). */
export function durationText(durationMs: number): string {
  if (durationMs < 1000) return `${Math.round(durationMs)} ms`
  if (durationMs < 59_950) return `${(durationMs / 1000).toFixed(1)} s`
  const seconds = Math.round(durationMs / 1000)
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`
}

/** How many sub-calls a run made and how many failed: `3 sub-calls, 1 failed`, `no sub-calls` (internal). */
export function subCallCountText(subCalls: readonly CodeSubCall[]): string {
  if (subCalls.length === 0) return 'no sub-calls'
  const failed = subCalls.filter((call) => call.isError).length
  const count = `${subCalls.length} sub-call${subCalls.length === 1 ? '' : 's'}`
  return failed === 0 ? count : `${count}, ${failed} failed`
}

/** A `diff` completed card: the applied change. */
export function diffResult(input: DiffResultInput): DiffResultView {
  const diffs = input.diffs.map((diff) => fileDiff(diff.path, diff.oldText, diff.newText))
  const view: DiffResultView = { card: 'diff', diffs }
  if (input.title !== undefined) view.title = input.title
  return view
}

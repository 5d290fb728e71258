import type {
  CodeCallView,
  CodeResultView,
  CodeRunStatus,
  ContentBlock,
  FileDiff,
  TaskResultView,
  ToolCallKind,
  ToolCallView,
  ToolResult,
  ToolResultView,
} from '@dsh/tools-core'
import { detachCallView, detachResultView, snapshotResult } from './card-snapshot.js'
import { contentText } from './content-text.js'
import { durationText, subCallCountText, taskProgressText } from './card-builders.js'
import { fileDiffHunks } from './diff-hunks.js'
import { splitLines } from './sanitize-text.js'
import { emitLine, tone, type Line, type Tone } from './terminal-line.js'

/** A stream the renderer may write to: only whether it is a terminal matters. */
export interface ColorTarget {
  /** True when the stream is a terminal (Node sets it on `process.stdout` / `process.stderr`). */
  readonly isTTY?: boolean | undefined
}

/**
 * Whether to colour output for `stream`: only when it is a TTY and `NO_COLOR` is unset or empty (see
 * https://no-color.org). Defaults to `process.stdout` and `process.env`.
 */
export function shouldUseColor(
  stream: ColorTarget | undefined = globalThis.process?.stdout,
  env: Readonly<Record<string, string | undefined>> = globalThis.process?.env ?? {},
): boolean {
  if (stream?.isTTY !== true) return false
  const noColor = env['NO_COLOR']
  return noColor === undefined || noColor === ''
}

/** Options shared by {@link renderToolCall} and {@link renderToolResult}. */
export interface RenderOptions {
  /** ANSI colours. Default: {@link shouldUseColor} for `process.stdout`. */
  color?: boolean | undefined
  /** Terminal output: how many last lines to show (default 20). */
  tailLines?: number | undefined
  /** Generic content: how many first lines to show (default 20). */
  maxContentLines?: number | undefined
  /** Diffs: how many hunk lines to show per file (default 80). */
  maxDiffLines?: number | undefined
  /** A generic call's raw input, as one line of JSON: how many characters to show (default 200). */
  maxInputChars?: number | undefined
  /** A code card's program: how many first lines to show (default 40). */
  maxCodeLines?: number | undefined
  /** A code card's sub-calls: how many first ones to list (default 20). */
  maxSubCalls?: number | undefined
}

/** Options of {@link renderToolCall}. */
export interface RenderCallOptions extends RenderOptions {
  /** The pill: `running` (default) or `pending` (waiting for approval or arguments). */
  status?: 'pending' | 'running' | undefined
}

/** Options of {@link renderToolResult}. */
export interface RenderResultOptions extends RenderOptions {
  /** The call's card: its title and icon are used when the result card has no title. */
  call?: ToolCallView | undefined
  /** The result: the default content of a generic card, and `isError` for the `failed` pill. */
  result?: Pick<ToolResult, 'content' | 'isError'> | undefined
}


const KIND_ICONS: Record<ToolCallKind, string> = {
  read: '≡',
  edit: '✎',
  delete: '✗',
  move: '⇄',
  search: '⌕',
  execute: '$',
  fetch: '⇣',
  other: '•',
}

const INDENT = '  '

interface Limits {
  readonly tailLines: number
  readonly maxContentLines: number
  readonly maxDiffLines: number
  readonly maxInputChars: number
  readonly maxCodeLines: number
  readonly maxSubCalls: number
}

function limit(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback
  if (Number.isInteger(value) && value >= 0) return value
  throw new RangeError(`${name} must be a non-negative integer, got ${String(value)}`)
}

function setup(options: RenderOptions): { color: boolean; limits: Limits } {
  return {
    color: options.color ?? shouldUseColor(),
    limits: {
      tailLines: limit(options.tailLines, 20, 'tailLines'),
      maxContentLines: limit(options.maxContentLines, 20, 'maxContentLines'),
      maxDiffLines: limit(options.maxDiffLines, 80, 'maxDiffLines'),
      maxInputChars: limit(options.maxInputChars, 200, 'maxInputChars'),
      maxCodeLines: limit(options.maxCodeLines, 40, 'maxCodeLines'),
      maxSubCalls: limit(options.maxSubCalls, 20, 'maxSubCalls'),
    },
  }
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}

/** The first line of a title, with a marker when it had more. */
function titlePieces(title: string): Line {
  const lines = splitLines(title)
  const first = tone('bold', lines[0] ?? '')
  return lines.length <= 1 ? [first] : [first, ` … (+${plural(lines.length - 1, 'line')})`]
}

/** The pill's text as pieces: a string from a card (the signal) is a piece of its own, in the same colour. */
function header(icon: string, title: string, pill: readonly string[], pillTone: Tone): Line {
  const text = ['[', ...pill, ']'].map((piece) => tone(pillTone, piece))
  return [tone('cyan', icon), ' ', ...titlePieces(title), '  ', ...text]
}

function callIcon(view: ToolCallView | undefined): string | undefined {
  if (view === undefined) return undefined
  if (view.card === 'terminal' || view.card === 'code') return KIND_ICONS.execute
  if (view.card === 'diff') return KIND_ICONS.edit
  return KIND_ICONS[view.kind ?? 'other']
}

/** Lines of untrusted text, each its own piece after the indent (so a carriage return cannot reach the indent). */
function indented(lines: readonly string[]): Line[] {
  return lines.map((line) => (line.length > 0 ? [INDENT, line] : []))
}

function blockLines(block: ContentBlock): Line[] {
  switch (block.type) {
    case 'text':
      return indented(splitLines(block.text))
    case 'image':
    case 'audio':
      return [[INDENT, `[${block.type} `, block.mimeType, ']']]
    case 'resource_link':
      return [[INDENT, '[link ', block.name, ' <', block.uri, '>]']]
    case 'resource':
      return 'text' in block.resource
        ? indented(splitLines(block.resource.text))
        : [[INDENT, '[resource ', block.resource.uri, ']']]
  }
}

function contentLines(blocks: readonly ContentBlock[], max: number): Line[] {
  const lines = blocks.flatMap(blockLines)
  const shown = lines.slice(0, max)
  if (lines.length > max) shown.push([INDENT, tone('dim', `… ${plural(lines.length - max, 'more line')}`)])
  return shown
}

function diffLines(diffs: readonly FileDiff[], max: number): Line[] {
  const lines: Line[] = []
  for (const diff of diffs) {
    const file = fileDiffHunks(diff)
    const counts =
      file.status === 'created'
        ? `(new file, +${file.additions})`
        : file.status === 'unchanged'
          ? '(unchanged)'
          : `(+${file.additions} -${file.deletions})`
    lines.push([INDENT, tone('bold', diff.path), ' ', tone('dim', counts)])
    const body: Line[] = []
    for (const hunk of file.hunks) {
      body.push([INDENT, tone('cyan', `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`)])
      for (const line of hunk.lines) {
        if (line.kind === 'add') body.push([INDENT, tone('green', '+'), tone('green', line.text)])
        else if (line.kind === 'remove') body.push([INDENT, tone('red', '-'), tone('red', line.text)])
        else body.push([INDENT, tone('dim', ' '), tone('dim', line.text)])
        if (line.eol === '') body.push([INDENT, tone('dim', '\\ No newline at end of file')])
      }
    }
    lines.push(...body.slice(0, max))
    if (body.length > max) lines.push([INDENT, tone('dim', `… ${plural(body.length - max, 'more diff line')}`)])
  }
  return lines
}

type JsonStep = { readonly text: string } | { readonly value: unknown }

/**
 * `value` (lossless JSON, as a detached card holds it) as JSON text, clipped to `max` characters with `…`. Written
 * step by step and stopped once past `max`, so a deeply nested value or one of shared sub-objects (which
 * `JSON.stringify` would expand without bound) costs only what is shown.
 */
function clippedJson(value: unknown, max: number): string {
  let json = ''
  const steps: JsonStep[] = [{ value }]
  while (steps.length > 0 && json.length <= max) {
    const step = steps.pop() as JsonStep
    if ('text' in step) {
      json += step.text
      continue
    }
    const current = step.value
    if (typeof current !== 'object' || current === null) {
      json += JSON.stringify(current)
      continue
    }
    const array = Array.isArray(current)
    const keys = array ? undefined : Object.keys(current)
    const items: readonly unknown[] = array ? current : (keys as string[]).map((key) => (current as Record<string, unknown>)[key])
    json += array ? '[' : '{'
    steps.push({ text: array ? ']' : '}' })
    for (let index = items.length - 1; index >= 0; index -= 1) {
      steps.push({ value: items[index] })
      if (keys !== undefined) steps.push({ text: `${JSON.stringify(keys[index])}:` })
      if (index > 0) steps.push({ text: ',' })
    }
  }
  return json.length > max ? `${json.slice(0, max)}…` : json
}

function inputLine(rawInput: unknown, max: number): Line {
  return [INDENT, tone('dim', 'input'), ' ', clippedJson(rawInput, max)]
}

/**
 * A pending call's card as lines for a CLI log: `<icon> <title>  [running]`, then what the card holds (a generic
 * card's input, content and locations; a terminal card's description and cwd; a diff card's hunks with `+`/`-`
 * lines; a code card's description and its program's first `maxCodeLines` lines, numbered). The card is detached first (its fields read once into a frozen copy, then checked), and every line is
 * written by one emitter that sanitizes every piece of it, whichever field it came from: no escape sequence other
 * than the renderer's own colours, and no control character, can reach the terminal. Colours only when
 * `options.color` (default: {@link shouldUseColor}). Throws `UnknownCardError` for a value that is not a card and
 * `InvalidCardError` for a malformed one (a field that cannot be read included).
 */
export function renderToolCall(view: ToolCallView, options: RenderCallOptions = {}): string[] {
  const card = detachCallView(view)
  const { color, limits } = setup(options)
  const status = options.status ?? 'running'
  const pillTone = status === 'running' ? 'cyan' : 'dim'
  const lines: Line[] = [header(callIcon(card) ?? KIND_ICONS.other, card.title, [status], pillTone)]
  switch (card.card) {
    case 'generic': {
      if (card.rawInput !== undefined) lines.push(inputLine(card.rawInput, limits.maxInputChars))
      lines.push(...contentLines(card.content ?? [], limits.maxContentLines))
      for (const location of card.locations ?? []) {
        const at = location.line === undefined ? '' : `:${location.line}`
        lines.push([INDENT, tone('dim', '→'), ' ', location.path, at])
      }
      break
    }
    case 'terminal':
      if (card.description !== undefined) lines.push(...indented(splitLines(card.description)))
      if (card.cwd !== undefined) lines.push([INDENT, tone('dim', 'in'), ' ', card.cwd])
      break
    case 'diff':
      lines.push(...diffLines(card.diffs, limits.maxDiffLines))
      break
    case 'code':
      lines.push(...codeCallLines(card, limits.maxCodeLines))
      break
  }
  return lines.map((line) => emitLine(line, color))
}

/** A code call's body: its description, the language and size, then the program's first lines, numbered. */
function codeCallLines(card: CodeCallView, max: number): Line[] {
  const lines: Line[] = card.description === undefined ? [] : indented(splitLines(card.description))
  const code = splitLines(card.code)
  lines.push([INDENT, tone('dim', `${card.language}, ${plural(code.length, 'line')}`)])
  const shown = code.slice(0, max)
  const width = String(shown.length).length
  for (const [index, text] of shown.entries()) {
    const number = tone('dim', `${String(index + 1).padStart(width)} │`)
    lines.push(text.length > 0 ? [INDENT, number, ' ', text] : [INDENT, number])
  }
  if (code.length > max) lines.push([INDENT, tone('dim', `… ${plural(code.length - max, 'more line')}`)])
  return lines
}

/** The pill tone of each task status. */
const TASK_TONES: Readonly<Record<string, Tone>> = { working: 'cyan', input_required: 'yellow', completed: 'green', failed: 'red', cancelled: 'yellow' }

/** The pill tone of each way a program's run ends. */
const CODE_TONES: Readonly<Record<CodeRunStatus, Tone>> = { completed: 'green', error: 'red', timeout: 'red', memory: 'red', aborted: 'yellow' }

function resultPill(view: ToolResultView, isError: boolean): [string[], Tone] {
  if (view.card === 'task') return [[`task ${view.status.replace('_', ' ')}`], TASK_TONES[view.status] ?? 'dim']
  if (view.card === 'code') return [[`code ${view.status}`], CODE_TONES[view.status]]
  if (view.card === 'terminal') {
    if (view.timedOut === true) return [['timed out'], 'yellow']
    // The signal is its own piece: a carriage return in it cannot overwrite "killed by" into something else.
    if (typeof view.signal === 'string') return [['killed by ', view.signal], 'red']
    if (typeof view.exitCode === 'number') return [[`exit ${view.exitCode}`], view.exitCode === 0 ? 'green' : 'red']
  }
  return isError ? [['failed'], 'red'] : [['done'], 'green']
}

/**
 * A completed call's card as lines for a CLI log: `<icon> <title>  [<status>]` where the status is the exit code,
 * signal or timeout of a terminal card (read from the card, never from the output), else `done` or `failed`; then
 * the content (a generic card's blocks, defaulting to the result's), the last lines of a terminal card's output
 * (defaulting to the result's text), a diff card's hunks, or a code card's run: `[code completed]` (`error`,
 * `timeout`, `memory`, `aborted`), the duration and sub-call count, the error, `✓ name` / `✗ name CODE` per sub-call
 * (the first `maxSubCalls`) and the tails of its logs and value. Without its own title the card shows the call's.
 * Detached, sanitized and coloured like {@link renderToolCall}; result content that is not well-formed is shown as
 * a note instead of failing.
 */
export function renderToolResult(view: ToolResultView, options: RenderResultOptions = {}): string[] {
  const card = detachResultView(view)
  const call = options.call === undefined ? undefined : detachCallView(options.call)
  const { color, limits } = setup(options)
  const result = snapshotResult(options.result)
  const [pill, pillTone] = resultPill(card, result.isError)
  const fallbackIcon =
    card.card === 'terminal' || card.card === 'code' ? KIND_ICONS.execute : card.card === 'diff' ? KIND_ICONS.edit : KIND_ICONS.other
  const title = card.title ?? call?.title ?? 'result'
  const lines: Line[] = [header(callIcon(call) ?? fallbackIcon, title, pill, pillTone)]
  switch (card.card) {
    case 'generic':
      lines.push(...contentLines(card.content ?? result.content, limits.maxContentLines))
      break
    case 'terminal':
      lines.push(...outputTail(card.output ?? contentText(result.content), limits.tailLines))
      break
    case 'diff':
      lines.push(...diffLines(card.diffs, limits.maxDiffLines))
      break
    case 'task':
      lines.push(...taskLines(card, result.content, limits.tailLines))
      break
    case 'code':
      lines.push(...codeResultLines(card, limits))
      break
  }
  return lines.map((line) => emitLine(line, color))
}

/** A task card's body: its id and status message, its progress, then the tail of the output (the result's text by default). */
function taskLines(card: TaskResultView, content: readonly ContentBlock[], tailLines: number): Line[] {
  const lines: Line[] = [[INDENT, tone('dim', 'task'), ' ', card.taskId, ...(card.statusMessage === undefined ? [] : [tone('dim', ' — '), card.statusMessage])]]
  if (card.progress !== undefined) lines.push([INDENT, tone('dim', 'progress'), ' ', taskProgressText(card.progress)])
  lines.push(...outputTail(card.output ?? contentText(content), tailLines))
  return lines
}

/** The last `tailLines` lines of `output` behind `│`, after `… N earlier lines` when some are left out. */
function outputTail(text: string, tailLines: number): Line[] {
  const output = splitLines(text)
  const hidden = Math.max(0, output.length - tailLines)
  const lines: Line[] = hidden > 0 ? [[INDENT, tone('dim', `… ${plural(hidden, 'earlier line')}`)]] : []
  for (const line of output.slice(hidden)) lines.push(line.length > 0 ? [INDENT, tone('dim', '│'), ' ', line] : [INDENT, tone('dim', '│')])
  return lines
}

/**
 * A code run's body: its duration and sub-call count, why it failed, one line per sub-call (`✓ read_file`,
 * `✗ write_file DENIED`; the first `maxSubCalls`), then the tails of its logs and of its returned value.
 */
function codeResultLines(card: CodeResultView, limits: Limits): Line[] {
  const summary = subCallCountText(card.subCalls)
  const lines: Line[] = [[INDENT, tone('dim', card.durationMs === undefined ? summary : `${durationText(card.durationMs)} · ${summary}`)]]
  if (card.error !== undefined) {
    const error = splitLines(card.error)
    for (const text of error.slice(0, limits.maxContentLines)) lines.push(text.length > 0 ? [INDENT, tone('red', text)] : [])
    if (error.length > limits.maxContentLines) lines.push([INDENT, tone('dim', `… ${plural(error.length - limits.maxContentLines, 'more line')}`)])
  }
  const shown = card.subCalls.slice(0, limits.maxSubCalls)
  for (const call of shown) {
    if (!call.isError) lines.push([INDENT, tone('green', '✓'), ' ', call.name])
    else lines.push([INDENT, tone('red', '✗'), ' ', call.name, ...(call.code === undefined ? [] : [' ', tone('red', call.code)])])
  }
  const hidden = card.subCalls.slice(shown.length)
  if (hidden.length > 0) {
    const failed = hidden.filter((call) => call.isError).length
    lines.push([INDENT, tone('dim', `… ${plural(hidden.length, 'more sub-call')}${failed === 0 ? '' : ` (${failed} failed)`}`)])
  }
  for (const [label, text] of [['logs', card.logs], ['value', card.value]] as const) {
    if (text === undefined || text.length === 0) continue
    lines.push([INDENT, tone('dim', label)], ...outputTail(text, limits.tailLines))
  }
  return lines
}

import type { ContentBlock, FileDiff, ToolCallKind, ToolCallView, ToolResult, ToolResultView } from '@dsh/tools-core'
import { contentText } from './content-text.js'
import { fileDiffHunks } from './diff-hunks.js'
import { sanitizedLines, sanitizeLine } from './sanitize-text.js'
import { assertToolCallView, assertToolResultView } from './validate-card.js'

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

type Tone = 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan'
const SGR: Record<Tone, [string, string]> = {
  bold: ['\u001b[1m', '\u001b[22m'],
  dim: ['\u001b[2m', '\u001b[22m'],
  red: ['\u001b[31m', '\u001b[39m'],
  green: ['\u001b[32m', '\u001b[39m'],
  yellow: ['\u001b[33m', '\u001b[39m'],
  cyan: ['\u001b[36m', '\u001b[39m'],
}

type Paint = (tone: Tone, text: string) => string

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
}

function limit(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback
  if (Number.isInteger(value) && value >= 0) return value
  throw new RangeError(`${name} must be a non-negative integer, got ${String(value)}`)
}

function setup(options: RenderOptions): { paint: Paint; limits: Limits } {
  const color = options.color ?? shouldUseColor()
  const paint: Paint = color ? (tone, text) => `${SGR[tone][0]}${text}${SGR[tone][1]}` : (_tone, text) => text
  return {
    paint,
    limits: {
      tailLines: limit(options.tailLines, 20, 'tailLines'),
      maxContentLines: limit(options.maxContentLines, 20, 'maxContentLines'),
      maxDiffLines: limit(options.maxDiffLines, 80, 'maxDiffLines'),
      maxInputChars: limit(options.maxInputChars, 200, 'maxInputChars'),
    },
  }
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}

/** The first line of a title (sanitized), with a marker when it had more. */
function titleLine(title: string): string {
  const lines = sanitizedLines(title)
  if (lines.length <= 1) return lines[0] ?? ''
  return `${lines[0]} … (+${plural(lines.length - 1, 'line')})`
}

function header(paint: Paint, icon: string, title: string, pill: string, pillTone: Tone): string {
  return `${paint('cyan', icon)} ${paint('bold', titleLine(title))}  ${paint(pillTone, `[${pill}]`)}`
}

function callIcon(view: ToolCallView | undefined): string | undefined {
  if (view === undefined) return undefined
  if (view.card === 'terminal') return KIND_ICONS.execute
  if (view.card === 'diff') return KIND_ICONS.edit
  return KIND_ICONS[view.kind ?? 'other']
}

function blockLines(block: ContentBlock): string[] {
  switch (block.type) {
    case 'text':
      return sanitizedLines(block.text)
    case 'image':
    case 'audio':
      return [`[${block.type} ${sanitizeLine(block.mimeType)}]`]
    case 'resource_link':
      return [`[link ${sanitizeLine(block.name)} <${sanitizeLine(block.uri)}>]`]
    case 'resource':
      return 'text' in block.resource
        ? sanitizedLines(block.resource.text)
        : [`[resource ${sanitizeLine(block.resource.uri)}]`]
  }
}

function contentLines(paint: Paint, blocks: readonly ContentBlock[], max: number): string[] {
  const lines = blocks.flatMap(blockLines)
  const shown = lines.slice(0, max).map((line) => (line.length > 0 ? INDENT + line : ''))
  if (lines.length > max) shown.push(INDENT + paint('dim', `… ${plural(lines.length - max, 'more line')}`))
  return shown
}

function diffLines(paint: Paint, diffs: readonly FileDiff[], max: number): string[] {
  const lines: string[] = []
  for (const diff of diffs) {
    const file = fileDiffHunks(diff)
    const counts =
      file.status === 'created'
        ? `(new file, +${file.additions})`
        : file.status === 'unchanged'
          ? '(unchanged)'
          : `(+${file.additions} -${file.deletions})`
    lines.push(`${INDENT}${paint('bold', sanitizeLine(diff.path))} ${paint('dim', counts)}`)
    const body: string[] = []
    for (const hunk of file.hunks) {
      body.push(paint('cyan', `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`))
      for (const line of hunk.lines) {
        const text = sanitizeLine(line.text)
        if (line.kind === 'add') body.push(paint('green', `+${text}`))
        else if (line.kind === 'remove') body.push(paint('red', `-${text}`))
        else body.push(paint('dim', ` ${text}`))
        if (line.eol === '') body.push(paint('dim', '\\ No newline at end of file'))
      }
    }
    for (const line of body.slice(0, max)) lines.push(INDENT + line)
    if (body.length > max) lines.push(INDENT + paint('dim', `… ${plural(body.length - max, 'more diff line')}`))
  }
  return lines
}

function inputLine(paint: Paint, rawInput: unknown, max: number): string | undefined {
  let json: string | undefined
  try {
    json = JSON.stringify(rawInput)
  } catch {
    json = undefined
  }
  if (json === undefined) return undefined
  const text = sanitizeLine(json)
  const clipped = text.length > max ? `${text.slice(0, max)}…` : text
  return `${INDENT}${paint('dim', 'input')} ${clipped}`
}

/**
 * A pending call's card as lines for a CLI log: `<icon> <title>  [running]`, then what the card holds (a generic
 * card's input, content and locations; a terminal card's description and cwd; a diff card's hunks with `+`/`-`
 * lines). Untrusted text is sanitized: escape sequences and control characters cannot reach the terminal. Colours
 * only when `options.color` (default: {@link shouldUseColor}). Throws `UnknownCardError` for a value that is not a
 * card and `InvalidCardError` for a malformed one.
 */
export function renderToolCall(view: ToolCallView, options: RenderCallOptions = {}): string[] {
  assertToolCallView(view)
  const { paint, limits } = setup(options)
  const status = options.status ?? 'running'
  const pillTone = status === 'running' ? 'cyan' : 'dim'
  const lines = [header(paint, callIcon(view) ?? KIND_ICONS.other, view.title, status, pillTone)]
  switch (view.card) {
    case 'generic': {
      if (view.rawInput !== undefined) {
        const input = inputLine(paint, view.rawInput, limits.maxInputChars)
        if (input !== undefined) lines.push(input)
      }
      lines.push(...contentLines(paint, view.content ?? [], limits.maxContentLines))
      for (const location of view.locations ?? []) {
        const at = location.line === undefined ? '' : `:${location.line}`
        lines.push(`${INDENT}${paint('dim', '→')} ${sanitizeLine(location.path)}${at}`)
      }
      break
    }
    case 'terminal':
      if (view.description !== undefined) {
        lines.push(...sanitizedLines(view.description).map((line) => (line.length > 0 ? INDENT + line : '')))
      }
      if (view.cwd !== undefined) lines.push(`${INDENT}${paint('dim', 'in')} ${sanitizeLine(view.cwd)}`)
      break
    case 'diff':
      lines.push(...diffLines(paint, view.diffs, limits.maxDiffLines))
      break
  }
  return lines
}

function resultPill(view: ToolResultView, isError: boolean): [string, Tone] {
  if (view.card === 'terminal') {
    if (view.timedOut === true) return ['timed out', 'yellow']
    if (typeof view.signal === 'string') return [`killed by ${view.signal}`, 'red']
    if (typeof view.exitCode === 'number') return [`exit ${view.exitCode}`, view.exitCode === 0 ? 'green' : 'red']
  }
  return isError ? ['failed', 'red'] : ['done', 'green']
}

/**
 * A completed call's card as lines for a CLI log: `<icon> <title>  [<status>]` where the status is the exit code,
 * signal or timeout of a terminal card (read from the card, never from the output), else `done` or `failed`; then
 * the content (a generic card's blocks, defaulting to the result's), the last lines of a terminal card's output
 * (defaulting to the result's text), or
 * a diff card's hunks. Without its own title the card shows the call's. Sanitized and coloured like
 * {@link renderToolCall}.
 */
export function renderToolResult(view: ToolResultView, options: RenderResultOptions = {}): string[] {
  assertToolResultView(view)
  if (options.call !== undefined) assertToolCallView(options.call)
  const { paint, limits } = setup(options)
  const isError = options.result?.isError === true
  const [pill, tone] = resultPill(view, isError)
  const fallbackIcon =
    view.card === 'terminal' ? KIND_ICONS.execute : view.card === 'diff' ? KIND_ICONS.edit : KIND_ICONS.other
  const title = view.title ?? options.call?.title ?? 'result'
  const lines = [header(paint, callIcon(options.call) ?? fallbackIcon, title, pill, tone)]
  switch (view.card) {
    case 'generic':
      lines.push(...contentLines(paint, view.content ?? options.result?.content ?? [], limits.maxContentLines))
      break
    case 'terminal': {
      const output = sanitizedLines(view.output ?? contentText(options.result?.content ?? []))
      const hidden = Math.max(0, output.length - limits.tailLines)
      if (hidden > 0) lines.push(INDENT + paint('dim', `… ${plural(hidden, 'earlier line')}`))
      for (const line of output.slice(hidden)) {
        lines.push(`${INDENT}${paint('dim', '│')}${line.length > 0 ? ` ${line}` : ''}`)
      }
      break
    }
    case 'diff':
      lines.push(...diffLines(paint, view.diffs, limits.maxDiffLines))
      break
  }
  return lines
}

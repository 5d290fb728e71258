import { sanitizeLine } from './sanitize-text.js'

/** The colours the renderer uses. */
export type Tone = 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan'

const SGR: Record<Tone, readonly [string, string]> = {
  bold: ['\u001b[1m', '\u001b[22m'],
  dim: ['\u001b[2m', '\u001b[22m'],
  red: ['\u001b[31m', '\u001b[39m'],
  green: ['\u001b[32m', '\u001b[39m'],
  yellow: ['\u001b[33m', '\u001b[39m'],
  cyan: ['\u001b[36m', '\u001b[39m'],
}

/** A run of text in one colour. The text is untrusted until {@link emitLine} writes it. */
export interface Segment {
  readonly text: string
  readonly tone: Tone
}

/** A piece of a line: plain text, or a coloured {@link Segment}. */
export type Piece = string | Segment

/** One output line, as pieces. Lines become strings only through {@link emitLine}. */
export type Line = readonly Piece[]

/** A coloured piece. */
export function tone(color: Tone, text: string): Segment {
  return { text, tone: color }
}

const TAB_STOP = 8

/** Tabs as spaces up to the next tab stop (counted from the start of the piece, so a column layout stays aligned). */
function expandTabs(text: string): string {
  if (!text.includes('\t')) return text
  const parts = text.split('\t')
  let expanded = parts[0] as string
  for (let index = 1; index < parts.length; index += 1) {
    expanded += ' '.repeat(TAB_STOP - (expanded.length % TAB_STOP)) + (parts[index] as string)
  }
  return expanded
}

/**
 * The one way a line reaches the terminal: every piece is sanitized on its own (escape sequences removed, control
 * characters and bidi controls replaced, tabs expanded; a carriage return cannot reach past its piece) and only then
 * wrapped in the renderer's own SGR codes, one span per run of pieces of the same colour. Nothing a card holds can
 * bypass it, whichever field it came from.
 */
export function emitLine(line: Line, color: boolean): string {
  let text = ''
  let run: Tone | undefined
  for (const piece of line) {
    const segment = typeof piece === 'string' ? undefined : piece
    const clean = expandTabs(sanitizeLine(segment === undefined ? (piece as string) : segment.text))
    if (!color || clean.length === 0) {
      text += clean
      continue
    }
    const next = segment?.tone
    if (next !== run) {
      if (run !== undefined) text += SGR[run][1]
      if (next !== undefined) text += SGR[next][0]
      run = next
    }
    text += clean
  }
  if (run !== undefined) text += SGR[run][1]
  return text
}

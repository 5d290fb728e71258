// Escape sequences a program may print, in both 7-bit (ESC …) and 8-bit (C1) forms.
const ESCAPE_SEQUENCE = new RegExp(
  [
    // CSI: colours, cursor moves, screen clears.
    '(?:\\u001b\\[|\\u009b)[0-?]*[ -/]*[@-~]',
    // OSC: window titles, hyperlinks, clipboard writes; ended by BEL or ST (or cut off).
    '(?:\\u001b\\]|\\u009d)[^\\u0007\\u001b\\u009c]*(?:\\u0007|\\u001b\\\\|\\u009c)?',
    // DCS, SOS, PM, APC strings, ended by ST (or cut off).
    '(?:\\u001b[PX^_]|[\\u0090\\u0098\\u009e\\u009f])[^\\u001b\\u009c]*(?:\\u001b\\\\|\\u009c)?',
    // nF sequences: character set selection and the like (ESC ( B).
    '\\u001b[ -/]+[0-~]',
    // Any other two-character ESC sequence (ESC 7, ESC =, …).
    '\\u001b[0-~]',
  ].join('|'),
  'g',
)
// Control characters other than tab (C0, DEL, C1), the bidirectional controls (overrides, embeddings, isolates and
// marks) that can make a log line read differently from what it holds, and the Unicode line and paragraph separators
// that some viewers break lines at.
const UNSAFE = /[^\P{Cc}\t]|[\p{Bidi_Control}\p{Zl}\p{Zp}]/gu
/**
 * What a terminal shows after writing `segments` separated by carriage returns: each column holds the character of
 * the last segment long enough to reach it. Built from the last segment backwards, so it is linear in the length
 * (replaying the writes front to back is quadratic in the number of carriage returns).
 */
function overwrite(segments: readonly string[]): string {
  let screen = segments.at(-1) ?? ''
  for (let index = segments.length - 2; index >= 0; index -= 1) {
    const segment = segments[index] as string
    if (segment.length > screen.length) screen += segment.slice(screen.length)
  }
  return screen
}

/**
 * One line of untrusted text made safe to print to a terminal: escape sequences removed, carriage returns applied the
 * way a terminal would (later text overwrites earlier), other control characters (line breaks included), bidi
 * controls and line/paragraph separators shown as `�`. Tabs stay; the renderer expands them.
 */
export function sanitizeLine(line: string): string {
  let text = line.replace(ESCAPE_SEQUENCE, '')
  if (text.includes('\r')) text = overwrite(text.split('\r'))
  return text.replace(UNSAFE, '\uFFFD')
}

/** Text split into lines (LF or CRLF); a final line ending does not start an extra empty line. */
export function splitLines(text: string): string[] {
  if (text.length === 0) return []
  const lines = text.split(/\r?\n/)
  if (lines.at(-1) === '') lines.pop()
  return lines
}

/** Untrusted text split into sanitized lines, like {@link splitLines}. */
export function sanitizedLines(text: string): string[] {
  return splitLines(text).map(sanitizeLine)
}

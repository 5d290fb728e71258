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
// Control characters other than tab, and the bidirectional overrides that can make a log line read differently
// from what it holds.
// oxlint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g

/**
 * One line of untrusted text made safe to print to a terminal: escape sequences removed, carriage returns applied the
 * way a terminal would (later text overwrites earlier), other control characters shown as `�`.
 */
export function sanitizeLine(line: string): string {
  let text = line.replace(ESCAPE_SEQUENCE, '')
  if (text.includes('\r')) {
    let screen = ''
    for (const segment of text.split('\r')) screen = segment + screen.slice(segment.length)
    text = screen
  }
  return text.replace(UNSAFE, '\uFFFD')
}

/** Untrusted text split into sanitized lines; a final line ending does not start an extra empty line. */
export function sanitizedLines(text: string): string[] {
  if (text.length === 0) return []
  const lines = text.split(/\r?\n/)
  if (lines.at(-1) === '') lines.pop()
  return lines.map(sanitizeLine)
}

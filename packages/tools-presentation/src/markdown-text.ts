/** CommonMark (and GFM) line endings. */
const LINE_BREAK = /\r\n|\r|\n/
/** Characters that open inline structure anywhere in a line: escapes, code spans, emphasis, links and images,
 * autolinks and raw HTML, entity references, strikethrough, table cells. */
const INLINE = /[\\`*_[\]<>&~|]/g
/** What makes a line a block other than a paragraph when it starts it: headings, quotes, lists, breaks, setext. */
const BLOCK_START = /^(?:[#>+=-]|\d{1,9}(?=[.)]))/

function escapeLine(line: string): string {
  // Leading indentation would make an indented code block; a title or label has no use for it.
  const text = line.replace(/^[ \t]+/, '').replace(INLINE, '\\$&')
  const start = BLOCK_START.exec(text)
  if (start === null) return text
  const [lead] = start
  // `1.` → `1\.`; `# x` → `\# x`.
  return /^\d/.test(lead) ? `${lead}\\${text.slice(lead.length)}` : `\\${text}`
}

/**
 * Untrusted text as Markdown that renders as that text and nothing else: every character that could open inline
 * structure (code, emphasis, links, images, HTML, entities, strikethrough, tables) is backslash-escaped, a line that
 * could start a block (heading, quote, list, thematic break, setext underline, indented code) is neutralised, and
 * line breaks stay soft breaks inside one paragraph.
 */
export function markdownText(text: string): string {
  return text.split(LINE_BREAK).map(escapeLine).join('\n')
}

/** Like {@link markdownText}, on one line: line breaks become spaces (a title or a label is one line). */
export function markdownLine(text: string): string {
  return escapeLine(text.split(LINE_BREAK).join(' '))
}

/**
 * `text` as an inline code span: shown literally by every Markdown renderer (no emphasis, links, autolinks or HTML
 * inside), on one line (line breaks become spaces, as CommonMark does anyway). The backtick delimiter is longer than
 * any backtick run in `text`, and a space pads both ends where CommonMark would otherwise eat a backtick or a space.
 */
export function markdownCode(text: string): string {
  const flat = text.split(LINE_BREAK).join(' ')
  // Nothing between two backticks is not a code span: the closest is one space.
  if (flat.length === 0) return '` `'
  let longest = 0
  for (const run of flat.matchAll(/`+/g)) longest = Math.max(longest, run[0].length)
  const delimiter = '`'.repeat(longest + 1)
  const pad =
    flat.startsWith('`') ||
    flat.endsWith('`') ||
    (flat.startsWith(' ') && flat.endsWith(' ') && /[^ ]/.test(flat))
  return pad ? `${delimiter} ${flat} ${delimiter}` : `${delimiter}${flat}${delimiter}`
}

/**
 * `text` in a fenced code block with `info` as its info string. The fence is longer than any run of backticks in
 * `text` (at least three), so no line of it can close the block; CommonMark reads the block's content back as
 * exactly `text` (its line endings as `\n`, with one final line ending).
 */
export function fencedBlock(text: string, info: string): string {
  let longest = 0
  for (const run of text.matchAll(/`+/g)) longest = Math.max(longest, run[0].length)
  const fence = '`'.repeat(Math.max(3, longest + 1))
  const body = text.replace(/(?:\r\n|\r|\n)$/, '')
  return body.length === 0 ? `${fence}${info}\n${fence}` : `${fence}${info}\n${body}\n${fence}`
}

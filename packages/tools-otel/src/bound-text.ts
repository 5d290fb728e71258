/**
 * `text` cut to at most `max` characters (UTF-16 code units), never inside a surrogate pair, with the number of
 * characters left out appended: `…[+1234 chars]`.
 */
export function boundText(text: string, max: number): string {
  if (text.length <= max) return text
  const marker = (omitted: number): string => `…[+${omitted} chars]`
  let keep = Math.max(0, max - marker(text.length).length)
  const code = text.charCodeAt(keep - 1)
  if (keep > 0 && code >= 0xd800 && code <= 0xdbff) keep -= 1
  return text.slice(0, keep) + marker(text.length - keep)
}

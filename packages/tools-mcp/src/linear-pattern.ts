// Patterns from a server's schema run on RE2 (the pure-JavaScript port `re2js`), whose matching time is linear in
// the input: a backtracking engine (RegExp) can take exponential time on a pattern such as ^(a+)+$, and a server
// chooses both the pattern and the text it is matched against.
import { RE2JS } from 're2js'

/** The longest pattern accepted, in UTF-16 units: RE2's matching time grows with the pattern's size too. */
export const MAX_PATTERN_LENGTH = 1_000

/** What ajv needs of a regular expression; `toString` is its cache key. */
export interface LinearPattern {
  test(text: string): boolean
  toString(): string
}

/** Compiled patterns (or why one cannot be), by source; bounded so a hostile listing cannot grow it without end. */
const cache = new Map<string, LinearPattern | string>()
const maxCached = 1_000

/**
 * ECMA-262 escapes RE2 spells differently: `\uXXXX` and `\u{…}` become `\x{…}`; everything else RE2 reads as
 * JSON Schema (ECMA-262) does, or refuses (lookaround, backreferences), which is then reported.
 */
function toRe2Syntax(source: string): string {
  let out = ''
  for (let index = 0; index < source.length; index += 1) {
    const char = source[index] as string
    if (char !== '\\') {
      out += char
      continue
    }
    const next = source[index + 1]
    if (next === 'u') {
      const braced = /^\{([0-9A-Fa-f]{1,6})\}/.exec(source.slice(index + 2, index + 10))
      if (braced !== null) {
        out += `\\x{${braced[1]}}`
        index += 1 + (braced[0] as string).length
        continue
      }
      const hex = source.slice(index + 2, index + 6)
      if (/^[0-9A-Fa-f]{4}$/.test(hex)) {
        const unit = Number.parseInt(hex, 16)
        const low = /^\\u([Dd][C-Fc-f][0-9A-Fa-f]{2})/.exec(source.slice(index + 6, index + 12))
        if (unit >= 0xd800 && unit <= 0xdbff && low !== null) {
          // A surrogate pair spelled as two escapes is one code point (the u flag), as RE2 needs it.
          const point = (unit - 0xd800) * 0x400 + (Number.parseInt(low[1] as string, 16) - 0xdc00) + 0x10000
          out += `\\x{${point.toString(16)}}`
          index += 11
          continue
        }
        out += `\\x{${hex}}`
        index += 5
        continue
      }
    }
    out += char + (next ?? '')
    index += 1
  }
  return out
}

function compile(source: string): LinearPattern | string {
  if (source.length > MAX_PATTERN_LENGTH) return `it is longer than ${MAX_PATTERN_LENGTH} characters`
  let regex: RE2JS
  try {
    regex = RE2JS.compile(toRe2Syntax(source))
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    return message.length > 200 ? `${message.slice(0, 200)}…` : message
  }
  const key = `/${source}/u`
  return { test: (text: string) => regex.test(text), toString: () => key }
}

function lookup(source: string): LinearPattern | string {
  let entry = cache.get(source)
  if (entry === undefined) {
    entry = compile(source)
    if (cache.size >= maxCached) cache.delete(cache.keys().next().value as string)
    cache.set(source, entry)
  }
  return entry
}

/** Why `source` cannot run on the linear-time engine (a syntax RE2 lacks, such as lookaround), or `undefined`. */
export function linearPatternProblem(source: string): string | undefined {
  const entry = lookup(source)
  return typeof entry === 'string' ? entry : undefined
}

/**
 * The linear-time engine as ajv's `code.regExp`: throws for a pattern it cannot run (the gate leaves such
 * patterns out of every schema it hands over, so this does not happen there).
 */
export const linearRegExp = Object.assign(
  (source: string, _flags: string): LinearPattern => {
    const entry = lookup(source)
    if (typeof entry === 'string') throw new Error(`pattern ${JSON.stringify(source.slice(0, 100))} cannot run on the linear-time engine: ${entry}`)
    return entry
  },
  { code: 're2js' },
)

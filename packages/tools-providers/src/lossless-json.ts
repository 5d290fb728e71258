import { setOwn } from './json-equal.js'

/** The outcome of {@link parseArgumentsJson}: the value, or why the text cannot be taken as it is. */
export type ArgumentsParse =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problem: string }

/** How deeply argument JSON may nest. */
export const MAX_ARGUMENT_DEPTH = 256

class ParseProblem extends Error {}

/**
 * Parses a tool call's argument text losslessly: strict JSON (RFC 8259), and a value that means exactly what the
 * text says. `JSON.parse` would silently keep the last of two equal keys, round a number with more digits than a
 * double holds (`12345678901234567891`), turn `1e400` into `Infinity` and `-0` into a value JSON cannot write; each
 * is a problem here. Never throws: the problem is a phrase a model can act on (`the key "a" appears twice`).
 */
export function parseArgumentsJson(text: string): ArgumentsParse {
  const parser = new Parser(text)
  try {
    parser.space()
    const value = parser.value(0)
    parser.space()
    if (parser.index < text.length) parser.fail(`unexpected ${parser.describeHere()} after the value`)
    return { ok: true, value }
  } catch (error) {
    if (error instanceof ParseProblem) return { ok: false, problem: error.message }
    throw error
  }
}

const numberPattern = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const escapes: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }

class Parser {
  index = 0
  constructor(private readonly text: string) {}

  fail(message: string): never {
    throw new ParseProblem(message)
  }

  describeHere(): string {
    if (this.index >= this.text.length) return 'end of text'
    return `character ${JSON.stringify(this.text[this.index])} at position ${this.index}`
  }

  space(): void {
    while (this.index < this.text.length) {
      const code = this.text.charCodeAt(this.index)
      if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return
      this.index += 1
    }
  }

  value(depth: number): unknown {
    if (depth > MAX_ARGUMENT_DEPTH) this.fail(`the value nests deeper than ${MAX_ARGUMENT_DEPTH} levels`)
    const char = this.text[this.index]
    if (char === '{') return this.object(depth)
    if (char === '[') return this.array(depth)
    if (char === '"') return this.string()
    if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) return this.number()
    for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
      if (this.text.startsWith(word, this.index)) {
        this.index += word.length
        return value
      }
    }
    return this.fail(`unexpected ${this.describeHere()}`)
  }

  object(depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    this.index += 1
    this.space()
    if (this.text[this.index] === '}') {
      this.index += 1
      return out
    }
    for (;;) {
      if (this.text[this.index] !== '"') this.fail(`expected a key in double quotes, got ${this.describeHere()}`)
      const key = this.string()
      if (Object.hasOwn(out, key)) this.fail(`the key ${JSON.stringify(key)} appears twice in one object`)
      this.space()
      if (this.text[this.index] !== ':') this.fail(`expected ":" after the key ${JSON.stringify(key)}, got ${this.describeHere()}`)
      this.index += 1
      this.space()
      setOwn(out, key, this.value(depth + 1))
      this.space()
      const next = this.text[this.index]
      this.index += 1
      if (next === '}') return out
      if (next !== ',') {
        this.index -= 1
        this.fail(`expected "," or "}" in an object, got ${this.describeHere()}`)
      }
      this.space()
    }
  }

  array(depth: number): unknown[] {
    const out: unknown[] = []
    this.index += 1
    this.space()
    if (this.text[this.index] === ']') {
      this.index += 1
      return out
    }
    for (;;) {
      out.push(this.value(depth + 1))
      this.space()
      const next = this.text[this.index]
      this.index += 1
      if (next === ']') return out
      if (next !== ',') {
        this.index -= 1
        this.fail(`expected "," or "]" in an array, got ${this.describeHere()}`)
      }
      this.space()
    }
  }

  string(): string {
    const start = this.index
    this.index += 1
    let out = ''
    let run = this.index
    for (;;) {
      if (this.index >= this.text.length) {
        this.index = start
        this.fail(`a string starting at position ${start} is not closed`)
      }
      const code = this.text.charCodeAt(this.index)
      if (code === 0x22) {
        out += this.text.slice(run, this.index)
        this.index += 1
        return out
      }
      if (code < 0x20) this.fail(`a control character (U+${code.toString(16).padStart(4, '0')}) inside a string at position ${this.index} must be escaped`)
      if (code === 0x5c) {
        out += this.text.slice(run, this.index)
        const escape = this.text[this.index + 1]
        if (escape === 'u') {
          const hex = this.text.slice(this.index + 2, this.index + 6)
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail(`a bad \\u escape at position ${this.index}`)
          out += String.fromCharCode(Number.parseInt(hex, 16))
          this.index += 6
        } else if (escape !== undefined && Object.hasOwn(escapes, escape)) {
          out += escapes[escape]
          this.index += 2
        } else this.fail(`a bad escape at position ${this.index}`)
        run = this.index
      } else this.index += 1
    }
  }

  number(): number {
    numberPattern.lastIndex = this.index
    const match = numberPattern.exec(this.text)
    if (match === null) return this.fail(`unexpected ${this.describeHere()}`)
    const token = match[0]
    this.index += token.length
    const value = Number(token)
    if (!Number.isFinite(value)) this.fail(`the number ${token} is too large to represent`)
    if (Object.is(value, -0)) this.fail(`the number ${token} is a negative zero, which JSON values here cannot hold; send 0`)
    if (!sameDecimal(token, String(value))) {
      this.fail(`the number ${token} has more precision than a 64-bit number holds (it would become ${value}); send it as a string if every digit matters`)
    }
    return value
  }
}

/** `[digits without leading/trailing zeros, exponent of the first digit]` of a decimal literal; zero is `['0', 0]`. */
function decimal(text: string): [string, number] {
  const body = text.replace(/^-/, '')
  const [mantissa = '', exponentText] = body.split(/[eE]/)
  const [whole = '', fraction = ''] = mantissa.split('.')
  const digits = `${whole}${fraction}`
  const leading = digits.length - digits.replace(/^0+/, '').length
  const significant = digits.slice(leading).replace(/0+$/, '')
  if (significant === '') return ['0', 0]
  return [significant, whole.length - leading + Number(exponentText ?? 0)]
}

/** Whether two decimal literals denote the same number (sign included). */
function sameDecimal(left: string, right: string): boolean {
  const [leftDigits, leftExponent] = decimal(left)
  const [rightDigits, rightExponent] = decimal(right)
  return left.startsWith('-') === right.startsWith('-') && leftDigits === rightDigits && leftExponent === rightExponent
}

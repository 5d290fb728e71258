import { ERROR_CODES, isErrorCode, type ErrorCode } from './error-codes.js'
import { InvalidErrorCodeError } from './invalid-error-code-error.js'

declare const toolErrorCodeBrand: unique symbol

/**
 * A code a tool package owns: `<FAMILY>_<SUFFIX>` in UPPER_SNAKE, made by {@link defineToolErrorCodes} (for
 * example `BASH_SPAWN_FAILED`, `FILES_NOT_FOUND`). Branded, so only declared codes type-check where a code is
 * expected (`new DshError('FILES_NOT_FOUND', …)` with a bare literal does not); at run time it is the plain string,
 * and {@link isToolErrorCode} is the check for a code read back from data. Comparing a code with a literal
 * (`result.error?.code === 'FILES_NOT_FOUND'`) type-checks.
 */
export type ToolErrorCode<Code extends string = string> = Code & {
  readonly [toolErrorCodeBrand]: true
}

/**
 * Any code an error or a result may carry: one of the pipeline's own ({@link ErrorCode}, a closed union a harness
 * can switch on exhaustively after {@link isErrorCode}) or one a tool package declared ({@link ToolErrorCode}).
 */
export type DshErrorCode = ErrorCode | ToolErrorCode

type Letter =
  | 'A' | 'B' | 'C' | 'D' | 'E' | 'F' | 'G' | 'H' | 'I' | 'J' | 'K' | 'L' | 'M'
  | 'N' | 'O' | 'P' | 'Q' | 'R' | 'S' | 'T' | 'U' | 'V' | 'W' | 'X' | 'Y' | 'Z'
type Digit = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9'

/** True when `Rest` is letters and digits with single `_` between words and no trailing `_`. */
type WordTail<Rest extends string> = Rest extends ''
  ? true
  : Rest extends `_${infer Next extends Letter | Digit}${infer After}`
    ? WordTail<`${Next}${After}`>
    : Rest extends `${Letter | Digit}${infer After}`
      ? WordTail<After>
      : false

/** `true` when `Text` is an UPPER_SNAKE literal (`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$`), else `false`. */
export type IsUpperSnake<Text extends string> = string extends Text
  ? false
  : Text extends `${Letter}${infer Rest}`
    ? WordTail<Rest>
    : false

/** The first word of every core code (`INVALID`, `APPROVAL`, `TOOL`, …): reserved, no tool family starts with one. */
export type ReservedErrorCodeWord = ErrorCode extends infer Code
  ? Code extends `${infer Word}_${string}`
    ? Word
    : Code
  : never

type FirstWord<Text extends string> = Text extends `${infer Word}_${string}` ? Word : Text

/**
 * `Family` when it can name a tool family (UPPER_SNAKE, not starting with a {@link ReservedErrorCodeWord}); else
 * a message type, so that passing it to {@link defineToolErrorCodes} is a type error that says why.
 */
export type CheckToolErrorFamily<Family extends string> =
  IsUpperSnake<Family> extends true
    ? FirstWord<Family> extends ReservedErrorCodeWord
      ? `tool error family "${Family}" starts with "${FirstWord<Family>}", a word reserved for core codes`
      : Family
    : `tool error family "${Family}" must be UPPER_SNAKE (A-Z and 0-9, single "_" between words)`

/** `Suffixes` when every one is UPPER_SNAKE; else the bad entries become message types (a type error). */
export type CheckToolErrorSuffixes<Suffixes extends readonly string[]> = {
  readonly [Index in keyof Suffixes]: IsUpperSnake<Suffixes[Index]> extends true
    ? Suffixes[Index]
    : `tool error code suffix "${Suffixes[Index]}" must be UPPER_SNAKE (A-Z and 0-9, single "_" between words)`
}

/** What {@link defineToolErrorCodes} returns: a frozen map from each suffix to its full code. */
export type ToolErrorCodes<Family extends string, Suffix extends string> = {
  readonly [Key in Suffix]: ToolErrorCode<`${Family}_${Key}`>
}

/** The longest code {@link isToolErrorCode} accepts. */
export const MAX_TOOL_ERROR_CODE_LENGTH = 64

const upperSnake = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/
const reservedWords: ReadonlySet<string> = new Set(ERROR_CODES.map((code) => code.split('_')[0] as string))

function firstWord(text: string): string {
  const end = text.indexOf('_')
  return end === -1 ? text : text.slice(0, end)
}

/**
 * True when `value` has the form of a tool-owned code: UPPER_SNAKE, at least two words, at most
 * {@link MAX_TOOL_ERROR_CODE_LENGTH} characters, and a first word that no core code starts with (so it never
 * collides with, or passes for, one of the {@link ERROR_CODES}). It cannot tell which package declared the code.
 */
export function isToolErrorCode(value: unknown): value is ToolErrorCode {
  return (
    typeof value === 'string' &&
    value.length <= MAX_TOOL_ERROR_CODE_LENGTH &&
    upperSnake.test(value) &&
    value.includes('_') &&
    !reservedWords.has(firstWord(value))
  )
}

/** True when `value` is a core code ({@link isErrorCode}) or a tool-owned one ({@link isToolErrorCode}). */
export function isDshErrorCode(value: unknown): value is DshErrorCode {
  return isErrorCode(value) || isToolErrorCode(value)
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value
}

/**
 * Declares the error codes a tool package owns, all prefixed with its tool family:
 * `defineToolErrorCodes('FILES', ['NOT_FOUND', 'TOO_LARGE'])` is `{ NOT_FOUND: 'FILES_NOT_FOUND', TOO_LARGE:
 * 'FILES_TOO_LARGE' }`, frozen, each value typed as its literal {@link ToolErrorCode}. Pass the codes to the
 * constructor of the package's own branded {@link DshError} subclasses; the registry copies them into
 * `result.error.code` unchanged.
 *
 * The family and every suffix must be UPPER_SNAKE, the family's first word must not be one that starts a core code
 * (`INVALID`, `TOOL`, `APPROVAL`, …; see {@link ReservedErrorCodeWord}), suffixes must be unique and each full
 * code at most {@link MAX_TOOL_ERROR_CODE_LENGTH} characters. Literal arguments are checked by the type system;
 * every argument is checked again at run time.
 *
 * @throws {@link InvalidErrorCodeError} (`INVALID_TOOL_DEFINITION`) listing every problem.
 */
export function defineToolErrorCodes<const Family extends string, const Suffixes extends readonly string[]>(
  family: CheckToolErrorFamily<Family>,
  suffixes: CheckToolErrorSuffixes<Suffixes>,
): ToolErrorCodes<Family, Suffixes[number]> {
  const problems: string[] = []
  const familyText: unknown = family
  if (typeof familyText !== 'string' || !upperSnake.test(familyText)) {
    problems.push(`the family must be UPPER_SNAKE (A-Z and 0-9, single "_" between words), got ${describe(familyText)}`)
  } else if (reservedWords.has(firstWord(familyText))) {
    problems.push(`the family ${describe(familyText)} starts with "${firstWord(familyText)}", a word reserved for core codes`)
  }
  const list: unknown = suffixes
  const codes: Record<string, string> = {}
  if (!Array.isArray(list) || list.length === 0) {
    problems.push(`the suffixes must be a non-empty array of strings, got ${describe(list)}`)
  } else {
    list.forEach((suffix: unknown, index) => {
      if (typeof suffix !== 'string' || !upperSnake.test(suffix)) {
        problems.push(`suffix ${index} must be UPPER_SNAKE (A-Z and 0-9, single "_" between words), got ${describe(suffix)}`)
        return
      }
      if (Object.hasOwn(codes, suffix)) {
        problems.push(`suffix ${index} (${describe(suffix)}) is listed twice`)
        return
      }
      const code = `${String(familyText)}_${suffix}`
      if (isErrorCode(code)) problems.push(`${describe(code)} is a core code`)
      else if (code.length > MAX_TOOL_ERROR_CODE_LENGTH) {
        problems.push(`${describe(code)} is longer than ${MAX_TOOL_ERROR_CODE_LENGTH} characters`)
      }
      codes[suffix] = code
    })
  }
  if (problems.length > 0) throw new InvalidErrorCodeError(problems)
  return Object.freeze(codes) as ToolErrorCodes<Family, Suffixes[number]>
}

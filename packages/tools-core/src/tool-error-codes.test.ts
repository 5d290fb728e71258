import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DshError } from './dsh-error.js'
import { ERROR_CODES, isErrorCode } from './error-codes.js'
import { InvalidErrorCodeError } from './invalid-error-code-error.js'
import { defineToolErrorCodes, isDshErrorCode, isToolErrorCode, MAX_TOOL_ERROR_CODE_LENGTH } from './tool-error-codes.js'

/** Calls the helper with values the type system would reject, as JavaScript callers can. */
const defineLoosely = defineToolErrorCodes as (family: unknown, suffixes: unknown) => Record<string, string>

function problemsOf(family: unknown, suffixes: unknown): readonly string[] {
  try {
    defineLoosely(family, suffixes)
  } catch (error) {
    if (InvalidErrorCodeError.isInstance(error)) return error.problems
    throw error
  }
  throw new Error('defineToolErrorCodes accepted it')
}

describe('defineToolErrorCodes', () => {
  it('returns a frozen map of prefixed codes that carry through DshError', () => {
    const codes = defineToolErrorCodes('FILES', ['NOT_FOUND', 'TOO_LARGE'])
    expect(codes).toEqual({ NOT_FOUND: 'FILES_NOT_FOUND', TOO_LARGE: 'FILES_TOO_LARGE' })
    expect(Object.isFrozen(codes)).toBe(true)
    const error = new DshError(codes.NOT_FOUND, 'no such file')
    expect(error.toInfo()).toEqual({ name: 'DshError', code: 'FILES_NOT_FOUND' })
    expect(isToolErrorCode(error.code)).toBe(true)
    expect(isErrorCode(error.code)).toBe(false)
  })

  it('rejects at run time what the types reject, listing every problem', () => {
    expect(problemsOf('files', ['NOT_FOUND', 'bad'])).toEqual([
      'the family must be UPPER_SNAKE (A-Z and 0-9, single "_" between words), got "files"',
      'suffix 1 must be UPPER_SNAKE (A-Z and 0-9, single "_" between words), got "bad"',
    ])
    expect(problemsOf('TOOL', ['FAILED'])).toEqual([
      'the family "TOOL" starts with "TOOL", a word reserved for core codes',
      '"TOOL_FAILED" is a core code',
    ])
    expect(problemsOf('APPROVAL_X', ['Y'])).toEqual(['the family "APPROVAL_X" starts with "APPROVAL", a word reserved for core codes'])
    expect(problemsOf('FILES', [])).toEqual(['the suffixes must be a non-empty array of strings, got an array'])
    expect(problemsOf('FILES', 'NOT_FOUND')).toEqual(['the suffixes must be a non-empty array of strings, got "NOT_FOUND"'])
    expect(problemsOf('FILES', ['A', 'A'])).toEqual(['suffix 1 ("A") is listed twice'])
    expect(problemsOf(3, ['A'])).toEqual(['the family must be UPPER_SNAKE (A-Z and 0-9, single "_" between words), got number'])
    const long = 'X'.repeat(MAX_TOOL_ERROR_CODE_LENGTH)
    expect(problemsOf('FILES', [long])).toEqual([`"FILES_${long}" is longer than 64 characters`])
  })

  it('the thrown error is branded and coded', () => {
    let thrown: unknown
    try {
      defineLoosely('x', ['Y'])
    } catch (error) {
      thrown = error
    }
    expect(InvalidErrorCodeError.isInstance(thrown)).toBe(true)
    expect((thrown as InvalidErrorCodeError).code).toBe('INVALID_TOOL_DEFINITION')
    expect((thrown as Error).message).toMatch(/^Invalid tool error codes: the family must be UPPER_SNAKE/)
  })
})

describe('isToolErrorCode', () => {
  it('accepts prefixed UPPER_SNAKE codes and nothing a core code could be', () => {
    for (const code of ['FILES_NOT_FOUND', 'BASH_SPAWN_FAILED', 'A1_B2', 'BASH_SANDBOX_NO_BWRAP']) expect(isToolErrorCode(code), code).toBe(true)
    for (const code of ['FILES', 'files_x', 'FILES__X', 'FILES_', '_FILES', 'FILES-X', '', 'INVALID_FOO', 'TOOL_FAILED', 1, null]) {
      expect(isToolErrorCode(code), String(code)).toBe(false)
    }
    expect(isToolErrorCode(`A_${'B'.repeat(MAX_TOOL_ERROR_CODE_LENGTH)}`)).toBe(false)
  })

  it('never accepts a core code, for every core code', () => {
    for (const code of ERROR_CODES) {
      expect(isToolErrorCode(code), code).toBe(false)
      expect(isDshErrorCode(code), code).toBe(true)
    }
  })

  it('whatever defineToolErrorCodes accepts, isToolErrorCode accepts and isErrorCode does not', () => {
    const word = fc.stringMatching(/^[A-Z][A-Z0-9]{0,6}$/)
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 3 }), fc.uniqueArray(word, { minLength: 1, maxLength: 4 }), (familyWords, suffixes) => {
        const family = familyWords.join('_')
        let codes: Record<string, string>
        try {
          codes = defineLoosely(family, suffixes)
        } catch (error) {
          expect(InvalidErrorCodeError.isInstance(error)).toBe(true)
          return
        }
        for (const code of Object.values(codes)) {
          expect(isToolErrorCode(code)).toBe(true)
          expect(isErrorCode(code)).toBe(false)
          expect(code.startsWith(`${family}_`)).toBe(true)
        }
      }),
    )
  })
})

import { describe, expectTypeOf, it } from 'vitest'
import { DshError, type ToolErrorInfo } from './dsh-error.js'
import type { ErrorCode } from './error-codes.js'
import {
  defineToolErrorCodes,
  isDshErrorCode,
  isToolErrorCode,
  type DshErrorCode,
  type IsUpperSnake,
  type ToolErrorCode,
} from './tool-error-codes.js'

describe('defineToolErrorCodes', () => {
  it('infers a frozen map from each suffix to its literal, branded code', () => {
    const codes = defineToolErrorCodes('FILES', ['NOT_FOUND', 'TOO_LARGE'])
    expectTypeOf(codes).toEqualTypeOf<{
      readonly NOT_FOUND: ToolErrorCode<'FILES_NOT_FOUND'>
      readonly TOO_LARGE: ToolErrorCode<'FILES_TOO_LARGE'>
    }>()
    expectTypeOf(codes.NOT_FOUND).toExtend<'FILES_NOT_FOUND'>()
    expectTypeOf(codes.NOT_FOUND).toExtend<ToolErrorCode>()
    expectTypeOf(codes.NOT_FOUND).toExtend<DshErrorCode>()
    // @ts-expect-error only the declared suffixes are keys
    void codes.MISSING
  })

  it('accepts families and suffixes with digits and several words', () => {
    const codes = defineToolErrorCodes('BASH_SANDBOX', ['NO_BWRAP', 'EXIT_2'])
    expectTypeOf(codes.EXIT_2).toExtend<'BASH_SANDBOX_EXIT_2'>()
  })

  it('rejects a family or a suffix that is not UPPER_SNAKE, and a reserved family', () => {
    // @ts-expect-error lower case
    defineToolErrorCodes('files', ['NOT_FOUND'])
    // @ts-expect-error a trailing underscore
    defineToolErrorCodes('FILES_', ['NOT_FOUND'])
    // @ts-expect-error lower case suffix
    defineToolErrorCodes('FILES', ['not_found'])
    // @ts-expect-error a double underscore in a suffix
    defineToolErrorCodes('FILES', ['NOT__FOUND'])
    // @ts-expect-error TOOL starts core codes (TOOL_FAILED, TOOL_TIMEOUT): TOOL_FAILED would collide
    defineToolErrorCodes('TOOL', ['FAILED'])
    // @ts-expect-error INVALID starts core codes
    defineToolErrorCodes('INVALID_FILES', ['PATH'])
    // @ts-expect-error a family that is not a literal cannot be checked
    defineToolErrorCodes('FILES' as string, ['NOT_FOUND'])
  })

  it('IsUpperSnake is exact', () => {
    expectTypeOf<IsUpperSnake<'A1_B2'>>().toEqualTypeOf<true>()
    expectTypeOf<IsUpperSnake<'A__B'>>().toEqualTypeOf<false>()
    expectTypeOf<IsUpperSnake<'_A'>>().toEqualTypeOf<false>()
    expectTypeOf<IsUpperSnake<'1A'>>().toEqualTypeOf<false>()
    expectTypeOf<IsUpperSnake<''>>().toEqualTypeOf<false>()
    expectTypeOf<IsUpperSnake<string>>().toEqualTypeOf<false>()
  })
})

describe('codes in errors and results', () => {
  it('DshError takes core codes and declared tool codes, not bare strings', () => {
    const codes = defineToolErrorCodes('FILES', ['NOT_FOUND'])
    void new DshError(codes.NOT_FOUND, 'x')
    void new DshError('TOOL_FAILED', 'x')
    // @ts-expect-error an undeclared code
    void new DshError('FILES_NOT_FOUND', 'x')
    expectTypeOf<ToolErrorInfo['code']>().toEqualTypeOf<ErrorCode | ToolErrorCode>()
  })

  it('a code read back from data narrows with the guards; core codes stay switchable exhaustively', () => {
    const code = 'FILES_NOT_FOUND' as DshErrorCode
    expectTypeOf(code === 'FILES_NOT_FOUND').toEqualTypeOf<boolean>()
    const data: unknown = 'FILES_NOT_FOUND'
    if (isToolErrorCode(data)) expectTypeOf(data).toEqualTypeOf<ToolErrorCode>()
    if (isDshErrorCode(data)) expectTypeOf(data).toEqualTypeOf<DshErrorCode>()
    const exhaustive = (value: ErrorCode): string => {
      switch (value) {
        case 'INVALID_ARGS':
          return 'fix the arguments'
        default:
          return value
      }
    }
    expectTypeOf(exhaustive).parameter(0).toEqualTypeOf<ErrorCode>()
  })
})

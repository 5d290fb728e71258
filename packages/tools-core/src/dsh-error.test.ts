import { describe, expect, it, vi } from 'vitest'
import { DshError, errorBrand, findUnbrandedErrorClasses } from './dsh-error.js'
import { ERROR_CODES, isErrorCode } from './error-codes.js'
import { NonJsonValueError } from './non-json-value-error.js'

describe('DshError', () => {
  it('carries a code, a message and an ES2022 cause', () => {
    const cause = new Error('root')
    const error = new DshError('TOOL_FAILED', 'the tool failed', { cause })
    expect(error.code).toBe('TOOL_FAILED')
    expect(error.message).toBe('the tool failed')
    expect(error.cause).toBe(cause)
    expect(error.name).toBe('DshError')
    expect(error.toInfo()).toEqual({ name: 'DshError', code: 'TOOL_FAILED' })
    expect(error).toBeInstanceOf(Error)
  })

  it('has no cause property when none is given', () => {
    expect('cause' in new DshError('DENIED', 'no')).toBe(false)
  })

  it('brands every instance with its whole class chain', () => {
    const error = new NonJsonValueError({ path: 'a', segments: ['a'], reason: 'undefined', detail: 'd', message: 'm' })
    expect(DshError.isInstance(error)).toBe(true)
    expect(NonJsonValueError.isInstance(error)).toBe(true)
    expect(NonJsonValueError.isInstance(new DshError('DENIED', 'x'))).toBe(false)
    expect(DshError.isInstance(new Error('plain'))).toBe(false)
    expect(DshError.isInstance({ code: 'DENIED' })).toBe(false)
    expect(DshError.isInstance(null)).toBe(false)
    expect(error.toInfo()).toEqual({ name: 'NonJsonValueError', code: 'NON_JSON_VALUE' })
  })

  it('isInstance holds across two installed copies of the package', async () => {
    vi.resetModules()
    const copyA = await import('./index.js')
    vi.resetModules()
    const copyB = await import('./index.js')
    expect(copyA.DshError).not.toBe(copyB.DshError)
    const fromA = new copyA.NonJsonValueError({ path: '', segments: [], reason: 'cycle', detail: 'd', message: 'm' })
    expect(fromA instanceof copyB.DshError).toBe(false)
    expect(copyB.DshError.isInstance(fromA)).toBe(true)
    expect(copyB.NonJsonValueError.isInstance(fromA)).toBe(true)
  })

  it('brands with Symbol.for so any copy agrees', () => {
    expect(DshError.brand).toBe(Symbol.for('dsh.error.DshError'))
    expect(errorBrand('X')).toBe(Symbol.for('dsh.error.X'))
  })
})

describe('findUnbrandedErrorClasses', () => {
  it('finds nothing unbranded in this package', async () => {
    expect(findUnbrandedErrorClasses(await import('./index.js'))).toEqual([])
  })

  it('flags an error class without its own brand or isInstance, and plain Error subclasses', () => {
    class Inherits extends DshError {}
    class WrongBrand extends DshError {
      static override readonly brand: symbol = errorBrand('Other')
      static override isInstance(value: unknown): value is WrongBrand {
        return DshError.hasBrand(value, WrongBrand.brand)
      }
    }
    class NoIsInstance extends DshError {
      static override readonly brand: symbol = errorBrand('NoIsInstance')
    }
    class Good extends DshError {
      static override readonly brand: symbol = errorBrand('Good')
      static override isInstance(value: unknown): value is Good {
        return DshError.hasBrand(value, Good.brand)
      }
    }
    class Plain extends Error {}
    const found = findUnbrandedErrorClasses({ Inherits, WrongBrand, NoIsInstance, Good, Plain, notAClass: 1 })
    expect(found).toEqual(['Inherits', 'WrongBrand', 'NoIsInstance', 'Plain'])
  })
})

describe('error codes', () => {
  it('are unique and recognised', () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length)
    for (const code of ERROR_CODES) expect(isErrorCode(code)).toBe(true)
    expect(isErrorCode('NOPE')).toBe(false)
    expect(isErrorCode(1)).toBe(false)
  })

  it('include every code the design names', () => {
    for (const code of [
      'INVALID_ARGS', 'INVALID_TOOL_OUTPUT', 'UNSUPPORTED_SCHEMA', 'UNKNOWN_TOOL', 'DENIED', 'INVALID_DECISION',
      'APPROVAL_REJECTED', 'APPROVAL_CANCELLED', 'APPROVAL_UNAVAILABLE', 'ABORTED', 'ABORTED_BEFORE_DISPATCH',
      'TOOL_TIMEOUT', 'TOOL_TIMEOUT_ABANDONED', 'TOOL_FAILED',
    ]) {
      expect(isErrorCode(code), code).toBe(true)
    }
  })
})

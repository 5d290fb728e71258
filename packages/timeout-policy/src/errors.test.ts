import { DshError, findUnbrandedErrorClasses } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import { TimeoutPolicyConfigError } from './timeout-policy-config-error.js'
import { ToolTimeoutAbandonedError } from './tool-timeout-abandoned-error.js'
import { ToolTimeoutError } from './tool-timeout-error.js'

describe('error classes', () => {
  it('every exported error class is branded', async () => {
    expect(findUnbrandedErrorClasses(await import('./index.js'))).toEqual([])
  })

  it('ToolTimeoutError: TOOL_TIMEOUT with the budget', () => {
    const error = new ToolTimeoutError(1500)
    expect(error).toBeInstanceOf(DshError)
    expect(error).toMatchObject({ name: 'ToolTimeoutError', code: 'TOOL_TIMEOUT', timeoutMs: 1500, message: 'Tool call timed out after 1500ms' })
    expect(error.toInfo()).toEqual({ name: 'ToolTimeoutError', code: 'TOOL_TIMEOUT' })
    const cause = new Error('inner')
    expect(new ToolTimeoutError(5, 'custom', { cause })).toMatchObject({ message: 'custom', cause })
  })

  it('ToolTimeoutAbandonedError: TOOL_TIMEOUT_ABANDONED with the budget and the grace', () => {
    const error = new ToolTimeoutAbandonedError(1000, 250)
    expect(error).toMatchObject({ name: 'ToolTimeoutAbandonedError', code: 'TOOL_TIMEOUT_ABANDONED', timeoutMs: 1000, graceMs: 250 })
    expect(error.message).toBe(
      'Tool call timed out after 1000ms and did not stop within 250ms; it was abandoned and its side effects may still be running',
    )
  })

  it('isInstance holds for the brand, not for lookalikes or the other classes', () => {
    const timeout = new ToolTimeoutError(1)
    const abandoned = new ToolTimeoutAbandonedError(1, 1)
    const config = new TimeoutPolicyConfigError(['x: bad'])
    expect([ToolTimeoutError.isInstance(timeout), ToolTimeoutError.isInstance(abandoned), ToolTimeoutError.isInstance(config)]).toEqual([true, false, false])
    expect(ToolTimeoutAbandonedError.isInstance(abandoned)).toBe(true)
    expect(TimeoutPolicyConfigError.isInstance(config)).toBe(true)
    expect(ToolTimeoutError.isInstance({ name: 'ToolTimeoutError', code: 'TOOL_TIMEOUT' })).toBe(false)
    // a copy from another installed version of the package carries the same Symbol.for brand
    const foreign = Object.defineProperty(new Error('x'), Symbol.for('dsh.error.ToolTimeoutError'), { value: true })
    expect(ToolTimeoutError.isInstance(foreign)).toBe(true)
  })
})

import { DshError, findUnbrandedErrorClasses } from '@dsh/tools-core'
import { describe, expect, it, vi } from 'vitest'
import {
  DuplicateToolError,
  InvalidDecisionError,
  InvalidToolCallError,
  InvalidToolDefinitionError,
  InvalidToolPolicyError,
  InvalidToolResultError,
  PostExecuteBlockedError,
  ToolAbortedError,
  ToolDeniedError,
  ToolFailedError,
  ToolNotFoundError,
} from './index.js'

describe('error classes', () => {
  it('every exported error class is branded', async () => {
    expect(findUnbrandedErrorClasses(await import('./index.js'))).toEqual([])
  })

  it.each([
    [new InvalidToolDefinitionError('name', 'm'), 'InvalidToolDefinitionError', 'INVALID_TOOL_DEFINITION'],
    [new DuplicateToolError('read', 'm'), 'DuplicateToolError', 'DUPLICATE_TOOL'],
    [new InvalidToolPolicyError('m'), 'InvalidToolPolicyError', 'INVALID_CONFIG'],
    [new ToolNotFoundError('m'), 'ToolNotFoundError', 'UNKNOWN_TOOL'],
    [new ToolDeniedError('GUARD_DENIED', 'm'), 'ToolDeniedError', 'GUARD_DENIED'],
    [new InvalidDecisionError('m'), 'InvalidDecisionError', 'INVALID_DECISION'],
    [new InvalidToolResultError('m'), 'InvalidToolResultError', 'INVALID_RESULT'],
    [new ToolAbortedError('ABORTED', 'm'), 'ToolAbortedError', 'ABORTED'],
    [new ToolFailedError('m', { cause: new Error('root') }), 'ToolFailedError', 'TOOL_FAILED'],
    [new PostExecuteBlockedError('m'), 'PostExecuteBlockedError', 'POST_EXECUTE_BLOCKED'],
    [new InvalidToolCallError('m'), 'InvalidToolCallError', 'INVALID_CALL'],
  ])('%s carries its name and code as data', (error, name, code) => {
    expect(error.toInfo()).toEqual({ name, code })
    expect(DshError.isInstance(error)).toBe(true)
    expect(error).toBeInstanceOf(Error)
  })

  it('isInstance holds across two installed copies of the package', async () => {
    vi.resetModules()
    const copyA = await import('./index.js')
    vi.resetModules()
    const copyB = await import('./index.js')
    expect(copyA.ToolDeniedError).not.toBe(copyB.ToolDeniedError)
    const error = new copyA.ToolDeniedError('DENIED', 'no')
    expect(copyB.ToolDeniedError.isInstance(error)).toBe(true)
    expect(copyB.ToolFailedError.isInstance(error)).toBe(false)
  })

  it('a thrown registry error keeps its { name, code } when a tool rethrows it', async () => {
    const { createHarness, call, tool } = await import('./test-kit.js')
    const { tools } = await createHarness()
    tools.register(tool('nested', { execute: async () => Promise.reject(new ToolDeniedError('DENIED', 'the inner call was denied')) }))
    expect((await tools.execute(call('nested'))).error).toEqual({ name: 'ToolDeniedError', code: 'DENIED' })
  })
})

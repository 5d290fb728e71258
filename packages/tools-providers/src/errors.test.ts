import { DshError, findUnbrandedErrorClasses, isToolErrorCode } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import * as anthropic from './anthropic/index.js'
import * as gemini from './gemini/index.js'
import * as root from './index.js'
import * as openai from './openai/index.js'

describe('errors', () => {
  it('every exported error class of every subpath is branded', () => {
    for (const entry of [root, openai, anthropic, gemini]) expect(findUnbrandedErrorClasses(entry)).toEqual([])
  })

  it('the codes are well-formed tool-owned codes, and each class carries its own', () => {
    expect(Object.values(root.PROVIDER_ERROR_CODES).every(isToolErrorCode)).toBe(true)
    const errors = [
      [new root.ProviderInputError('x'), 'PROVIDER_INVALID_INPUT'],
      [new root.MalformedToolCallError('x'), 'PROVIDER_MALFORMED_CALL'],
      [new root.ProviderSchemaError([]), 'PROVIDER_UNSUPPORTED_SCHEMA'],
      [new root.ProviderToolNameError('x', ['a']), 'PROVIDER_INVALID_TOOL_NAME'],
    ] as const
    for (const [error, code] of errors) {
      expect(DshError.isInstance(error)).toBe(true)
      expect(error.toInfo()).toEqual({ name: error.constructor.name, code })
    }
  })
})

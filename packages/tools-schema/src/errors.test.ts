import { DshError, findUnbrandedErrorClasses } from '@dsh/tools-core'
import { describe, expect, test } from 'vitest'
import { JsonSchemaError } from './json-schema-error.js'
import { OutputSchemaError } from './output-schema-error.js'
import { schemaProblem } from './schema-problem.js'
import { StructuredValueError } from './structured-value-error.js'
import { ToolArgsError } from './tool-args-error.js'
import { ToolDefinitionError } from './tool-definition-error.js'
import { ToolOutputError } from './tool-output-error.js'
import type { Violation } from './violation.js'

const violation: Violation = { path: 'a', segments: ['a'], keyword: 'required', message: 'is required but missing' }

describe('errors', () => {
  test('every exported error class is branded', async () => {
    expect(findUnbrandedErrorClasses(await import('./index.js'))).toEqual([])
  })

  test.each([
    [new JsonSchemaError([schemaProblem([], 'x')]), 'JsonSchemaError', 'UNSUPPORTED_SCHEMA'],
    [new OutputSchemaError([schemaProblem([], 'x')]), 'OutputSchemaError', 'UNSUPPORTED_OUTPUT_SCHEMA'],
    [new ToolArgsError({ violations: [violation] }), 'ToolArgsError', 'INVALID_ARGS'],
    [new ToolOutputError({ toolName: 't', violations: [violation] }), 'ToolOutputError', 'INVALID_TOOL_OUTPUT'],
    [new StructuredValueError({ violations: [violation] }), 'StructuredValueError', 'INVALID_STRUCTURED_VALUE'],
    [new ToolDefinitionError('t', [schemaProblem(['name'], 'x')]), 'ToolDefinitionError', 'INVALID_TOOL_DEFINITION'],
  ])('%s has its name and code, and crosses boundaries as data', (error, name, code) => {
    expect(error.name).toBe(name)
    expect(error.code).toBe(code)
    expect(error.toInfo()).toEqual({ name, code })
    expect(DshError.isInstance(error)).toBe(true)
    expect(error).toBeInstanceOf(Error)
  })

  test('isInstance tells the classes apart, also for a copy from another installation', () => {
    const args = new ToolArgsError({ violations: [violation] })
    expect(ToolArgsError.isInstance(args)).toBe(true)
    expect(ToolOutputError.isInstance(args)).toBe(false)
    // What a second installed copy of the package would produce: same brand symbol, different class.
    const foreign = Object.create(Error.prototype) as Record<symbol, unknown>
    Object.defineProperty(foreign, Symbol.for('dsh.error.ToolArgsError'), { value: true })
    expect(ToolArgsError.isInstance(foreign)).toBe(true)
    expect(ToolArgsError.isInstance({ code: 'INVALID_ARGS' })).toBe(false)
  })

  test('ToolArgsError lists what was left out, and keeps its cause', () => {
    const cause = new Error('underlying')
    const error = new ToolArgsError({ toolName: 'read_file', violations: [violation], omitted: 4 }, { cause })
    expect(error.message).toBe(
      'Invalid arguments for tool "read_file" (5 problems):\n- a: is required but missing\n- … and 4 more\n' +
        'Fix the arguments to match the parameter schema and call "read_file" again.',
    )
    expect(error.cause).toBe(cause)
    expect(new ToolArgsError({ violations: [violation] }).message).toContain('Invalid arguments for the tool (1 problem)')
    expect(Object.isFrozen(error.violations)).toBe(true)
  })

  test('ToolDefinitionError names an unnamed tool', () => {
    expect(new ToolDefinitionError(undefined, [schemaProblem([], 'bad')]).message).toBe(
      'Invalid definition of tool (unnamed) (1 problem):\n- (schema): bad',
    )
  })
})

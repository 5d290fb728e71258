import type { ToolDefinition, ToolExecution } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import { createTestAgent } from './create-test-agent.js'
import { createToolExecution } from './create-tool-execution.js'
import { InvalidTestOptionError } from './invalid-test-option-error.js'

describe('createToolExecution', () => {
  it('has what the registry gives a tool: identity, frozen JSON arguments, a token and a live signal', () => {
    const exec = createToolExecution({ name: 'echo', arguments: { text: 'hi', tags: ['a'] } })
    expect(exec.name).toBe('echo')
    expect(exec.callId).toMatch(/^test_call_\d+$/)
    expect(exec.arguments).toEqual({ text: 'hi', tags: ['a'] })
    expect(Object.isFrozen(exec.arguments)).toBe(true)
    expect(Object.isFrozen((exec.arguments as { tags: string[] }).tags)).toBe(true)
    expect(typeof exec.token).toBe('symbol')
    expect(exec.signal).toBeInstanceOf(AbortSignal)
    expect(exec.signal.aborted).toBe(false)
    expect(exec.agent).toBeUndefined()
    expect(exec.parent).toBeUndefined()
  })

  it('detaches the arguments from the caller\'s object', () => {
    const args = { text: 'before' }
    const exec = createToolExecution({ name: 'echo', arguments: args })
    args.text = 'after'
    expect(exec.arguments).toEqual({ text: 'before' })
  })

  it('gives every execution its own call id and token, and defaults the arguments to {}', () => {
    const first = createToolExecution({ name: 'echo' })
    const second = createToolExecution({ name: 'echo' })
    expect(first.callId).not.toBe(second.callId)
    expect(first.token).not.toBe(second.token)
    expect(first.arguments).toEqual({})
  })

  it('takes the call id, signal, agent and parent it is given', () => {
    const controller = new AbortController()
    const agent = createTestAgent('a1')
    const parent = createToolExecution({ name: 'outer' }).token
    const exec = createToolExecution({ name: 'echo', callId: 'call_7', signal: controller.signal, agent, parent })
    expect(exec).toMatchObject({ callId: 'call_7', signal: controller.signal, agent, parent })
    controller.abort()
    expect(exec.signal.aborted).toBe(true)
  })

  it('keeps the identity read-only; only the signal may be swapped, as in the pipeline', () => {
    const exec = createToolExecution({ name: 'echo' })
    expect(() => {
      ;(exec as { name: string }).name = 'other'
    }).toThrow(TypeError)
    expect(() => {
      ;(exec as { token: symbol }).token = Symbol('forged')
    }).toThrow(TypeError)
    const replacement = new AbortController().signal
    exec.signal = replacement
    expect(exec.signal).toBe(replacement)
    expect(() => Object.assign(exec, { extra: 1 })).toThrow(TypeError)
  })

  it('runs a tool body directly', async () => {
    const seen: ToolExecution[] = []
    const echo: ToolDefinition = {
      name: 'echo',
      description: 'Echoes text.',
      parameters: { type: 'object', properties: { text: { type: 'string' } } },
      async execute(args, exec) {
        seen.push(exec)
        return [{ type: 'text', text: String((args as { text: string }).text) }]
      },
    }
    const exec = createToolExecution({ name: 'echo', arguments: { text: 'hi' } })
    expect(await echo.execute(exec.arguments, exec)).toEqual([{ type: 'text', text: 'hi' }])
    expect(seen).toEqual([exec])
  })

  it.each([
    ['a name that is not a string', { name: 3 }, 'invalid option name: expected a string'],
    ['a call id that is not a string', { name: 'x', callId: 1 }, 'invalid option callId: expected a string'],
    ['a signal that is not an AbortSignal', { name: 'x', signal: {} }, 'invalid option signal: expected an AbortSignal'],
    ['arguments that are not JSON', { name: 'x', arguments: { when: new Date(0) } }, /^invalid option arguments: /],
  ])('rejects %s', (_label, options, message) => {
    let thrown: unknown
    try {
      createToolExecution(options as never)
    } catch (error) {
      thrown = error
    }
    expect(InvalidTestOptionError.isInstance(thrown)).toBe(true)
    if (typeof message === 'string') expect((thrown as Error).message).toBe(message)
    else expect((thrown as Error).message).toMatch(message)
  })
})

import type { ToolDefinition, ToolResult } from '@dsh/tools-core'
import { describe, expect, it, vi } from 'vitest'
import { terminalCall } from './card-builders.js'
import { genericCallFallback, genericResultFallback, presentToolCall, presentToolResult, type PresenterFailure } from './present-tool.js'
import { terminalResultFromMeta } from './terminal-result-meta.js'
import { UnknownCardError } from './unknown-card-error.js'

const result: ToolResult = { content: [{ type: 'text', text: 'hello' }], isError: false }

describe('presentToolCall', () => {
  it('uses the generic card when the tool has no presenter or it returns undefined', () => {
    expect(presentToolCall({ name: 'echo' }, { text: 'hi' })).toEqual({ card: 'generic', title: 'echo', rawInput: { text: 'hi' } })
    expect(presentToolCall({ name: 'echo', presentCall: () => undefined }, { text: 'hi' })).toEqual(
      genericCallFallback('echo', { text: 'hi' }),
    )
    expect(presentToolCall({ name: 'noargs' }, undefined)).toEqual({ card: 'generic', title: 'noargs' })
  })

  it('returns the presenter card, calling it as a method of the tool', () => {
    const tool = {
      name: 'bash',
      prefix: '$ ',
      presentCall(this: { prefix: string }, args: unknown) {
        return terminalCall({ title: this.prefix + (args as { command: string }).command })
      },
    }
    expect(presentToolCall(tool, { command: 'ls' })).toEqual({ card: 'terminal', title: '$ ls' })
  })

  it('contains a throwing presenter and reports it', () => {
    const onError = vi.fn<(failure: PresenterFailure) => void>()
    const boom = new Error('boom')
    const view = presentToolCall(
      {
        name: 'flaky',
        presentCall() {
          throw boom
        },
      },
      { a: 1 },
      { onError },
    )
    expect(view).toEqual({ card: 'generic', title: 'flaky', rawInput: { a: 1 } })
    expect(onError).toHaveBeenCalledWith({ tool: 'flaky', phase: 'call', error: boom })
  })

  it('contains a presenter that throws undefined, or whose getter throws', () => {
    const onError = vi.fn()
    const throwsUndefined = {
      name: 'odd',
      presentCall() {
        // oxlint-disable-next-line no-throw-literal
        throw undefined
      },
    }
    expect(presentToolCall(throwsUndefined, 1, { onError })).toEqual({ card: 'generic', title: 'odd', rawInput: 1 })
    expect(onError).toHaveBeenCalledWith({ tool: 'odd', phase: 'call', error: undefined })
    const getter = {
      name: 'getter',
      get presentCall(): () => undefined {
        throw new Error('getter')
      },
    }
    expect(presentToolCall(getter, 2)).toEqual({ card: 'generic', title: 'getter', rawInput: 2 })
  })

  it('falls back when the presenter returns something that is not a card', () => {
    const failures: PresenterFailure[] = []
    const view = presentToolCall(
      { name: 'chart', presentCall: () => ({ card: 'chart', title: 'x' }) as never },
      {},
      { onError: (failure) => failures.push(failure) },
    )
    expect(view).toEqual({ card: 'generic', title: 'chart', rawInput: {} })
    expect(failures).toHaveLength(1)
    expect(UnknownCardError.isInstance(failures[0]!.error)).toBe(true)
    expect(failures[0]!.error).toMatchObject({ code: 'UNKNOWN_CARD', card: 'chart' })
    const getterCard = { card: 'terminal', get title(): string { throw new Error('title getter') } }
    expect(presentToolCall({ name: 'g', presentCall: () => getterCard as never }, 0)).toEqual({ card: 'generic', title: 'g', rawInput: 0 })
  })

  it('survives an onError hook that throws', () => {
    const tool = { name: 't', presentCall: (): never => { throw new Error('x') } }
    expect(() => presentToolCall(tool, 1, { onError: () => { throw new Error('logger down') } })).not.toThrow()
  })

  it('accepts a ToolDefinition as it is', () => {
    const definition: ToolDefinition = {
      name: 'bash',
      description: 'Run a command.',
      parameters: { type: 'object' },
      execute: async () => [],
      presentCall: (args) => terminalCall({ title: String((args as { command: string }).command) }),
      presentResult: (_args, toolResult) => terminalResultFromMeta(toolResult),
    }
    expect(presentToolCall(definition, { command: 'pwd' })).toEqual({ card: 'terminal', title: 'pwd' })
    const done = { content: [], isError: false, meta: { exitCode: 0, signal: null, timedOut: false } }
    expect(presentToolResult(definition, {}, done)).toEqual({
      card: 'terminal',
      output: '',
      exitCode: 0,
      signal: null,
      timedOut: false,
    })
  })
})

describe('presentToolResult', () => {
  it('hands the presenter the replayable projections only: never the structuredContent a live result carries', () => {
    const seen: unknown[] = []
    const tool = { name: 'lookup', presentResult: (_args: unknown, shown: ToolResult) => void seen.push(shown) }
    const live = { ...result, meta: { rows: 1 }, structuredContent: { secret: 'canonical' } }
    presentToolResult(tool, {}, live)
    presentToolResult(tool, {}, result)
    expect(seen[0]).toEqual({ ...result, meta: { rows: 1 } })
    expect(seen[1]).toBe(result)
  })

  it('uses the generic card with the raw content when there is no presenter', () => {
    expect(presentToolResult({ name: 'echo' }, {}, result)).toEqual({ card: 'generic', content: [{ type: 'text', text: 'hello' }] })
    expect(presentToolResult({ name: 'echo', presentResult: () => undefined }, {}, result)).toEqual(genericResultFallback(result))
  })

  it('passes args and result to the presenter', () => {
    const presentResult = vi.fn(() => ({ card: 'generic' as const, title: 'Echoed' }))
    expect(presentToolResult({ name: 'echo', presentResult }, { text: 'hi' }, result)).toEqual({ card: 'generic', title: 'Echoed' })
    expect(presentResult).toHaveBeenCalledWith({ text: 'hi' }, result)
  })

  it('contains throwing and malformed presenters', () => {
    const onError = vi.fn<(failure: PresenterFailure) => void>()
    const throwing = { name: 'x', presentResult: (): never => { throw new TypeError('bad') } }
    expect(presentToolResult(throwing, {}, result, { onError })).toEqual(genericResultFallback(result))
    expect(onError.mock.calls[0]![0]).toMatchObject({ tool: 'x', phase: 'result' })
    const malformed = { name: 'y', presentResult: () => ({ card: 'terminal', exitCode: 'zero' }) as never }
    expect(presentToolResult(malformed, {}, result, { onError })).toEqual(genericResultFallback(result))
    expect(onError.mock.calls[1]![0].error).toMatchObject({ name: 'InvalidCardError', code: 'INVALID_CARD', path: 'exitCode' })
  })

  it('detaches the fallback content from the result', () => {
    const content = [{ type: 'text' as const, text: 'a' }]
    const view = genericResultFallback({ content })
    content.push({ type: 'text', text: 'b' })
    expect(view.content).toHaveLength(1)
    expect(genericResultFallback({ content: undefined as never })).toEqual({ card: 'generic', content: [] })
  })
})

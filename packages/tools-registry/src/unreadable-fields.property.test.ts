// Revoked proxies, throwing getters and throwing proxy traps, anywhere the registry reads a foreign object, become
// the documented coded errors, never a raw TypeError (issue 14, item 15).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { InvalidToolDefinitionError, InvalidToolPolicyError } from './index.js'
import { agent, call, createHarness, raw, text, textOf, tool } from './test-kit.js'

/** How a field is made unreadable. */
type Hostile = 'revoked-value' | 'throwing-getter' | 'throwing-trap'

const hostile = fc.constantFrom<Hostile>('revoked-value', 'throwing-getter', 'throwing-trap')

function revoked(): object {
  const { proxy, revoke } = Proxy.revocable({}, {})
  revoke()
  return proxy
}

/** A copy of `base` whose `field` cannot be read the way `how` says. */
function spoil(base: Record<string, unknown>, field: string, how: Hostile): object {
  const copy: Record<string, unknown> = { ...base }
  switch (how) {
    case 'revoked-value':
      copy[field] = revoked()
      return copy
    case 'throwing-getter':
      delete copy[field]
      Object.defineProperty(copy, field, { enumerable: true, get: () => { throw new Error(`getter of ${field}`) } })
      return copy
    case 'throwing-trap':
      return new Proxy(copy, {
        get: (target, key) => {
          if (key === field) throw new Error(`trap of ${field}`)
          return Reflect.get(target, key)
        },
        getOwnPropertyDescriptor: (target, key) => {
          if (key === field) throw new Error(`trap of ${field}`)
          return Reflect.getOwnPropertyDescriptor(target, key)
        },
      })
  }
}

const definition = {
  name: 'read',
  description: 'Reads.',
  parameters: { type: 'object', properties: {} },
  execute: async () => [text('ok')],
  timeoutMs: 1_000,
  concurrencySafe: false,
  title: 'Read',
  annotations: { readOnlyHint: true, destructiveHint: false },
  presentCall: () => undefined,
  presentResult: () => undefined,
  outputSchema: { type: 'object', properties: {} },
}

function thrownBy(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  return undefined
}

describe('register: an unreadable definition is InvalidToolDefinitionError naming the field', () => {
  it('for every field and every way of making it unreadable', async () => {
    const { tools } = await createHarness()
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(definition), 'annotations.readOnlyHint', 'annotations.destructiveHint', 'parameters.type', 'outputSchema.type'), hostile, async (field, how) => {
        const [outer, inner] = field.split('.') as [string, string | undefined]
        const spoiled =
          inner === undefined
            ? spoil(definition, outer, how)
            : { ...definition, [outer]: spoil(definition[outer as keyof typeof definition] as Record<string, unknown>, inner, how) }
        const error = thrownBy(() => tools.register(raw(spoiled)))
        // A revoked value where a function or a boolean goes is simply the wrong type; the field is still named.
        expect(InvalidToolDefinitionError.isInstance(error), String(error)).toBe(true)
        expect((error as InvalidToolDefinitionError).field.startsWith(outer)).toBe(true)
      }),
    )
  })

  it('a revoked proxy as the whole definition', async () => {
    const { tools } = await createHarness()
    const error = thrownBy(() => tools.register(raw(revoked())))
    expect(InvalidToolDefinitionError.isInstance(error)).toBe(true)
    expect((error as Error).message).toBe('A tool definition must be an object, got a revoked proxy')
  })
})

describe('restrict: an unreadable restriction is InvalidToolPolicyError naming the field', () => {
  it('for allow, deny and an element of either', async () => {
    const { tools } = await createHarness()
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('allow', 'deny', 'allow.0', 'deny.0'), hostile, async (field, how) => {
        const [key, index] = field.split('.') as ['allow' | 'deny', string | undefined]
        const restriction =
          index === undefined ? spoil({ [key]: ['read'] }, key, how) : { [key]: spoil(['read'] as unknown as Record<string, unknown>, index, how) }
        const error = thrownBy(() => tools.scope(agent('a')).restrict(restriction as never))
        expect(InvalidToolPolicyError.isInstance(error), String(error)).toBe(true)
        expect((error as Error).message).toContain(key)
      }),
    )
    expect(InvalidToolPolicyError.isInstance(thrownBy(() => tools.scope(agent('b')).restrict(revoked() as never)))).toBe(true)
  })
})

describe('execute: unreadable inputs, results and decisions are coded results', () => {
  it('an unreadable field of the call is INVALID_CALL naming it', async () => {
    const { tools } = await createHarness()
    const read = tool('read')
    tools.register(read)
    const input = { callId: 'c1', name: 'read', arguments: {}, agent: agent('a'), signal: new AbortController().signal }
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('callId', 'name', 'arguments', 'agent', 'signal'), hostile, async (field, how) => {
        const before = read.calls.length
        const result = await tools.execute(spoil(input, field, how) as never)
        expect(Object.isFrozen(result)).toBe(true)
        // A revoked proxy is a value like any other where it is only compared by identity (the agent).
        if (how === 'revoked-value' && field === 'agent') return
        expect(result.isError).toBe(true)
        // A revoked proxy as arguments is a non-JSON value, anywhere else a malformed call.
        expect(['INVALID_CALL', 'NON_JSON_VALUE']).toContain(result.error?.code)
        if (how !== 'revoked-value') expect(textOf(result)).toContain(field)
        expect(read.calls.length).toBe(before)
      }),
    )
    expect((await tools.execute(revoked() as never)).error?.code).toBe('INVALID_CALL')
  })

  it('an unreadable result of a body or a wrapper is INVALID_RESULT', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('content', 'meta', 'isError', 'additionalContext', 'error', 'content.0'),
        hostile,
        fc.boolean(),
        async (field, how, fromWrapper) => {
          const { ctx, tools } = await createHarness()
          const [key, index] = field.split('.') as [string, string | undefined]
          const base = { content: [text('x')], meta: { a: 1 }, isError: false, additionalContext: { content: [text('c')] }, error: undefined }
          const value =
            index === undefined ? spoil(base, key, how) : { ...base, content: spoil([text('x')] as unknown as Record<string, unknown>, index, how) }
          if (fromWrapper) {
            tools.register(tool('read'))
            ctx.on('tools/execute', () => value as never)
          } else {
            tools.register(tool('read', { execute: async () => value as never }))
          }
          const result = await tools.execute(call('read'))
          // A body's result has no isError, additionalContext or error of its own: those fields are not read. The
          // error info of a success is not looked at beyond reading the field, so a revoked one there is dropped.
          const unread = !fromWrapper && ['isError', 'additionalContext', 'error'].includes(key)
          const dropped = fromWrapper && key === 'error' && how === 'revoked-value'
          if (unread || dropped) expect(result.isError).toBe(false)
          else expect(result.error?.code).toBe('INVALID_RESULT')
        },
      ),
    )
  })

  it('an unreadable decision is INVALID_DECISION', async () => {
    const context = { content: [text('c')] }
    const cases: Array<[stage: 'pre' | 'post', decision: Record<string, unknown>, field: string]> = [
      ['pre', { kind: 'deny', reason: 'no' }, 'kind'],
      ['pre', { kind: 'deny', reason: 'no' }, 'reason'],
      ['post', { kind: 'block', feedback: [text('no')], additionalContext: context }, 'kind'],
      ['post', { kind: 'block', feedback: [text('no')], additionalContext: context }, 'feedback'],
      ['post', { kind: 'block', feedback: [text('no')], additionalContext: context }, 'additionalContext'],
      ['post', { kind: 'accept', content: [text('c')], additionalContext: context }, 'content'],
      ['post', { kind: 'accept', content: [text('c')], additionalContext: context }, 'additionalContext'],
    ]
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...cases), hostile, async ([stage, decision, field], how) => {
        const { ctx, tools } = await createHarness()
        const read = tool('read')
        tools.register(read)
        if (stage === 'pre') ctx.on('tools/pre-execute', () => spoil(decision, field, how) as never)
        else ctx.on('tools/post-execute', () => spoil(decision, field, how) as never)
        const result = await tools.execute(call('read'))
        expect(result.error?.code).toBe('INVALID_DECISION')
        if (stage === 'pre') expect(read.calls).toEqual([])
      }),
    )
  })
})

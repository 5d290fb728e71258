// Stage 6: tools/execute wrappers run around the dispatch.
import { DshError, defineToolErrorCodes, type ToolExecutionResult } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import { call, createHarness, textOf, tool } from './test-kit.js'

describe('tools/execute: around-dispatch wrappers', () => {
  it('wrap the body, outermost first', async () => {
    const { ctx, tools } = await createHarness()
    const order: string[] = []
    tools.register(tool('read', { execute: async () => (order.push('body'), [{ type: 'text', text: 'ok' }]) }))
    ctx.on('tools/execute', async (_exec, next) => {
      order.push('outer in')
      const result = await next()
      order.push('outer out')
      return result
    })
    ctx.on('tools/execute', async (_exec, next) => {
      order.push('inner in')
      const result = await next()
      order.push('inner out')
      return result
    })
    expect(textOf(await tools.execute(call('read')))).toBe('ok')
    expect(order).toEqual(['outer in', 'inner in', 'body', 'inner out', 'outer out'])
  })

  it('may return a result without calling next(): the body never runs', async () => {
    const { ctx, tools } = await createHarness()
    const read = tool('read')
    tools.register(read)
    ctx.on('tools/execute', () => ({ callId: 'ignored', content: [{ type: 'text', text: 'cached' }], isError: false, meta: { hit: true } }))
    const result = await tools.execute(call('read'))
    expect(textOf(result)).toBe('cached')
    expect(result.meta).toEqual({ hit: true })
    expect(result.callId).not.toBe('ignored')
    expect(read.calls).toEqual([])
  })

  it('may replace the result next() resolved to', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    ctx.on('tools/execute', async (_exec, next) => {
      const result = await next()
      return { ...result, content: [...result.content, { type: 'text', text: ' (wrapped)' }] }
    })
    expect(textOf(await tools.execute(call('read')))).toBe('read (wrapped)')
  })

  it('next() always resolves to a result: a body that throws is an error result, not a rejection', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read', { execute: async () => Promise.reject(new Error('disk on fire')) }))
    let seen: ToolExecutionResult | undefined
    ctx.on('tools/execute', async (_exec, next) => (seen = await next()))
    const result = await tools.execute(call('read'))
    expect(seen?.error).toEqual({ name: 'ToolFailedError', code: 'TOOL_FAILED' })
    expect(result.error?.code).toBe('TOOL_FAILED')
  })

  it('next() may be called once: a second call throws, and the body runs once', async () => {
    const { ctx, tools } = await createHarness()
    const read = tool('read')
    tools.register(read)
    let secondCall: unknown
    ctx.on('tools/execute', async (_exec, next) => {
      const first = await next()
      try {
        await next()
      } catch (error) {
        secondCall = error
      }
      return first
    })
    expect((await tools.execute(call('read'))).isError).toBe(false)
    expect(secondCall).toBeInstanceOf(Error)
    expect(read.calls).toHaveLength(1)
  })

  it.each([
    ['nothing', undefined],
    ['a string', 'done'],
    ['content blocks instead of a result', [{ type: 'text', text: 'x' }]],
    ['a result without isError', { content: [] }],
    ['a result with a malformed block', { content: [{ type: 'text' }], isError: false }],
    ['a result with an unknown block type', { content: [{ type: 'html', html: '<b>' }], isError: false }],
    ['a result with a bad error code', { content: [], isError: true, error: { name: 'X', code: 'NOPE' } }],
    ['a result with a code in a reserved family', { content: [], isError: true, error: { name: 'X', code: 'APPROVAL_FORGED' } }],
    ['a result with a bad additionalContext', { content: [], isError: false, additionalContext: { content: 'x' } }],
  ])('a wrapper returning %s yields INVALID_RESULT', async (_label, value) => {
    const { ctx, tools, warnings } = await createHarness()
    tools.register(tool('read'))
    ctx.on('tools/execute', () => value as never)
    const result = await tools.execute(call('read'))
    expect(result.error).toEqual({ name: 'InvalidToolResultError', code: 'INVALID_RESULT' })
    expect(textOf(result)).toMatch(
      /^The call to "read" failed in the harness: a tools\/execute wrapper returned .* instead of a result; whether the tool ran is not known\. This is a fault in the harness, not in your arguments; calling again with the same or other arguments will fail the same way until it is fixed\.$/,
    )
    expect(warnings).toHaveLength(1)
  })

  it('an outer wrapper sees an inner wrapper\'s invalid result as an INVALID_RESULT error result', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    let seen: ToolExecutionResult | undefined
    ctx.on('tools/execute', async (_exec, next) => (seen = await next()))
    ctx.on('tools/execute', () => 42 as never)
    await tools.execute(call('read'))
    expect(seen?.error?.code).toBe('INVALID_RESULT')
  })

  it('a wrapper that throws a coded error keeps its { name, code }; another throw is TOOL_FAILED', async () => {
    class SandboxError extends DshError {
      override readonly name = 'SandboxError'
    }
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    tools.register(tool('write'))
    ctx.on('tools/execute', (exec) => {
      if (exec.name === 'read') throw new SandboxError('DENIED', 'the sandbox refused')
      throw new TypeError('wrapper bug')
    })
    const read = await tools.execute(call('read'))
    expect(read.error).toEqual({ name: 'SandboxError', code: 'DENIED' })
    expect(textOf(read)).toBe('the sandbox refused')
    const write = await tools.execute(call('write'))
    expect(write.error).toEqual({ name: 'ToolFailedError', code: 'TOOL_FAILED' })
    expect(textOf(write)).toBe(
      'The call to "write" failed in the harness: a tools/execute wrapper threw: TypeError: wrapper bug; whether the tool ran ' +
        'is not known. This is a fault in the harness, not in your arguments; calling again with the same or other ' +
        'arguments will fail the same way until it is fixed.',
    )
  })

  it('a wrapper\'s result with a tool-owned code keeps it', async () => {
    const SANDBOX = defineToolErrorCodes('SANDBOX', ['REFUSED'])
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    ctx.on('tools/execute', () => ({ callId: '', content: [], isError: true, error: { name: 'SandboxError', code: SANDBOX.REFUSED } }))
    expect((await tools.execute(call('read'))).error).toEqual({ name: 'SandboxError', code: 'SANDBOX_REFUSED' })
  })

  it('an isError result without error info gets TOOL_FAILED; error info on a success is dropped', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('a'))
    tools.register(tool('b'))
    ctx.on('tools/execute', (exec) =>
      exec.name === 'a'
        ? { callId: '', content: [{ type: 'text', text: 'failed' }], isError: true }
        : { callId: '', content: [], isError: false, error: { name: 'X', code: 'DENIED' } },
    )
    expect((await tools.execute(call('a'))).error).toEqual({ name: 'ToolFailedError', code: 'TOOL_FAILED' })
    expect('error' in (await tools.execute(call('b')))).toBe(false)
  })
})

describe('a wrapper may swap exec.signal only; the call\'s own signal is restored', () => {
  it('the body runs under the swapped signal', async () => {
    const { ctx, tools } = await createHarness()
    const swapped = new AbortController().signal
    let bodySignal: AbortSignal | undefined
    tools.register(tool('read', { execute: async (_args, exec) => ((bodySignal = exec.signal), []) }))
    ctx.on('tools/execute', (exec, next) => {
      exec.signal = swapped
      return next()
    })
    await tools.execute(call('read'))
    expect(bodySignal).toBe(swapped)
  })

  it('each wrapper gets back the signal it had once next() returns, and the call\'s own afterwards', async () => {
    const { ctx, tools } = await createHarness()
    const caller = new AbortController().signal
    const outer = new AbortController().signal
    const inner = new AbortController().signal
    const seen: Record<string, AbortSignal> = {}
    tools.register(tool('read', { execute: async (_args, exec) => ((seen.body = exec.signal), []) }))
    ctx.on('tools/execute', async (exec, next) => {
      seen.outerReceived = exec.signal
      exec.signal = outer
      const result = await next()
      seen.outerAfterNext = exec.signal
      return result
    })
    ctx.on('tools/execute', async (exec, next) => {
      seen.innerReceived = exec.signal
      exec.signal = inner
      return next()
    })
    ctx.on('tools/post-execute', (exec, _result, next) => ((seen.post = exec.signal), next()))
    ctx.on('tools/result', (exec) => void (seen.result = exec.signal))
    await tools.execute(call('read', {}, { signal: caller }))
    const own = seen.outerReceived
    expect(own).toBeInstanceOf(AbortSignal)
    expect(own).not.toBe(caller)
    expect(seen).toEqual({ outerReceived: own, innerReceived: outer, body: inner, outerAfterNext: outer, post: own, result: own })
    expect(seen.post).toBe(own)
    expect(seen.result).toBe(own)
  })

  it('removing the signal falls back to the call\'s own; a non-signal is refused', async () => {
    const { ctx, tools } = await createHarness()
    const caller = new AbortController().signal
    let bodySignal: AbortSignal | undefined
    let own: AbortSignal | undefined
    let refused: unknown
    tools.register(tool('read', { execute: async (_args, exec) => ((bodySignal = exec.signal), []) }))
    ctx.on('tools/execute', (exec, next) => {
      own = exec.signal
      exec.signal = new AbortController().signal
      ;(exec as { signal: AbortSignal | undefined }).signal = undefined
      try {
        exec.signal = 'stop' as never
      } catch (error) {
        refused = error
      }
      return next()
    })
    await tools.execute(call('read', {}, { signal: caller }))
    expect(bodySignal).toBe(own)
    expect(bodySignal).not.toBe(caller)
    expect(refused).toBeInstanceOf(TypeError)
  })

  it('a wrapper\'s late swap, after its stage ended, leaks nowhere', async () => {
    const { ctx, tools } = await createHarness()
    const caller = new AbortController().signal
    let keptExec: { signal: AbortSignal } | undefined
    let lateError: unknown
    let observedSignal: AbortSignal | undefined
    let own: AbortSignal | undefined
    tools.register(tool('read'))
    ctx.on('tools/execute', (exec, next) => ((keptExec = exec), (own = exec.signal), next()))
    ctx.on('tools/result', (exec) => {
      try {
        keptExec!.signal = new AbortController().signal
      } catch (error) {
        lateError = error
      }
      observedSignal = exec.signal
    })
    await tools.execute(call('read', {}, { signal: caller }))
    expect(lateError).toBeInstanceOf(TypeError)
    expect(observedSignal).toBe(own)
    expect(keptExec?.signal).toBe(own)
  })

  it('concurrent calls keep their own signals', async () => {
    const { ctx, tools } = await createHarness()
    const bodySignals = new Map<string, AbortSignal>()
    const swaps = new Map<string, AbortSignal>()
    tools.register(
      tool('slow', {
        execute: async (_args, exec) => {
          await new Promise((resolve) => setTimeout(resolve, 2))
          bodySignals.set(exec.callId, exec.signal)
          return []
        },
      }),
    )
    ctx.on('tools/execute', async (exec, next) => {
      const own = new AbortController().signal
      swaps.set(exec.callId, own)
      exec.signal = own
      await new Promise((resolve) => setTimeout(resolve, 1))
      return next()
    })
    await Promise.all(['a', 'b', 'c'].map((callId) => tools.execute(call('slow', {}, { callId }))))
    expect([...bodySignals.keys()].sort()).toEqual(['a', 'b', 'c'])
    for (const [callId, signal] of bodySignals) expect(signal).toBe(swaps.get(callId))
  })

  it('a swapped signal that fires before the body runs is ABORTED_BEFORE_DISPATCH', async () => {
    const { ctx, tools } = await createHarness()
    const read = tool('read')
    tools.register(read)
    ctx.on('tools/execute', (exec, next) => {
      exec.signal = AbortSignal.abort(new Error('deadline already passed'))
      return next()
    })
    const result = await tools.execute(call('read'))
    expect(result.error).toEqual({ name: 'ToolAbortedError', code: 'ABORTED_BEFORE_DISPATCH' })
    expect(read.calls).toEqual([])
  })
})

describe('a wrapper that returns before its next() settles', () => {
  it('regression: the inner wrapper\'s late return does not hand its signal to the outer wrappers still running', async () => {
    const { ctx, tools } = await createHarness()
    const outerSignal = new AbortController().signal
    const innerSignal = new AbortController().signal
    let release: () => void = () => undefined
    const bodyDone = new Promise<void>((resolve) => (release = resolve))
    let lateResult: Promise<ToolExecutionResult> | undefined
    const seen: AbortSignal[] = []
    tools.register(tool('slow', { execute: async () => (await bodyDone, [{ type: 'text', text: 'late' }]) }))
    ctx.on('tools/execute', async (exec, next) => {
      exec.signal = outerSignal
      const result = await next() // the middle wrapper gives up early
      seen.push(exec.signal)
      release()
      await lateResult // the inner wrapper and the body finish now
      seen.push(exec.signal)
      return result
    })
    ctx.on('tools/execute', (exec, next) => {
      exec.signal = innerSignal
      lateResult = next()
      return { callId: exec.callId, content: [{ type: 'text', text: 'gave up' }], isError: true }
    })
    ctx.on('tools/execute', (_exec, next) => next())
    const result = await tools.execute(call('slow'))
    expect(textOf(result)).toBe('gave up')
    expect(seen).toEqual([outerSignal, outerSignal])
  })
})

// executeStep: one model step's calls, batched by execution mode, answered in model order (issue 17, part 1).
import { getEventListeners } from 'node:events'
import type { ToolErrorCode, ToolExecutionResult } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import { agent, call, createHarness, isDeepFrozen, text, textOf, tool } from './test-kit.js'
import { defineTool, InvalidStepOptionsError, ToolAbortedError, type StepBatch, type StepCall } from './index.js'

/** A promise and its resolver. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined
  const promise = new Promise<void>((resolve) => (open = resolve))
  return { promise, open }
}

const codes = (results: readonly ToolExecutionResult[]) => results.map((result) => result.error?.code ?? 'ok')

describe('executeStep', () => {
  it('runs consecutive parallel-safe calls together: two that wait for each other both finish', async () => {
    const { tools } = await createHarness()
    const started = { left: gate(), right: gate() }
    tools.register(tool('left', { concurrencySafe: true, execute: async () => (started.left.open(), await started.right.promise, [text('left')]) }))
    tools.register(tool('right', { concurrencySafe: true, execute: async () => (started.right.open(), await started.left.promise, [text('right')]) }))
    const step = await tools.executeStep([call('left'), call('right')])
    expect(step.results.map(textOf)).toEqual(['left', 'right'])
    expect(step.batches.map((batch) => [batch.mode, batch.calls])).toEqual([['parallel', [0, 1]]])
  })

  it('runs a serial call alone, after everything before it and before everything after it', async () => {
    const { tools } = await createHarness()
    const log: string[] = []
    const body = (name: string) => async () => {
      log.push(`start ${name}`)
      await new Promise((resolve) => setTimeout(resolve, 5))
      log.push(`end ${name}`)
      return [text(name)]
    }
    tools.register(tool('a', { concurrencySafe: true, execute: body('a') }))
    tools.register(tool('b', { concurrencySafe: true, execute: body('b') }))
    tools.register(tool('write', { execute: body('write') }))
    const step = await tools.executeStep([call('a'), call('b'), call('write'), call('a')])
    expect(log.slice(0, 2).sort()).toEqual(['start a', 'start b'])
    expect(log.slice(4)).toEqual(['start write', 'end write', 'start a', 'end a'])
    expect(step.batches.map((batch) => batch.mode)).toEqual(['parallel', 'serial', 'parallel'])
    expect(step.results.map(textOf)).toEqual(['a', 'b', 'write', 'a'])
  })

  it('keeps model order when parallel calls finish in reverse order, and reports results in that order', async () => {
    const { tools } = await createHarness()
    tools.register(tool('wait', { concurrencySafe: true, execute: async (args) => {
      const ms = (args as { ms: number }).ms
      await new Promise((resolve) => setTimeout(resolve, ms))
      return [text(String(ms))]
    } }))
    const seen: number[] = []
    const step = await tools.executeStep([call('wait', { ms: 30 }), call('wait', { ms: 15 }), call('wait', { ms: 1 })], {
      onResult: (_result, index) => seen.push(index),
    })
    expect(step.results.map(textOf)).toEqual(['30', '15', '1'])
    expect(seen).toEqual([0, 1, 2])
    expect(isDeepFrozen(step)).toBe(true)
  })

  it('never runs more parallel calls at once than the concurrency limit', async () => {
    const { tools } = await createHarness()
    let running = 0
    let most = 0
    tools.register(tool('read', { concurrencySafe: true, execute: async () => {
      running++
      most = Math.max(most, running)
      await new Promise((resolve) => setTimeout(resolve, 2))
      running--
      return [text('read')]
    } }))
    const step = await tools.executeStep(Array.from({ length: 7 }, () => call('read')), { concurrency: 2 })
    expect(most).toBe(2)
    expect(codes(step.results)).toEqual(Array(7).fill('ok'))
  })

  it('answers a malformed call with its own error result, in its place, and runs the others', async () => {
    const { tools } = await createHarness()
    tools.register(tool('echo'))
    const calls = [call('echo'), 42, { callId: 7, name: 'echo' }, call('echo', { when: 1n })] as unknown as StepCall[]
    const step = await tools.executeStep(calls)
    expect(codes(step.results)).toEqual(['ok', 'INVALID_CALL', 'INVALID_CALL', 'NON_JSON_VALUE'])
  })

  it('takes parsed calls as a provider parser makes them: { ok: true, input } runs, { ok: false, result } is returned as it is', async () => {
    const { tools } = await createHarness()
    const echo = tool('echo')
    tools.register(echo)
    let policies = 0
    tools.on('tools/pre-execute', (_exec, next) => (policies++, next()))
    const malformed: ToolExecutionResult = {
      callId: 'call_bad',
      content: [text('Your call to "echo" did not run: its arguments are not JSON.')],
      isError: true,
      error: { name: 'MalformedToolCallError', code: 'PROVIDER_MALFORMED_CALL' as ToolErrorCode },
    }
    const step = await tools.executeStep([{ ok: false, result: malformed }, { ok: true, input: call('echo', { a: 1 }) }])
    expect(step.results[0]).toEqual(malformed)
    expect(codes(step.results)).toEqual(['PROVIDER_MALFORMED_CALL', 'ok'])
    expect(policies).toBe(1)
    expect(echo.calls).toEqual([{ a: 1 }])
  })

  it('refuses a pre-answered call whose result is not an error result, as INVALID_CALL', async () => {
    const { tools } = await createHarness()
    const ok: ToolExecutionResult = { callId: 'c1', content: [text('fine')], isError: false }
    const step = await tools.executeStep([{ ok: false, result: ok }, { ok: 'yes' } as unknown as StepCall])
    expect(codes(step.results)).toEqual(['INVALID_CALL', 'INVALID_CALL'])
    expect(textOf(step.results[0]!)).toContain('not an error')
  })

  it('reads each call once: a getter cannot show the batching one tool and the pipeline another', async () => {
    const { tools } = await createHarness()
    const safe = tool('safe', { concurrencySafe: true })
    const serial = tool('serial')
    tools.register(safe)
    tools.register(serial)
    let reads = 0
    const sly = { callId: 'c1', arguments: {}, get name() { return reads++ === 0 ? 'safe' : 'serial' } }
    const step = await tools.executeStep([sly as StepCall])
    expect(reads).toBe(1)
    expect(step.results.map(textOf)).toEqual(['safe'])
    expect(serial.calls).toEqual([])
  })

  it('runs every call for the step agent, and refuses a call that names another agent or another signal', async () => {
    const { tools } = await createHarness()
    const alice = agent('alice')
    tools.scope(alice).register(tool('mine', { concurrencySafe: true, execute: async (_args, exec) => [text(`for ${exec.agent?.id}`)] }))
    const other = new AbortController()
    const step = await tools.executeStep(
      [call('mine'), call('mine', {}, { agent: alice }), call('mine', {}, { agent: agent('bob') }), call('mine', {}, { signal: other.signal })],
      { agent: alice },
    )
    expect(step.results.slice(0, 2).map(textOf)).toEqual(['for alice', 'for alice'])
    expect(codes(step.results).slice(2)).toEqual(['INVALID_CALL', 'INVALID_CALL'])
    expect(step.batches.map((batch) => batch.calls)).toEqual([[0, 1]])
    const scoped = await tools.scope(alice).executeStep([call('mine')])
    expect(scoped.results.map(textOf)).toEqual(['for alice'])
    expect(() => tools.scope(alice).executeStep([], { agent: agent('bob') } as never)).toThrow(InvalidStepOptionsError)
  })

  it('after the abort, calls not started end as ABORTED_BEFORE_DISPATCH and no policy is asked about them', async () => {
    const { tools } = await createHarness()
    const caller = new AbortController()
    const asked: string[] = []
    tools.on('tools/pre-execute', (exec, next) => (asked.push(exec.callId), next()))
    tools.register(tool('first', { execute: async () => (caller.abort(new Error('Esc')), [text('first')]) }))
    tools.register(tool('later'))
    const calls = [call('first'), call('later'), call('missing')]
    const step = await tools.executeStep(calls, { signal: caller.signal })
    expect(codes(step.results)).toEqual(['ok', 'ABORTED_BEFORE_DISPATCH', 'ABORTED_BEFORE_DISPATCH'])
    expect(asked).toEqual([calls[0]!.callId])
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0)
  })

  it("leaves no listener on the caller's signal after a fail-fast step, whether it failed or not", async () => {
    const { tools } = await createHarness()
    tools.register(tool('ok', { concurrencySafe: true }))
    tools.register(tool('bad', { execute: async () => Promise.reject(new Error('bad')) }))
    const caller = new AbortController()
    await tools.executeStep([call('ok'), call('ok')], { signal: caller.signal, failFast: true })
    const failed = await tools.executeStep([call('bad'), call('ok')], { signal: caller.signal, failFast: true })
    expect(codes(failed.results)).toEqual(['TOOL_FAILED', 'ABORTED_BEFORE_DISPATCH'])
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0)
  })

  it('answers an entry whose read throws (a hostile calls array) with INVALID_CALL, and runs the rest', async () => {
    const { tools } = await createHarness()
    tools.register(tool('echo'))
    const good = call('echo')
    const hostile = new Proxy([good, good], {
      getOwnPropertyDescriptor(target, key) {
        if (key === '1') throw new Error('trap')
        return Reflect.getOwnPropertyDescriptor(target, key)
      },
    })
    const step = await tools.executeStep(hostile)
    expect(codes(step.results)).toEqual(['ok', 'INVALID_CALL'])
    expect(textOf(step.results[1]!)).toContain('call 1 of the step cannot be read')
  })

  it('hands back every additionalContext in model order, outside the results', async () => {
    const { tools } = await createHarness()
    tools.register(tool('a', { concurrencySafe: true, execute: async () => (await new Promise((resolve) => setTimeout(resolve, 10)), [text('a')]) }))
    tools.register(tool('b', { concurrencySafe: true }))
    tools.on('tools/post-execute', (exec, _result, next) =>
      exec.name === 'b' ? next() : { kind: 'accept', additionalContext: { content: [text(`after ${exec.callId}`)], source: 'hook' } },
    )
    const calls = [call('a'), call('b'), call('a')]
    const step = await tools.executeStep(calls)
    expect(step.additionalContext).toEqual([
      { callId: calls[0]!.callId, content: [text(`after ${calls[0]!.callId}`)], source: 'hook' },
      { callId: calls[2]!.callId, content: [text(`after ${calls[2]!.callId}`)], source: 'hook' },
    ])
  })

  it('lets siblings finish after a failure unless failFast; with it, the rest are cancelled and name the failed call', async () => {
    const { tools } = await createHarness()
    let sawAbort: unknown
    tools.register(tool('slow', { concurrencySafe: true, execute: async (_args, exec) => {
      await new Promise<void>((resolve) => exec.signal.addEventListener('abort', () => resolve(), { once: true }))
      sawAbort = exec.signal.reason
      throw exec.signal.reason
    } }))
    tools.register(tool('boom', { concurrencySafe: true, execute: async () => Promise.reject(new Error('boom')) }))
    tools.register(tool('after'))
    const quick = tool('quick', { concurrencySafe: true })
    tools.register(quick)
    const patient = await tools.executeStep([call('boom'), call('quick'), call('after')])
    expect(codes(patient.results)).toEqual(['TOOL_FAILED', 'ok', 'ok'])

    const calls = [call('slow'), call('boom'), call('after')]
    const step = await tools.executeStep(calls, { failFast: true })
    expect(codes(step.results)).toEqual(['ABORTED', 'TOOL_FAILED', 'ABORTED_BEFORE_DISPATCH'])
    expect(ToolAbortedError.isInstance(sawAbort)).toBe(true)
    expect(textOf(step.results[2]!)).toContain(`call "${calls[1]!.callId}" ("boom") failed earlier in this step`)
  })

  it('announces each batch before its calls start', async () => {
    const { tools } = await createHarness()
    const log: string[] = []
    tools.register(tool('p', { concurrencySafe: true, execute: async () => (log.push('run p'), [text('p')]) }))
    tools.register(tool('s', { execute: async () => (log.push('run s'), [text('s')]) }))
    const onBatch = (batch: StepBatch) => log.push(`batch ${batch.mode} ${batch.calls.join(',')}`)
    await tools.executeStep([call('p'), call('p'), call('s')], { onBatch })
    expect(log).toEqual(['batch parallel 0,1', 'run p', 'run p', 'batch serial 2', 'run s'])
  })

  it('survives observers that throw: the step goes on and the throw is logged', async () => {
    const harness = await createHarness()
    harness.tools.register(tool('echo'))
    const step = await harness.tools.executeStep([call('echo'), call('echo')], {
      onBatch: () => {
        throw new Error('bad onBatch')
      },
      onResult: () => {
        throw new Error('bad onResult')
      },
    })
    expect(codes(step.results)).toEqual(['ok', 'ok'])
    expect(harness.warnings.filter((warning) => warning.includes('observer threw'))).toHaveLength(4)
  })

  it('async observers that reject: no unhandled rejection, each rejection logged, the step not held up', async () => {
    const unhandled: unknown[] = []
    const record = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', record)
    try {
      const harness = await createHarness()
      harness.tools.register(tool('echo'))
      let release: () => void = () => {}
      const held = new Promise<void>((resolve) => (release = resolve))
      const step = await harness.tools.executeStep([call('echo'), call('echo')], {
        onBatch: async () => {
          throw new Error('bad async onBatch')
        },
        onResult: async () => {
          await held
          throw new Error('bad async onResult')
        },
      })
      // The step ended although every onResult promise is still pending.
      expect(codes(step.results)).toEqual(['ok', 'ok'])
      release()
      for (let round = 0; round < 3; round += 1) await new Promise((resolve) => setImmediate(resolve))
      const rejected = harness.warnings.filter((warning) => warning.includes('observer rejected; the step went on'))
      expect(rejected).toHaveLength(4) // two serial batches, two results
      expect(rejected.filter((warning) => warning.includes('bad async onResult'))).toHaveLength(2)
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', record)
    }
  })

  it('throws InvalidStepOptionsError (INVALID_CONFIG) synchronously for bad options, before anything runs', async () => {
    const { tools } = await createHarness()
    const echo = tool('echo')
    tools.register(echo)
    const bad: [unknown, unknown, string][] = [
      [[call('echo')], { concurrency: 0 }, 'concurrency'],
      [[call('echo')], { concurrency: 1.5 }, 'concurrency'],
      [[call('echo')], { signal: { aborted: false } }, 'signal'],
      [[call('echo')], { failFast: 'yes' }, 'failFast'],
      [[call('echo')], { agent: 'alice' }, 'agent'],
      [[call('echo')], { onResult: 1 }, 'onResult'],
      [[call('echo')], 'fast', 'options'],
      [{ length: 1 }, undefined, 'calls'],
      [[call('echo')], { get concurrency() { throw new Error('trap') } }, 'concurrency'],
    ]
    for (const [calls, options, field] of bad) {
      let thrown: unknown
      try {
        void tools.executeStep(calls as StepCall[], options as never)
      } catch (error) {
        thrown = error
      }
      expect(InvalidStepOptionsError.isInstance(thrown), field).toBe(true)
      expect((thrown as InvalidStepOptionsError).code).toBe('INVALID_CONFIG')
      expect((thrown as InvalidStepOptionsError).field).toBe(field)
    }
    expect(echo.calls).toEqual([])
  })

  it('answers an empty step with nothing, and a step aborted before it began without running anything', async () => {
    const { tools } = await createHarness()
    const echo = tool('echo', { concurrencySafe: true })
    tools.register(echo)
    expect((await tools.executeStep([])).results).toEqual([])
    const step = await tools.executeStep([call('echo'), call('echo')], { signal: AbortSignal.abort(), failFast: true })
    expect(codes(step.results)).toEqual(['ABORTED_BEFORE_DISPATCH', 'ABORTED_BEFORE_DISPATCH'])
    expect(echo.calls).toEqual([])
  })
})

describe('executeStep with the v2 order (issue 16)', () => {
  it('a step mixing invalid arguments, a guard denial and an approved call asks only about the call that can run', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(
      defineTool({
        name: 'remove',
        description: 'Removes a path.',
        parameters: { path: { type: 'string', required: true } },
        execute: (args) => `removed ${args.path}`,
      }),
    )
    const asked: string[] = []
    ctx.provide('toolApproval', { requestApproval: async (request) => (asked.push(request.execution.callId), { outcome: 'allowed-once' as const }) })
    ctx.on('tools/pre-execute', () => ({ kind: 'ask', reason: 'it deletes' }))
    tools.guard((exec) => ((exec.arguments as { path?: unknown }).path === '/' ? 'not the root' : undefined))
    const step = await tools.executeStep([
      call('remove', { path: 7 }, { callId: 'invalid' }),
      call('remove', { path: '/' }, { callId: 'root' }),
      call('remove', { path: 'build' }, { callId: 'build' }),
    ], { agent: agent('alice') })
    expect(codes(step.results)).toEqual(['INVALID_ARGS', 'GUARD_DENIED', 'ok'])
    expect(textOf(step.results[2]!)).toBe('removed build')
    expect(asked).toEqual(['build'])
  })
})

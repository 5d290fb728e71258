import type { ToolExecutionInput } from '@dsh/tools-core'
import type { ExecuteStepOptions, StepCall } from '@dsh/tools-registry'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  createTestAgent,
  createToolContext,
  formatSessionLog,
  runToolStep,
  ScriptedModelError,
  type ScriptedToolCall,
  type SessionEvent,
  type ToolStepTarget,
} from './index.js'
import { deferred, eventLoopTurns, text, tool, type Deferred } from './test-kit.js'

function call(id: string, name: string, args: unknown = {}): ScriptedToolCall {
  return { id, name, arguments: args }
}

function summary(events: readonly SessionEvent[]): string[] {
  return events.map((event) => `${event.type} ${event.callId}`)
}

describe('runToolStep', () => {
  it('runs a parallel batch concurrently: two tools that each wait for the other to start both finish', async () => {
    await using t = await createToolContext()
    const started = { left: deferred(), right: deferred() }
    const meet = (self: Deferred, other: Deferred, otherName: string) => async () => {
      self.resolve()
      const outcome = await Promise.race([other.promise.then(() => 'met'), eventLoopTurns().then(() => 'alone')])
      return [text(outcome === 'met' ? `met ${otherName}` : `${otherName} never started while I ran`)]
    }
    t.tools.register(tool('left', { concurrencySafe: true, execute: meet(started.left, started.right, 'right') }))
    t.tools.register(tool('right', { concurrencySafe: true, execute: meet(started.right, started.left, 'left') }))

    const step = await runToolStep(t.tools, [call('call_1', 'left'), call('call_2', 'right')])
    expect(step.batches).toEqual([{ mode: 'parallel', callIds: ['call_1', 'call_2'] }])
    expect(step.results.map((result) => result.content)).toEqual([[text('met right')], [text('met left')]])
  })

  it('runs a serial call alone: nothing before it is still running and nothing after it has started', async () => {
    await using t = await createToolContext()
    const trace: string[] = []
    const traced = (name: string, concurrencySafe: boolean) =>
      tool(name, {
        concurrencySafe,
        async execute(_args, exec) {
          trace.push(`start ${exec.callId}`)
          await eventLoopTurns(2)
          trace.push(`end ${exec.callId}`)
          return [text(name)]
        },
      })
    t.tools.register(traced('read', true))
    t.tools.register(traced('write', false))

    const step = await runToolStep(t.tools, [
      call('r1', 'read'),
      call('r2', 'read'),
      call('w1', 'write'),
      call('w2', 'write'),
      call('r3', 'read'),
      call('r4', 'read'),
    ])
    expect(step.batches).toEqual([
      { mode: 'parallel', callIds: ['r1', 'r2'] },
      { mode: 'serial', callIds: ['w1'] },
      { mode: 'serial', callIds: ['w2'] },
      { mode: 'parallel', callIds: ['r3', 'r4'] },
    ])
    expect(trace).toEqual([
      'start r1',
      'start r2',
      'end r1',
      'end r2',
      'start w1',
      'end w1',
      'start w2',
      'end w2',
      'start r3',
      'start r4',
      'end r3',
      'end r4',
    ])
  })

  it('never overlaps batches and runs each parallel batch fully concurrently, for any mix of calls', async () => {
    await using t = await createToolContext()
    let active = 0
    let peak = 0
    const peaks = new Map<string, number>()
    const body = (name: string) => async (_args: unknown, exec: { callId: string }) => {
      active += 1
      peak = Math.max(peak, active)
      await eventLoopTurns(1)
      peaks.set(exec.callId, active)
      active -= 1
      return [text(name)]
    }
    t.tools.register(tool('par', { concurrencySafe: true, execute: body('par') }))
    t.tools.register(tool('ser', { execute: body('ser') }))

    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }), async (parallel) => {
        peaks.clear()
        const calls = parallel.map((isParallel, index) => call(`c${index}`, isParallel ? 'par' : 'ser'))
        const expected: string[][] = []
        for (const [index, isParallel] of parallel.entries()) {
          if (isParallel && index > 0 && parallel[index - 1] === true) expected.at(-1)!.push(`c${index}`)
          else expected.push([`c${index}`])
        }
        const step = await runToolStep(t.tools, calls)
        expect(step.batches.map((batch) => batch.callIds)).toEqual(expected)
        for (const batch of step.batches) {
          // When the first call of a batch ends, every call of the batch has started and no other batch's has.
          for (const id of batch.callIds) expect(peaks.get(id)).toBeLessThanOrEqual(batch.callIds.length)
          expect(peaks.get(batch.callIds[0]!)).toBe(batch.callIds.length)
        }
        expect(step.results.map((result) => result.callId)).toEqual(calls.map((one) => one.id))
      }),
      { numRuns: 60 },
    )
    expect(active).toBe(0)
  })

  it('keeps results in model order when parallel calls finish in reverse order', async () => {
    await using t = await createToolContext()
    const slowMayFinish = deferred()
    const completion: string[] = []
    t.ctx.on('tools/result', (exec) => void completion.push(exec.callId))
    t.tools.register(
      tool('slow', {
        concurrencySafe: true,
        async execute() {
          // Run serially, "fast" would never start while this waits; give up after a while instead of hanging.
          await Promise.race([slowMayFinish.promise, eventLoopTurns()])
          return [text('slow done')]
        },
      }),
    )
    t.tools.register(
      tool('fast', {
        concurrencySafe: true,
        async execute() {
          setImmediate(() => slowMayFinish.resolve())
          return [text('fast done')]
        },
      }),
    )
    const live: string[] = []
    const step = await runToolStep(t.tools, [call('call_slow', 'slow'), call('call_fast', 'fast')], {
      onEvent: (event) => void live.push(`${event.type} ${event.callId}`),
    })
    expect(completion).toEqual(['call_fast', 'call_slow'])
    expect(step.results.map((result) => result.callId)).toEqual(['call_slow', 'call_fast'])
    expect(live).toEqual(['tool/call call_slow', 'tool/call call_fast', 'tool/result call_slow', 'tool/result call_fast'])
    expect(summary(step.events)).toEqual(live)
  })

  it('produces the same log whatever order parallel calls finish in', async () => {
    await using t = await createToolContext()
    const delays = new Map<string, number>()
    t.tools.register(
      tool('read', {
        concurrencySafe: true,
        async execute(args, exec) {
          await eventLoopTurns(delays.get(exec.callId) ?? 0)
          return [text(`read ${JSON.stringify(args)}`)]
        },
      }),
    )
    const calls = [call('a', 'read', { n: 1 }), call('b', 'read', { n: 2 }), call('c', 'read', { n: 3 })]
    const reference = formatSessionLog((await runToolStep(t.tools, calls)).events)
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: 6 }), { minLength: 3, maxLength: 3 }), async (turns) => {
        for (const [index, one] of calls.entries()) delays.set(one.id, turns[index]!)
        expect(formatSessionLog((await runToolStep(t.tools, calls)).events)).toBe(reference)
      }),
      { numRuns: 30 },
    )
  })

  it("buffers every call's additionalContext until all results of the step are in, then appends it in model order", async () => {
    await using t = await createToolContext()
    t.ctx.on('tools/post-execute', (exec, _result, next) =>
      exec.name === 'annotated'
        ? { kind: 'accept', additionalContext: { content: [text(`note for ${exec.callId}`)], source: 'audit' } }
        : next(),
    )
    t.ctx.on('tools/post-execute', (exec, _result, next) =>
      exec.name === 'anonymous' ? { kind: 'accept', additionalContext: { content: [text('unsigned note')] } } : next(),
    )
    t.tools.register(tool('annotated'))
    t.tools.register(tool('anonymous'))
    t.tools.register(tool('plain'))
    const live: SessionEvent[] = []
    const step = await runToolStep(
      t.tools,
      [call('call_1', 'annotated'), call('call_2', 'plain'), call('call_3', 'anonymous'), call('call_4', 'annotated')],
      { onEvent: (event) => void live.push(event) },
    )
    expect(summary(live)).toEqual([
      'tool/call call_1',
      'tool/result call_1',
      'tool/call call_2',
      'tool/result call_2',
      'tool/call call_3',
      'tool/result call_3',
      'tool/call call_4',
      'tool/result call_4',
      'context/message call_1',
      'context/message call_3',
      'context/message call_4',
    ])
    expect(step.context).toEqual([
      { type: 'context/message', step: 1, callId: 'call_1', content: [text('note for call_1')], source: 'audit' },
      { type: 'context/message', step: 1, callId: 'call_3', content: [text('unsigned note')] },
      { type: 'context/message', step: 1, callId: 'call_4', content: [text('note for call_4')], source: 'audit' },
    ])
    expect(step.context[1]).not.toHaveProperty('source')
    // The context is not part of the result's content.
    expect(step.results[0]?.content).toEqual([text('annotated')])
  })

  it('records a deterministic, readable log', async () => {
    await using t = await createToolContext()
    t.tools.register(tool('read', { concurrencySafe: true, execute: async (args) => [text(`contents of ${JSON.stringify(args)}`)] }))
    t.tools.register(tool('write', { execute: async () => [text('written\n2 lines')] }))
    t.ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'write' ? { kind: 'deny', reason: 'read-only session' } : next()))
    const step = await runToolStep(t.tools, [call('c1', 'read', { path: 'a' }), call('c2', 'read', { path: 'b' }), call('c3', 'write'), call('c4', 'nope')], {
      step: 3,
    })
    expect(formatSessionLog(step.events)).toBe(
      [
        'step 3',
        '  tool/call c1 read {"path":"a"} (batch 1, parallel)',
        '  tool/call c2 read {"path":"b"} (batch 1, parallel)',
        '  tool/result c1 ok: contents of {"path":"a"}',
        '  tool/result c2 ok: contents of {"path":"b"}',
        '  tool/call c3 write {} (batch 2, serial)',
        '  tool/result c3 error DENIED: The call to "write" was denied: read-only session',
        '  tool/call c4 nope {} (batch 3, serial)',
        '  tool/result c4 error UNKNOWN_TOOL: Unknown tool "nope". Available tools: read, write.',
      ].join('\n'),
    )
    expect(step.events.every((event) => event.step === 3 && Object.isFrozen(event))).toBe(true)
    expect(Object.isFrozen(step.results)).toBe(true)
  })

  it('runs for an agent: its scope decides which tools exist and which may run in parallel', async () => {
    await using t = await createToolContext()
    const agent = createTestAgent('reviewer')
    t.tools.register(tool('lookup'))
    const scope = t.tools.scope(agent)
    scope.register(tool('lookup', { concurrencySafe: true, execute: async (_args, exec) => [text(`scoped lookup for ${exec.agent?.id}`)] }))
    scope.register(tool('submit_review'))
    const calls = [call('c1', 'lookup'), call('c2', 'lookup'), call('c3', 'submit_review')]

    const scoped = await runToolStep(t.tools, calls, { agent })
    expect(scoped.batches.map((batch) => batch.mode)).toEqual(['parallel', 'serial'])
    expect(scoped.results.map((result) => result.content)).toEqual([
      [text('scoped lookup for reviewer')],
      [text('scoped lookup for reviewer')],
      [text('submit_review')],
    ])

    const global = await runToolStep(t.tools, calls)
    expect(global.batches.map((batch) => batch.mode)).toEqual(['serial', 'serial', 'serial'])
    expect(global.results.map((result) => result.error?.code)).toEqual([undefined, undefined, 'UNKNOWN_TOOL'])
  })

  it('hands the signal to every call', async () => {
    await using t = await createToolContext()
    t.tools.register(tool('echo'))
    const controller = new AbortController()
    controller.abort()
    const step = await runToolStep(t.tools, [call('c1', 'echo')], { signal: controller.signal })
    expect(step.results[0]?.error).toEqual({ name: 'ToolAbortedError', code: 'ABORTED_BEFORE_DISPATCH' })
  })

  it.each([
    ['not a list', { id: 'c1', name: 'echo', arguments: {} }, 'a turn must be a list of tool calls, got an object'],
    ['a call that is not an object', ['echo'], 'call 0 must be an object { id, name, arguments }, got the string "echo"'],
    ['a call without an id', [{ name: 'echo', arguments: {} }], 'call 0 needs a non-empty string id, got undefined'],
    ['an empty id', [{ id: '', name: 'echo', arguments: {} }], 'call 0 needs a non-empty string id, got the string ""'],
    ['a name that is not a string', [{ id: 'c1', name: 7, arguments: {} }], 'call 0 (c1) needs a string name, got number 7'],
    ['a repeated id', [call('c1', 'echo'), call('c1', 'echo')], 'call id "c1" is used twice; a model\'s call ids are unique within a session'],
  ])('throws ScriptedModelError for %s, before anything runs', async (_label, calls, message) => {
    await using t = await createToolContext()
    let ran = 0
    t.tools.register(tool('echo', { execute: async () => (ran++, [text('echo')]) }))
    const error: unknown = await runToolStep(t.tools, calls as never).catch((caught: unknown) => caught)
    expect(ScriptedModelError.isInstance(error)).toBe(true)
    expect(error).toMatchObject({ code: 'INVALID_CALL', step: 1, message: `scripted model, step 1: ${message}` })
    expect(ran).toBe(0)
  })

  it('rejects a step number that is not a positive integer', async () => {
    const target: ToolStepTarget = { executeStep: async () => Promise.reject(new Error('unused')) }
    await expect(runToolStep(target, [], { step: 0 })).rejects.toMatchObject({ name: 'InvalidTestOptionError', option: 'step' })
  })

  it("runs the step through the target's executeStep, with the calls as inputs and the agent and signal as its options", async () => {
    const seen: { calls: readonly StepCall[]; options: ExecuteStepOptions | undefined }[] = []
    const target: ToolStepTarget = {
      async executeStep(calls, options) {
        seen.push({ calls, options })
        const results = calls.map((one) => ({ callId: (one as ToolExecutionInput).callId, content: [text('done')], isError: false }))
        options?.onBatch?.({ mode: 'serial', calls: [0], callIds: ['a'] })
        results.forEach((result, index) => options?.onResult?.(result, index))
        return { results, additionalContext: [], batches: [{ mode: 'serial', calls: [0], callIds: ['a'] }] }
      },
    }
    const agent = createTestAgent('alice')
    const controller = new AbortController()
    const step = await runToolStep(target, [call('a', 'x', { n: 1 })], { agent, signal: controller.signal })
    expect(seen).toHaveLength(1)
    expect(seen[0]!.calls).toEqual([{ callId: 'a', name: 'x', arguments: { n: 1 } }])
    expect(seen[0]!.options).toMatchObject({ agent, signal: controller.signal })
    expect(summary(step.events)).toEqual(['tool/call a', 'tool/result a'])
  })

  it('passes on a rejection of a target whose executeStep rejects', async () => {
    const target: ToolStepTarget = { executeStep: async () => Promise.reject(new Error('the step exploded')) }
    await expect(runToolStep(target, [call('a', 'x')])).rejects.toThrow('the step exploded')
  })

  it('after the signal fires mid-step, the calls not started end ABORTED_BEFORE_DISPATCH with no policy asked, and are still logged', async () => {
    await using t = await createToolContext()
    const controller = new AbortController()
    const asked: string[] = []
    t.tools.on('tools/pre-execute', (exec, next) => (asked.push(exec.callId), next()))
    t.tools.register(tool('stop', { execute: async () => (controller.abort(), [text('stopped')]) }))
    t.tools.register(tool('echo'))
    const step = await runToolStep(t.tools, [call('c1', 'stop'), call('c2', 'echo'), call('c3', 'nothing_here')], { signal: controller.signal })
    expect(step.results.map((result) => result.error?.code)).toEqual([undefined, 'ABORTED_BEFORE_DISPATCH', 'ABORTED_BEFORE_DISPATCH'])
    expect(asked).toEqual(['c1'])
    expect(summary(step.events)).toEqual(['tool/call c1', 'tool/result c1', 'tool/call c2', 'tool/result c2', 'tool/call c3', 'tool/result c3'])
  })
})

// Every stage that awaits foreign code ends when the caller's signal fires (issue 14, items 7 and 8).
import { getEventListeners } from 'node:events'
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { call, createHarness, isDeepFrozen, text, textOf, tool } from './test-kit.js'
import { InvalidToolPolicyError, TOOL_REGISTRY_DEFAULTS, ToolRegistry } from './index.js'

const never = <T>(): Promise<T> => new Promise<T>(() => undefined)

/** A registry with a short abort grace, and its warnings. */
async function graceHarness(abortGraceMs = 30) {
  const ctx = new Context()
  await ctx.plugin(ToolRegistry, { abortGraceMs })
  const warnings: string[] = []
  ctx.logger.exporter({
    export(message) {
      if (message.name === 'tools' && message.type === 'warn') warnings.push(message.args.map(String).join(' '))
    },
  })
  return { ctx, tools: ctx.tools, warnings }
}

/** Runs the call and aborts the caller once `stage` was reached. */
async function abortWhen(tools: ToolRegistry, name: string, reached: Promise<void>) {
  const caller = new AbortController()
  const pending = tools.execute(call(name, {}, { signal: caller.signal }))
  await reached
  caller.abort(new Error('the user pressed Esc'))
  const result = await pending
  return { result, caller }
}

function signal(): { reached: Promise<void>; reach: () => void } {
  let reach: () => void = () => undefined
  const reached = new Promise<void>((resolve) => (reach = resolve))
  return { reached, reach }
}

describe('the caller\'s abort ends every stage that awaits foreign code', () => {
  it('a tools/pre-execute listener that never settles: ABORTED_BEFORE_DISPATCH, the body never runs', async () => {
    const { ctx, tools } = await graceHarness()
    const read = tool('read')
    tools.register(read)
    const { reached, reach } = signal()
    ctx.on('tools/pre-execute', () => (reach(), never()))
    const { result, caller } = await abortWhen(tools, 'read', reached)
    expect(result.error).toEqual({ name: 'ToolAbortedError', code: 'ABORTED_BEFORE_DISPATCH' })
    expect(textOf(result)).toBe('The call to "read" was cancelled while the harness\'s policy decided on it; nothing was executed.')
    expect(read.calls).toEqual([])
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0)
  })

  it('a tools/pre-execute listener whose next() never settles, behind one that delegates: ABORTED_BEFORE_DISPATCH', async () => {
    const { ctx, tools } = await graceHarness()
    tools.register(tool('read'))
    const { reached, reach } = signal()
    ctx.on('tools/pre-execute', (_exec, next) => next())
    ctx.on('tools/pre-execute', () => (reach(), never()))
    const { result } = await abortWhen(tools, 'read', reached)
    expect(result.error?.code).toBe('ABORTED_BEFORE_DISPATCH')
  })

  it('a tools/execute wrapper that never settles nor calls next(): abandoned after the grace, ABORTED', async () => {
    const { ctx, tools, warnings } = await graceHarness(20)
    const read = tool('read')
    tools.register(read)
    const { reached, reach } = signal()
    ctx.on('tools/execute', () => (reach(), never()))
    const { result, caller } = await abortWhen(tools, 'read', reached)
    expect(result.error).toEqual({ name: 'ToolAbortedError', code: 'ABORTED' })
    expect(textOf(result)).toBe(
      'The call to "read" was cancelled, but it did not stop within 20ms of being cancelled, so it was abandoned: ' +
        'it may still be running, and its side effects may still take effect.',
    )
    expect(read.calls).toEqual([])
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0)
    expect(warnings).toEqual([])
  })

  it('a tools/post-execute listener that never settles: ABORTED, the result is withheld', async () => {
    const { ctx, tools } = await graceHarness()
    tools.register(tool('read'))
    const { reached, reach } = signal()
    ctx.on('tools/post-execute', () => (reach(), never()))
    const { result } = await abortWhen(tools, 'read', reached)
    expect(result.error).toEqual({ name: 'ToolAbortedError', code: 'ABORTED' })
    expect(textOf(result)).toBe(
      'The call to "read" ran, but it was cancelled while its result was being reviewed, so its result was withheld; what it did may have taken effect.',
    )
  })

  it('a body that finished after the caller aborted is not delivered unreviewed when post-execute listeners exist', async () => {
    const { ctx, tools } = await graceHarness()
    const caller = new AbortController()
    tools.register(tool('read', { execute: async () => (caller.abort(), [text('secret')]) }))
    let reviewed = false
    ctx.on('tools/post-execute', (_exec, _result, next) => ((reviewed = true), next()))
    const result = await tools.execute(call('read', {}, { signal: caller.signal }))
    expect(result.error?.code).toBe('ABORTED')
    expect(textOf(result)).toContain('before its result could be reviewed')
    expect(reviewed).toBe(false)
  })

  it('the approval wait still ends on the abort (ABORTED_BEFORE_DISPATCH)', async () => {
    const { ctx, tools } = await graceHarness()
    tools.register(tool('read'))
    const { reached, reach } = signal()
    ctx.provide('toolApproval', { requestApproval: () => (reach(), never()) })
    ctx.on('tools/pre-execute', () => ({ kind: 'ask' }))
    const caller = new AbortController()
    const pending = tools.execute(call('read', {}, { signal: caller.signal, agent: { id: 'a' } }))
    await reached
    caller.abort()
    expect((await pending).error?.code).toBe('ABORTED_BEFORE_DISPATCH')
  })
})

describe('a body that ignores the caller\'s abort is abandoned after the abort grace', () => {
  it('without a timeout policy: ABORTED after abortGraceMs, saying it may still be running', async () => {
    const { tools } = await graceHarness(25)
    const { reached, reach } = signal()
    tools.register(tool('stubborn', { execute: () => (reach(), never()) }))
    const { result, caller } = await abortWhen(tools, 'stubborn', reached)
    expect(result.error?.code).toBe('ABORTED')
    expect(textOf(result)).toContain('did not stop within 25ms of being cancelled, so it was abandoned: it may still be running')
    expect(isDeepFrozen(result)).toBe(true)
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0)
  })

  it('a body that stops within the grace keeps its own outcome', async () => {
    const { tools } = await graceHarness(5_000)
    const { reached, reach } = signal()
    tools.register(
      tool('cooperative', {
        execute: (_args, exec) =>
          new Promise((_resolve, reject) => {
            exec.signal.addEventListener('abort', () => setTimeout(() => reject(new Error('stopped')), 5))
            reach()
          }),
      }),
    )
    const { result } = await abortWhen(tools, 'cooperative', reached)
    expect(result.error).toEqual({ name: 'ToolAbortedError', code: 'ABORTED' })
    expect(textOf(result)).toBe('The call to "cooperative" was cancelled while it ran.')
  })

  it('a late settlement of an abandoned body, even a rejection, is only reported', async () => {
    const { tools, warnings } = await graceHarness(10)
    const { reached, reach } = signal()
    let fail: (error: Error) => void = () => undefined
    tools.register(tool('late', { execute: () => new Promise((_resolve, reject) => ((fail = reject), reach())) }))
    const { result } = await abortWhen(tools, 'late', reached)
    expect(textOf(result)).toContain('abandoned')
    fail(new Error('too late'))
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(warnings.some((warning) => warning.startsWith('the abandoned call to "late" settled'))).toBe(true)
  })

  it('abortGraceMs is checked when the registry starts; the default is 5,000 ms', async () => {
    expect(TOOL_REGISTRY_DEFAULTS.abortGraceMs).toBe(5_000)
    for (const abortGraceMs of [-1, 1.5, '10', Number.POSITIVE_INFINITY, 2 ** 31]) {
      expect(() => new ToolRegistry(new Context(), { abortGraceMs } as never)).toThrow(InvalidToolPolicyError)
    }
    expect(() => new ToolRegistry(new Context(), { abortGraceMs: 0 })).not.toThrow()
  })
})

describe('no listener is left on the caller\'s signal', () => {
  it('whatever the outcome, the call listens to the caller\'s signal only while it runs', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    tools.register(tool('fails', { execute: async () => Promise.reject(new Error('boom')) }))
    ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'denied' ? { kind: 'deny', reason: 'no' } : next()))
    const caller = new AbortController()
    let during = -1
    tools.register(tool('probe', { execute: async () => ((during = getEventListeners(caller.signal, 'abort').length), []) }))
    for (const name of ['read', 'fails', 'probe', 'missing', 'denied']) {
      await tools.execute(call(name, {}, { signal: caller.signal }))
    }
    expect(during).toBe(1)
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0)
  })
})

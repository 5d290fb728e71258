// Tools that fight the deadline: a body that blocks the event loop past it (item 11), abort listeners that throw
// when it fires (item 9), a budget inherited from a polluted Object.prototype (item 12). Real timers: the point is
// what the clock says when the body settles.
import { getEventListeners } from 'node:events'
import type { ToolExecution } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import { runInChild } from './child-node.js'
import { call, createHarness, textOf } from './test-kit.js'
import { ToolTimeoutError } from './tool-timeout-error.js'

function busyFor(ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until) {
    // Keeps the event loop busy: no timer can fire, the deadline's included.
  }
}

describe('the deadline is checked when the body settles', () => {
  it('a body that blocks the event loop past its deadline and then returns is TOOL_TIMEOUT, not a success', async () => {
    const { tools } = await createHarness()
    let signal: AbortSignal | undefined
    tools.register({
      name: 'spin',
      description: 'Blocks the event loop, then returns.',
      parameters: { type: 'object' },
      timeoutMs: 20,
      execute: async (_args, exec: ToolExecution) => {
        signal = exec.signal
        busyFor(120)
        return [{ type: 'text', text: 'done' }]
      },
    })
    const result = await tools.execute(call('spin'))
    expect(result.error).toEqual({ name: 'ToolTimeoutError', code: 'TOOL_TIMEOUT' })
    expect(textOf(result)).toMatch(
      /^Tool call timed out after 20ms: "spin" finished \d+ms after its deadline \(it kept the process busy, so the deadline could not fire while it ran\), so its result was discarded; what it did may have taken effect\.$/,
    )
    // What the body left running hears the deadline, late.
    expect(signal?.aborted).toBe(true)
    expect(ToolTimeoutError.isInstance(signal?.reason)).toBe(true)
  })

  it('a body that blocks past its deadline and then throws is TOOL_TIMEOUT too', async () => {
    const { tools } = await createHarness()
    tools.register({
      name: 'spin',
      description: 'Blocks the event loop, then throws.',
      parameters: { type: 'object' },
      timeoutMs: 20,
      execute: async () => {
        busyFor(120)
        throw new Error('broke late')
      },
    })
    const result = await tools.execute(call('spin'))
    // The registry turns the throw into a result; the policy sees a late result and reports the deadline.
    expect(result.error?.code).toBe('TOOL_TIMEOUT')
  })

  it('a body that blocks for less than its budget keeps its result', async () => {
    const { tools } = await createHarness()
    tools.register({
      name: 'brief',
      description: 'Blocks briefly.',
      parameters: { type: 'object' },
      timeoutMs: 60_000,
      execute: async () => (busyFor(5), [{ type: 'text', text: 'done' }]),
    })
    const result = await tools.execute(call('brief'))
    expect(result.isError).toBe(false)
  })
})

describe('a budget is the tool\'s own timeoutMs only', () => {
  it('a timeoutMs inherited from a polluted Object.prototype is no budget', async () => {
    const { tools } = await createHarness()
    let signal: AbortSignal | undefined
    tools.register({
      name: 'plain',
      description: 'Declares no budget.',
      parameters: { type: 'object' },
      execute: async (_args, exec: ToolExecution) => {
        signal = exec.signal
        await new Promise((resolve) => setTimeout(resolve, 30))
        return [{ type: 'text', text: 'done' }]
      },
    })
    const prototype = Object.prototype as Record<string, unknown>
    prototype.timeoutMs = 1
    let result
    try {
      result = await tools.execute(call('plain'))
    } finally {
      delete prototype.timeoutMs
    }
    expect(result.isError).toBe(false)
    expect(signal?.aborted).toBe(false)
  })
})

const throwingAtDeadline = `
import { ToolRegistry } from '@dsh/tools-registry'
import { Context } from 'cordis'
import { TimeoutPolicy } from './index.js'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(TimeoutPolicy, { graceMs: 30 })
const warnings = []
ctx.logger.exporter({ export(message) { if (message.type === 'warn') warnings.push(message.args.map(String).join(' ')) } })
const attach = (signal) => {
  signal.addEventListener('abort', () => { throw new Error('listener') })
  signal.onabort = () => { throw new Error('onabort') }
  AbortSignal.any([signal]).addEventListener('abort', () => { throw new Error('derived') })
}
const register = (name, stops) => ctx.tools.register({
  name,
  description: 'Its abort listeners throw.',
  parameters: { type: 'object' },
  timeoutMs: 20,
  execute: (_args, exec) => new Promise((_resolve, reject) => {
    attach(exec.signal)
    if (stops) exec.signal.addEventListener('abort', () => reject(exec.signal.reason))
  }),
})
register('stops', true)
register('stubborn', false)
const codes = []
for (const name of ['stops', 'stubborn']) codes.push((await ctx.tools.execute({ callId: name, name, arguments: {} })).error.code)
await new Promise((resolve) => setTimeout(resolve, 20))
console.log(JSON.stringify({ codes, listenerWarnings: warnings.filter((w) => w.includes('an abort listener of a timed tool call threw')).length }))
`

describe('an abort listener that throws when the deadline fires cannot crash the process', () => {
  it('the child process ends normally with TOOL_TIMEOUT and TOOL_TIMEOUT_ABANDONED, every throw reported', async () => {
    const exitOnUncaught = "process.on('uncaughtException', (error) => { console.error('host handler:', error.message); process.exit(3) })\n"
    for (const prelude of ['', exitOnUncaught]) {
      const outcome = await runInChild(`${prelude}${throwingAtDeadline}`)
      expect(outcome.stderr).toBe('')
      expect(outcome.code).toBe(0)
      expect(JSON.parse(outcome.stdout.trim())).toEqual({ codes: ['TOOL_TIMEOUT', 'TOOL_TIMEOUT_ABANDONED'], listenerWarnings: 6 })
    }
  })

  it('no listener of the policy is left on the signal it was given', async () => {
    const { tools } = await createHarness()
    let received: AbortSignal | undefined
    tools.register({
      name: 'quick',
      description: 'Returns at once.',
      parameters: { type: 'object' },
      timeoutMs: 1_000,
      execute: async () => [{ type: 'text', text: 'done' }],
    })
    tools.on('tools/execute', (exec, next) => ((received = exec.signal), next()), { prepend: true })
    expect((await tools.execute(call('quick'))).isError).toBe(false)
    expect(received).toBeDefined()
    expect(getEventListeners(received!, 'abort')).toHaveLength(0)
  })
})

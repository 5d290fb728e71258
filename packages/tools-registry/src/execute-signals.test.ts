// Nothing a tool or a caller passes as (or attaches to) a signal may crash the host (issue 14, item 9).
import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { runInChild } from './child-node.js'
import { call, createHarness, textOf, tool } from './test-kit.js'

describe('only real AbortSignals are accepted as the caller\'s signal', () => {
  it.each([
    ['a look-alike without removeEventListener', () => ({ aborted: false, reason: undefined, addEventListener: () => undefined })],
    ['a look-alike with every method', () => ({ aborted: false, addEventListener() {}, removeEventListener() {}, dispatchEvent: () => true })],
    ['an AbortController', () => new AbortController()],
    ['a proxy whose traps throw', () => new Proxy(new AbortController().signal, { get: () => { throw new Error('trap') } })],
  ])('%s is INVALID_CALL, and the body never runs', async (_label, make) => {
    const { tools } = await createHarness()
    const read = tool('read')
    tools.register(read)
    const result = await tools.execute(call('read', {}, { signal: make() as never }))
    expect(result.error).toEqual({ name: 'InvalidToolCallError', code: 'INVALID_CALL' })
    expect(textOf(result)).toContain('not an AbortSignal (only the platform\'s own AbortSignal objects are accepted)')
    expect(read.calls).toEqual([])
  })

  it('a real signal whose own methods were replaced is used through the platform\'s methods only', async () => {
    const { tools } = await createHarness()
    const controller = new AbortController()
    const touched: string[] = []
    for (const method of ['addEventListener', 'removeEventListener']) {
      Object.defineProperty(controller.signal, method, { value: () => void touched.push(method) })
    }
    let heard = false
    tools.register(
      tool('wait', {
        execute: (_args, exec) =>
          new Promise((_resolve, reject) => {
            exec.signal.addEventListener('abort', () => ((heard = true), reject(new Error('stopped'))))
            setTimeout(() => controller.abort(), 1)
          }),
      }),
    )
    const result = await tools.execute(call('wait', {}, { signal: controller.signal }))
    expect(result.error?.code).toBe('ABORTED')
    expect(heard).toBe(true)
    expect(touched).toEqual([])
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
  })

  it('a wrapper cannot swap in a look-alike signal either', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    let refused: unknown
    ctx.on('tools/execute', (exec, next) => {
      try {
        exec.signal = { aborted: false, addEventListener() {} } as never
      } catch (error) {
        refused = error
      }
      return next()
    })
    expect((await tools.execute(call('read'))).isError).toBe(false)
    expect(refused).toBeInstanceOf(TypeError)
  })
})

const throwingListeners = `
import { ToolRegistry } from './index.js'
import { Context } from 'cordis'

const ctx = new Context()
await ctx.plugin(ToolRegistry, { abortGraceMs: 50 })
const warnings = []
ctx.logger.exporter({ export(message) { if (message.type === 'warn') warnings.push(message.args.map(String).join(' ')) } })
const attach = (signal, where) => {
  signal.addEventListener('abort', () => { throw new Error(where + ': listener') })
  signal.onabort = () => { throw new Error(where + ': onabort') }
  AbortSignal.any([signal]).addEventListener('abort', () => { throw new Error(where + ': derived') })
}
ctx.tools.on('tools/pre-execute', (exec, next) => (attach(exec.signal, 'policy'), next()))
ctx.tools.register({
  name: 'stubborn',
  description: 'Ignores its signal, and its abort listeners throw.',
  parameters: { type: 'object' },
  execute: (_args, exec) => { attach(exec.signal, 'body'); return new Promise(() => {}) },
})
const caller = new AbortController()
const pending = ctx.tools.execute({ callId: 'c1', name: 'stubborn', arguments: {}, signal: caller.signal })
setTimeout(() => caller.abort(new Error('Esc')), 20)
const result = await pending
await new Promise((resolve) => setTimeout(resolve, 20))
console.log(JSON.stringify({ code: result.error.code, frozen: Object.isFrozen(result), listenerWarnings: warnings.filter((w) => w.startsWith('an abort listener of a tool call threw')).length }))
`

describe('a tool\'s abort listener that throws cannot crash the process', () => {
  it('when the caller aborts: the child process ends normally, the call is abandoned, every throw is reported', async () => {
    const outcome = await runInChild(`${throwingListeners}\nprocess.exitCode = 0\n`)
    expect(outcome.stderr).toBe('')
    expect(outcome.code).toBe(0)
    // Two listeners and two derived signals' listeners, and one onabort (the body's replaced the policy's): 5 throws.
    expect(JSON.parse(outcome.stdout.trim())).toEqual({ code: 'ABORTED', frozen: true, listenerWarnings: 5 })
  })

  it('a host handler that exits on any uncaught exception does not see the reported ones', async () => {
    const exitOnUncaught = "process.on('uncaughtException', (error) => { console.error('host handler:', error.message); process.exit(3) })\n"
    const outcome = await runInChild(`${exitOnUncaught}${throwingListeners}`)
    expect(outcome.stderr).toBe('')
    expect(outcome.code).toBe(0)
    expect(JSON.parse(outcome.stdout.trim())).toMatchObject({ code: 'ABORTED', listenerWarnings: 5 })
  })

  it('an uncaught exception of anything else after the abort still reaches the host as before', async () => {
    const outcome = await runInChild(`${throwingListeners}\nsetTimeout(() => { throw new Error('the host\\'s own bug') }, 1)\n`)
    expect(outcome.code).toBe(1)
    expect(outcome.stderr).toContain("the host's own bug")
  })
})

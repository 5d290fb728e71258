import { TimeoutPolicy } from '@dsh/timeout-policy'
import { TaskService } from '@dsh/tool-tasks'
import type { Agent, ToolApprovalOutcome, ToolApprovalRequest, ToolExecution, ToolExecutionResult } from '@dsh/tools-core'
import { presentToolCall, presentToolResult } from '@dsh/tools-presentation'
import { ToolRegistry } from '@dsh/tools-registry'
import { defineTool } from '@dsh/tools-schema'
import { createTestAgent, expectCleanUnload } from '@dsh/tools-testing'
import { Context, type Fiber } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { CodeModeConfigError, resolveCodeModeConfig, type CodeModeConfig } from './code-mode-config.js'
import { CodeMode } from './code-mode.js'
import type { RunCodeMeta } from './run-code.js'

const loaded: Fiber[] = []
afterEach(async () => {
  for (const fiber of loaded.splice(0).reverse()) await fiber.dispose()
})

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

interface Setup {
  readonly ctx: Context
  /** Every execution the registry delivered, in order, with its result. */
  readonly delivered: Array<{ exec: Readonly<ToolExecution>; result: ToolExecutionResult }>
  /** Policy events: `pre:<tool>`, `post:<tool>`. */
  readonly policy: string[]
  /** The most `slow` calls that were running at once, and the order `step` calls ran in. */
  readonly stats: { running: number; most: number; steps: number[] }
  run(code: string, options?: { agent?: Agent; signal?: AbortSignal; callId?: string }): Promise<ToolExecutionResult>
}

let serial = 0

async function setup(config: CodeModeConfig = {}, extra?: (ctx: Context) => Promise<void>): Promise<Setup> {
  const ctx = new Context()
  loaded.push(await ctx.plugin(ToolRegistry))
  await extra?.(ctx)
  loaded.push(await ctx.plugin(CodeMode, { limits: { cpuMs: 2_000, wallMs: 20_000 }, ...config }))
  const stats = { running: 0, most: 0, steps: [] as number[] }
  const tools = ctx.tools
  tools.register(
    defineTool({
      name: 'add',
      description: 'Adds two numbers.',
      parameters: { a: { type: 'number', required: true }, b: { type: 'number', required: true } },
      output: { schema: { type: 'object', properties: { sum: { type: 'number', required: true } }, additionalProperties: false }, render: (_args, value) => `sum ${value.sum}` },
      concurrencySafe: true,
      execute: ({ a, b }) => ({ sum: a + b }),
    }),
  )
  tools.register(defineTool({ name: 'echo', description: 'Echoes.', parameters: { text: { type: 'string', required: true } }, execute: ({ text }) => text }))
  tools.register(
    defineTool({
      name: 'slow',
      description: 'Waits.',
      parameters: { ms: { type: 'integer', required: true } },
      concurrencySafe: true,
      async execute({ ms }, exec) {
        stats.running += 1
        stats.most = Math.max(stats.most, stats.running)
        try {
          await new Promise<void>((resolve, reject) => {
            const timer = setTimeout(resolve, ms)
            exec.signal.addEventListener('abort', () => (clearTimeout(timer), reject(new Error('stopped'))), { once: true })
          })
        } finally {
          stats.running -= 1
        }
        return `waited ${ms}`
      },
    }),
  )
  tools.register(
    defineTool({
      name: 'step',
      description: 'One serial step.',
      parameters: { n: { type: 'integer', required: true } },
      async execute({ n }) {
        stats.steps.push(n)
        if (stats.running > 0) throw new Error('a serial step ran next to another call')
        stats.running += 1
        await pause(5)
        stats.running -= 1
        return `step ${n}`
      },
    }),
  )
  tools.register(defineTool({ name: 'write_file', description: 'Writes a file.', parameters: { path: { type: 'string', required: true } }, execute: () => 'written' }))
  const policy: string[] = []
  tools.on('tools/pre-execute', (exec, next) => {
    policy.push(`pre:${exec.name}`)
    return exec.name === 'write_file' ? { kind: 'deny', reason: 'read-only session' } : next()
  })
  tools.on('tools/post-execute', (exec, result, next) => (policy.push(`post:${exec.name}`), next()))
  const delivered: Setup['delivered'] = []
  tools.on('tools/result', (exec, result) => void delivered.push({ exec, result }))
  return {
    ctx,
    delivered,
    policy,
    stats,
    run: (code, options = {}) =>
      tools.execute({
        callId: options.callId ?? `call_${++serial}`,
        name: 'run_code',
        arguments: { code },
        ...(options.agent === undefined ? {} : { agent: options.agent }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      }),
  }
}

const text = (result: ToolExecutionResult): string => result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n')

describe('run_code', () => {
  it('runs a TypeScript program whose sub-calls go through the pipeline, and answers with the value and the ledger', async () => {
    const { run, delivered } = await setup()
    const result = await run(
      `interface Sum { sum: number }
       const first: Sum = await tools.add({ a: 2, b: 3 })
       const said = await tools.echo({ text: 'hi' })
       console.log('sum is', first.sum)
       return { sum: first.sum, said: said.content[0].text }`,
      { callId: 'outer' },
    )
    expect(result.isError).toBe(false)
    expect(text(result)).toMatch(/^The program completed in \d+ ms\.\n\nLogs:\nsum is 5\n\nReturned:\n\{\n {2}"sum": 5,\n {2}"said": "hi"\n\}\n\n2 sub-calls: 2 ok$/)
    const meta = result.meta as RunCodeMeta
    expect(meta).toMatchObject({ status: 'completed', runtime: 'quickjs', subCalls: [{ callId: 'outer:code:1', name: 'add', isError: false }, { callId: 'outer:code:2', name: 'echo', isError: false }] })
    // Observers saw the sub-calls first, each with the outer call's token as its parent.
    const outer = delivered.find((entry) => entry.exec.name === 'run_code')?.exec
    const subs = delivered.filter((entry) => entry.exec.callId.startsWith('outer:code:'))
    expect(subs.map((entry) => entry.exec.parent)).toEqual([outer?.token, outer?.token])
    expect(delivered.map((entry) => entry.exec.callId)).toEqual(['outer:code:1', 'outer:code:2', 'outer'])
  })

  it('presents the program as a code card, and its result with the sub-calls, logs and value', async () => {
    const { ctx, run } = await setup()
    const code = `console.log('two calls'); await tools.add({ a: 1, b: 2 }); try { await tools.write_file({ path: 'x' }) } catch {} ; return 3`
    const result = await run(code)
    const tool = ctx.tools.get('run_code') as Parameters<typeof presentToolCall>[0]
    expect(presentToolCall(tool, { code, description: 'Add and try a write' })).toEqual({ card: 'code', title: 'Add and try a write', language: 'typescript', code })
    expect(presentToolResult(tool, { code }, result)).toMatchObject({
      card: 'code',
      status: 'completed',
      logs: 'two calls',
      value: '3',
      subCalls: [
        { name: 'add', isError: false },
        { name: 'write_file', isError: true, code: 'DENIED' },
      ],
    })
  })

  it('a sub-call sees the same policy sequence as a direct call of the same tool', async () => {
    const { run, policy, ctx } = await setup()
    await ctx.tools.execute({ callId: 'direct', name: 'echo', arguments: { text: 'x' } })
    const direct = policy.splice(0)
    await run(`return await tools.echo({ text: 'x' })`)
    expect(policy).toEqual(['pre:run_code', ...direct, 'post:run_code'])
  })

  it('failed sub-calls throw catchable errors with name, code and message; an uncaught one fails the run with the ledger', async () => {
    const { run } = await setup()
    const caught = await run(`
      const codes = []
      for (const attempt of [() => tools.write_file({ path: '/etc/x' }), () => tools.add({ a: 'two', b: 1 }), () => tools.nothing({})]) {
        try { await attempt() } catch (error) { codes.push([error.name, error.code ?? null, typeof error.message]) }
      }
      return codes`)
    expect(caught.isError).toBe(false)
    expect(text(caught)).toContain('"DENIED"')
    expect(text(caught)).toContain('"INVALID_ARGS"')
    expect(text(caught)).toContain('TypeError')
    expect(text(caught)).toContain('2 sub-calls: 1 DENIED (write_file), 1 INVALID_ARGS (add)')
    const failed = await run(`await tools.echo({ text: 'before' }); await tools.write_file({ path: 'x' }); return 'never'`)
    expect(failed).toMatchObject({ isError: true, error: { code: 'CODE_RUN_FAILED' } })
    expect(text(failed)).toMatch(/^The program failed \(error\)/)
    expect(text(failed)).toContain('2 sub-calls: 1 ok, 1 DENIED (write_file)')
  })

  it('pauses a program while a person is asked; allowed-once goes on, a rejection throws APPROVAL_REJECTED in the program', async () => {
    const asked: string[] = []
    let answer: ToolApprovalOutcome = { outcome: 'allowed-once' }
    const { run, ctx } = await setup({}, async (ctx) => {
      ctx.provide('toolApproval', {
        async requestApproval(request: ToolApprovalRequest): Promise<ToolApprovalOutcome> {
          asked.push(request.execution.callId)
          await pause(50)
          return answer
        },
      } as never)
    })
    ctx.tools.on('tools/pre-execute', (exec, next) => (exec.name === 'echo' ? { kind: 'ask', reason: 'echo needs a yes' } : next()), { prepend: true })
    const agent = createTestAgent('asker')
    const allowed = await run(`return (await tools.echo({ text: 'ok' })).content[0].text`, { agent, callId: 'ask1' })
    expect(text(allowed)).toContain('"ok"')
    expect(asked).toEqual(['ask1:code:1'])
    answer = { outcome: 'rejected', reason: 'no' }
    const rejected = await run(`try { await tools.echo({ text: 'no' }) } catch (error) { return error.code }`, { agent })
    expect(text(rejected)).toContain('"APPROVAL_REJECTED"')
  })

  it('overlaps parallel-safe sub-calls up to the limit, and runs serial ones alone in the order made', async () => {
    const { run, stats } = await setup({ maxParallelSubCalls: 3 })
    const parallel = await run(`return await Promise.all(Array.from({ length: 10 }, () => tools.slow({ ms: 30 })))`)
    expect(parallel.isError).toBe(false)
    expect(stats.most).toBe(3)
    const serialRun = await run(`return await Promise.all([1, 2, 3, 4].map((n) => tools.step({ n })))`)
    expect(serialRun.isError).toBe(false)
    expect(stats.steps).toEqual([1, 2, 3, 4])
  })

  it('refuses the sub-call past maxSubCalls, and run_code from inside a program', async () => {
    const { run } = await setup({ maxSubCalls: 2 })
    const result = await run(`
      const out = []
      for (let i = 0; i < 3; i++) { try { await tools.echo({ text: String(i) }); out.push('ok') } catch (e) { out.push(e.code) } }
      return out`)
    expect(text(result)).toContain('"CODE_SUBCALL_LIMIT"')
    expect(text(result)).toContain('2 sub-calls: 2 ok')
  })

  it("the outer call's abort stops the program and its sub-call; nothing is delivered after the outer result", async () => {
    const { run, delivered, stats } = await setup()
    const controller = new AbortController()
    const pending = run(`await tools.slow({ ms: 10000 }); return 'never'`, { signal: controller.signal, callId: 'aborted' })
    for (let waited = 0; stats.running === 0 && waited < 10_000; waited += 10) await pause(10)
    expect(stats.running).toBe(1)
    controller.abort()
    const result = await pending
    expect(result.isError).toBe(true)
    const count = delivered.length
    await pause(100)
    expect(delivered.length).toBe(count)
    expect(delivered.find((entry) => entry.exec.callId === 'aborted:code:1')?.result.isError).toBe(true)
  })

  it('bounds what the model reads of the logs and the value, head and tail kept', async () => {
    const { run } = await setup({ maxOutputBytes: 1_000 })
    const result = await run(`for (let i = 0; i < 200; i++) console.log('line ' + i); return 'x'.repeat(50000)`)
    expect(result.isError).toBe(false)
    expect(text(result).length).toBeLessThan(4_000)
    expect(text(result)).toContain('bytes left out')
    expect((result.meta as RunCodeMeta).truncated).toBe(true)
  })
})

describe('every failure of a sub-call reaches the program as a catchable error with its code', () => {
  it('GUARD_DENIED, TOOL_TIMEOUT, UNKNOWN_TOOL (a tool gone since the SDK was made), INVALID_ARGS from the raw bridge', async () => {
    const { ctx, run } = await setup({}, async (ctx) => {
      loaded.push(await ctx.plugin(TimeoutPolicy, { graceMs: 50 }))
    })
    ctx.tools.guard((exec) => (exec.name === 'echo' && JSON.stringify(exec.arguments).includes('secret') ? 'no secrets' : undefined))
    const unregister = ctx.tools.register(defineTool({ name: 'flaky', description: 'Goes away.', parameters: {}, execute: () => 'here' }))
    ctx.tools.register(
      defineTool({
        name: 'stuck',
        description: 'Never answers in time.',
        parameters: {},
        timeoutMs: 100,
        execute: (_args, exec) => new Promise<string>((resolve) => exec.signal.addEventListener('abort', () => resolve('late'))),
      }),
    )
    const pending = run(`
      const codes = []
      const attempt = async (call) => { try { await call(); codes.push('ok') } catch (error) { codes.push(error.code) } }
      await attempt(() => tools.echo({ text: 'a secret' }))
      await attempt(() => tools.stuck({}))
      await attempt(() => tools.flaky({}))
      return codes`)
    // The SDK was rendered when the run started; flaky goes away while the program runs.
    setTimeout(unregister, 20)
    const result = await pending
    expect(result.isError).toBe(false)
    expect(JSON.parse(text(result).split('Returned:\n')[1]?.split('\n\n')[0] ?? '[]')).toEqual(['GUARD_DENIED', 'TOOL_TIMEOUT', 'UNKNOWN_TOOL'])
  })
})

describe('modes', () => {
  it("code: direct calls to other tools are UNKNOWN_TOOL with the hint, before any policy; programs reach them; both and native", async () => {
    const { ctx, run, policy } = await setup()
    const agent = createTestAgent('coder')
    const reset = ctx.codeMode.setMode(agent, 'code')
    expect(ctx.tools.schemas(agent).map((schema) => schema.name)).toEqual(['run_code'])
    const direct = await ctx.tools.execute({ callId: 'd', name: 'echo', arguments: { text: 'x' }, agent })
    expect(direct).toMatchObject({ isError: true, error: { code: 'UNKNOWN_TOOL' } })
    expect(text(direct)).toContain('pass run_code a program')
    expect(policy).toEqual([])
    expect(text(await run(`return (await tools.echo({ text: 'via code' })).content[0].text`, { agent }))).toContain('"via code"')
    reset()
    expect(ctx.tools.schemas(agent).map((schema) => schema.name)).toContain('echo')
    ctx.codeMode.setMode(agent, 'native')
    expect(await ctx.tools.execute({ callId: 'n', name: 'run_code', arguments: { code: 'return 1' }, agent })).toMatchObject({ error: { code: 'UNKNOWN_TOOL' } })
  })

  it("unloading the plugin removes run_code and the modes it set: the agent's view is as before", async () => {
    const ctx = new Context()
    loaded.push(await ctx.plugin(ToolRegistry))
    ctx.tools.register(defineTool({ name: 'echo', description: 'Echoes.', parameters: {}, execute: () => 'x' }))
    const agent = createTestAgent('restored')
    const before = ctx.tools.schemas(agent)
    const fiber = await ctx.plugin(CodeMode)
    ctx.codeMode.setMode(agent, 'code')
    expect(ctx.tools.schemas(agent).map((schema) => schema.name)).toEqual(['run_code'])
    await fiber.dispose()
    expect(ctx.tools.schemas(agent)).toEqual(before)
    expect(await ctx.tools.execute({ callId: 'c', name: 'echo', arguments: {}, agent })).toMatchObject({ isError: false })
  })

  it('unloading the plugin restores the view and leaves nothing behind', async () => {
    const report = await expectCleanUnload(CodeMode)
    expect(report).toBeDefined()
  })
})

describe('a long run as a task', () => {
  it('moves to the background past its budget; task_output returns its logs, then its result; task_kill stops it', async () => {
    const { ctx, run } = await setup({ autoBackgroundAfterMs: 100 }, async (ctx) => {
      loaded.push(await ctx.plugin(TaskService, { killGraceMs: 2_000 }))
    })
    const started = await run(`console.log('started'); await tools.slow({ ms: 400 }); return 'finished'`)
    expect(text(started)).toMatch(/moved to the background as task/)
    const id = (started.meta as { task: { id: string } }).task.id
    let all = ''
    for (let read = 0; read < 20 && !all.includes('completed. Its result'); read++) {
      all += text(await ctx.tools.execute({ callId: `r${read}`, name: 'task_output', arguments: { task_id: id, wait_ms: 2_000 } }))
    }
    expect(all).toContain('started')
    expect(all).toContain('"finished"')
    const long = await run(`await tools.slow({ ms: 10000 }); return 'never'`)
    const longId = (long.meta as { task: { id: string } }).task.id
    expect(text(await ctx.tools.execute({ callId: 'k', name: 'task_kill', arguments: { task_id: longId } }))).toBe(`Task ${longId} was stopped.`)
  })
})

describe('configuration', () => {
  it('fills in the defaults and lists every problem of a bad configuration, each with its key; the load fails', async () => {
    expect(resolveCodeModeConfig()).toMatchObject({ maxSubCalls: 200, maxParallelSubCalls: 4, limits: { cpuMs: 10_000, memoryBytes: 64 * 1_048_576 } })
    let thrown: unknown
    try {
      resolveCodeModeConfig({ maxSubCalls: -1, limits: { cpuMs: 0, heap: 3 } as never, colour: 'red' } as never)
    } catch (error) {
      thrown = error
    }
    expect(CodeModeConfigError.isInstance(thrown)).toBe(true)
    expect((thrown as CodeModeConfigError).code).toBe('INVALID_CONFIG')
    expect((thrown as CodeModeConfigError).problems).toEqual([
      expect.stringMatching(/^colour: unknown option/),
      'limits.cpuMs: must be an integer from 1 to 2147483647, got 0',
      expect.stringMatching(/^limits\.heap: unknown limit/),
      'maxSubCalls: must be an integer from 0 to 2147483647, got -1',
    ])
    const ctx = new Context()
    loaded.push(await ctx.plugin(ToolRegistry))
    await expect(ctx.plugin(CodeMode, { runtime: {} as never })).rejects.toThrow('runtime: must be a CodeRuntime')
    expect(ctx.tools.schemas()).toEqual([])
  })
})

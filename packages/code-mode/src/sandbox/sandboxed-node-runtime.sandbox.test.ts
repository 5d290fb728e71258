// SandboxedNodeRuntime against a real bubblewrap: the surface a program sees, the limits, the end of a run, and what
// the host does with a process that does not follow the protocol.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { runProgram, testBridge, type Answer } from '../runtime/test-bridge.js'
import { SandboxedNodeRuntime } from './sandboxed-node-runtime.js'
import { describeInSandbox } from './test-support.js'

const echo = (args: unknown): Answer => ({ value: { echoed: args } })

function failure(outcome: Awaited<ReturnType<typeof runProgram>>['outcome']) {
  if (outcome.ok) throw new Error(`the run succeeded: ${outcome.valueJson}`)
  return outcome
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((done) => (resolve = done))
  return { promise, resolve }
}

describeInSandbox(() => {
  const runtime = new SandboxedNodeRuntime()
  afterAll(() => runtime.close())

  it('check() proves the sandbox once and measures what Node reserves', async () => {
    const check = await runtime.check()
    expect(check).toMatchObject({ ok: true, node: expect.stringMatching(/node/) })
    expect(check.ok && check.baseAddressSpaceBytes).toBeGreaterThan(16 * 1024 * 1024)
    expect(await runtime.check()).toBe(check)
  })

  it('a missing bwrap is reported by check() and settles runs as not available', async () => {
    const missing = new SandboxedNodeRuntime({ bwrap: '/nonexistent/bwrap' })
    expect(await missing.check()).toMatchObject({ ok: false, reason: 'bwrap-missing' })
    expect((await runProgram(missing, 'return 1')).outcome).toEqual({
      ok: false,
      kind: 'error',
      message: 'the sandbox is not available: bubblewrap (bwrap) is not installed or not on PATH',
    })
  })

  it('round trip: values, a sub-call under its registry name, a call without argument', async () => {
    expect((await runProgram(runtime, 'return { a: [1, "two", null, true], b: { c: -0.5 } }')).outcome).toEqual({
      ok: true,
      valueJson: '{"a":[1,"two",null,true],"b":{"c":-0.5}}',
    })
    expect((await runProgram(runtime, 'const x = 1')).outcome).toEqual({ ok: true, valueJson: undefined })
    const { value, bridge } = await runProgram(runtime, 'return [await tools.read_file({ path: "a.txt" }), await tools.read_file()]', {
      tools: { 'read-file': echo },
      names: { read_file: 'read-file' },
    })
    expect(bridge.calls).toEqual([
      { tool: 'read-file', argsJson: '{"path":"a.txt"}' },
      { tool: 'read-file', argsJson: '{}' },
    ])
    expect(value).toEqual([{ echoed: { path: 'a.txt' } }, { echoed: {} }])
  })

  it('parallel sub-calls are all in flight at once', async () => {
    const gates: Array<{ args: unknown; gate: ReturnType<typeof deferred<Answer>> }> = []
    const slow = async (args: unknown) => {
      const gate = deferred<Answer>()
      gates.push({ args, gate })
      if (gates.length === 3) for (const each of gates) each.gate.resolve({ value: { args: each.args } })
      return gate.promise
    }
    const { value } = await runProgram(runtime, 'return (await Promise.all([1, 2, 3].map((n) => tools.slow({ n })))).map((r) => r.args.n)', {
      tools: { slow },
    })
    expect(value).toEqual([1, 2, 3])
  })

  it('a failed sub-call is a catchable Error with name, code and message; uncaught, it ends the run with them', async () => {
    const denied = (): Answer => ({ error: { name: 'ToolCallError', code: 'DENIED', message: 'write_file is denied here' } })
    const { value } = await runProgram(
      runtime,
      `try { await tools.write_file({}) } catch (error) { return { isError: error instanceof Error, name: error.name, code: error.code, message: error.message, stack: String(error.stack) } }`,
      { tools: { write_file: denied } },
    )
    expect(value).toMatchObject({ isError: true, name: 'ToolCallError', code: 'DENIED', message: 'write_file is denied here' })
    expect((value as { stack: string }).stack).not.toMatch(/\/work|node_modules|\.ts\b/)
    expect(failure((await runProgram(runtime, 'await tools.write_file({})', { tools: { write_file: denied } })).outcome)).toEqual({
      ok: false,
      kind: 'error',
      name: 'ToolCallError',
      code: 'DENIED',
      message: 'ToolCallError: write_file is denied here',
    })
  })

  it('thrown errors and syntax errors carry the program line; a throwing timer callback fails the run', async () => {
    const thrown = failure((await runProgram(runtime, 'const a = 1\nconst b = null\nreturn b.x')).outcome)
    expect(thrown).toMatchObject({ kind: 'error', name: 'TypeError', message: expect.stringMatching(/^TypeError: .+ \(line 3\)$/) })
    const syntax = failure((await runProgram(runtime, 'const a = 1\nconst = 2')).outcome)
    expect(syntax).toMatchObject({ kind: 'error', name: 'SyntaxError', message: expect.stringMatching(/^SyntaxError: .+ \(line 2\)$/) })
    const timer = failure((await runProgram(runtime, "setTimeout(() => { throw new Error('late') }, 1)\nawait new Promise((r) => setTimeout(r, 50))")).outcome)
    expect(timer).toMatchObject({ kind: 'error', name: 'Error', message: 'Error: late (line 1)' })
  })

  it('a program waiting on a promise nothing can settle ends at once', async () => {
    const { outcome, ms } = await runProgram(runtime, 'Promise.reject(new Error("ignored"))\nawait new Promise(() => {})', { limits: { wallMs: 10_000 } })
    expect(failure(outcome)).toMatchObject({ kind: 'error', message: expect.stringContaining('nothing can settle') })
    expect(ms).toBeLessThan(5_000)
  })

  it.each([
    ['undefined', '{ a: undefined }', /TypeError: .*undefined at args\.a/],
    ['a cycle', '(() => { const a = {}; a.a = a; return a })()', /TypeError: .*a cycle at args\.a/],
    ['a getter', '{ get secret() { return 1 } }', /TypeError: .*a getter at args\.secret/],
    ['a BigInt', '{ n: 1n }', /TypeError: .*a BigInt at args\.n/],
    ['a Buffer', 'Buffer.from("x")', /TypeError: .*a Buffer at args/],
    ['too big', '{ text: "é".repeat(40000) }', /RangeError: .*over the limit of 65536 bytes/],
  ])('the strict encoder refuses %s inside the program, and the bridge never sees it', async (_, argument, expected) => {
    const { value, bridge } = await runProgram(runtime, `try { await tools.echo(${argument}); return 'sent' } catch (error) { return error.name + ': ' + error.message }`, {
      tools: { echo },
    })
    expect(value).toMatch(expected)
    expect(bridge.calls).toEqual([])
  })

  it('the returned value is encoded strictly: non-JSON or too big fails the run', async () => {
    expect(failure((await runProgram(runtime, 'return { f: () => 1 }')).outcome).message).toBe('the returned value must be JSON data: a function at value.f')
    expect(failure((await runProgram(runtime, 'return "x".repeat(70000)')).outcome).message).toBe('the returned value is over the limit of 65536 bytes of JSON')
  })

  it('logs are formatted inside and bounded; what was dropped is counted', async () => {
    const { bridge, outcome } = await runProgram(runtime, 'console.log("a", 1, { b: [1] }); for (let i = 0; i < 10000; i++) console.warn("x".repeat(100)); return 1', {
      limits: { maxLogBytes: 2_000 },
    })
    expect(outcome).toEqual({ ok: true, valueJson: '1' })
    expect(bridge.logs[0]).toEqual({ level: 'log', text: 'a 1 { b: [ 1 ] }' })
    const kept = bridge.logs.slice(0, -1)
    expect(kept.reduce((sum, { text }) => sum + Buffer.byteLength(text) + 1, 0)).toBeLessThanOrEqual(2_000)
    expect(bridge.logs.at(-1)!.text).toMatch(/^… \d+ more log lines dropped/)
  })

  it.each([
    ['the V8 heap (arrays)', 'const a = []; while (true) a.push(new Array(1e5).fill(1.5))'],
    ['strings', 'const a = []; let i = 0; while (true) a.push("x".repeat(1 << 20) + i++)'],
    ['ArrayBuffers (outside the heap: the address-space limit)', 'const a = []; while (true) a.push(new Uint8Array(1 << 20).fill(1))'],
    ['ArrayBuffers, the refusal caught and ignored', 'const a = []; for (;;) { try { a.push(new Uint8Array(1 << 20).fill(1)) } catch {} }'],
  ])('memory: %s end the run as memory', async (_, program) => {
    const { outcome } = await runProgram(runtime, program, { limits: { cpuMs: 5_000 } })
    expect(failure(outcome)).toMatchObject({ kind: 'memory', message: expect.stringContaining('ran out of memory (16777216 bytes)') })
  })

  it.each([
    ['a loop', 'while (true) {}'],
    ['a loop after an await', 'await tools.echo({}); while (true) {}'],
    ['an endless microtask chain', 'function loop() { Promise.resolve().then(loop) } loop(); await tools.echo({})'],
    ['regex backtracking', 'return /^(a+)+$/.test("a".repeat(40) + "b")'],
  ])('cpu: %s ends as timeout near the budget', async (_, program) => {
    const { outcome, ms } = await runProgram(runtime, program, { tools: { echo }, limits: { cpuMs: 150 } })
    expect(failure(outcome)).toEqual({ ok: false, kind: 'timeout', message: 'the program used up its CPU time (150 ms)' })
    expect(ms).toBeGreaterThanOrEqual(150)
    expect(ms).toBeLessThan(3_000)
  })

  it('cpu: waiting for sub-calls or timers does not count', async () => {
    const slow = () => new Promise<Answer>((resolve) => setTimeout(() => resolve({ value: 1 }), 150))
    const { outcome } = await runProgram(runtime, 'await tools.slow({}); await new Promise((r) => setTimeout(r, 150)); return await tools.slow({})', {
      tools: { slow },
      limits: { cpuMs: 100 },
    })
    expect(outcome).toEqual({ ok: true, valueJson: '1' })
  })

  it('wall: a sub-call that never answers, and a program that sleeps, end as timeout at wallMs', async () => {
    for (const program of ['await tools.never({})', 'await new Promise((r) => setTimeout(r, 60_000))']) {
      const { outcome, ms } = await runProgram(runtime, program, { tools: { never: () => new Promise<Answer>(() => {}) }, limits: { wallMs: 400 } })
      expect(failure(outcome)).toEqual({ ok: false, kind: 'timeout', message: 'the program ran out of wall-clock time (400 ms)' })
      expect(ms).toBeGreaterThanOrEqual(395)
      expect(ms).toBeLessThan(3_000)
    }
  })

  it('stack: deep recursion is a catchable RangeError', async () => {
    const { value } = await runProgram(runtime, 'function f(n) { return f(n + 1) + 1 } try { f(0) } catch (error) { return [error.name, error instanceof RangeError] }')
    expect(value).toEqual(['RangeError', true])
  })

  it('abort during a sub-call: aborted, and the late answer is ignored; an aborted signal never starts a process', async () => {
    const controller = new AbortController()
    const gate = deferred<Answer>()
    const bridge = testBridge({
      wait: () => {
        controller.abort()
        return gate.promise
      },
    })
    const { outcome } = await runProgram(runtime, 'await tools.wait({}); await tools.wait({}); return 1', { bridge, names: { wait: 'wait' }, signal: controller.signal })
    expect(outcome).toEqual({ ok: false, kind: 'aborted', message: 'the run was aborted' })
    gate.resolve({ value: 1 })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(bridge.calls).toHaveLength(1)
    const early = await runProgram(runtime, 'await tools.echo({})', { tools: { echo }, signal: AbortSignal.abort() })
    expect(early.outcome).toMatchObject({ ok: false, kind: 'aborted' })
    expect(early.bridge.calls).toEqual([])
  })

  it('once the program returned, its unawaited work never reaches the bridge', async () => {
    const { outcome, bridge } = await runProgram(
      runtime,
      'void (async () => { for (;;) await tools.echo({}) })(); setTimeout(() => tools.echo({ late: true }), 1); return 1',
      { tools: { echo } },
    )
    expect(outcome).toEqual({ ok: true, valueJson: '1' })
    const count = bridge.calls.length
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(bridge.calls.length).toBe(count)
    expect(count).toBeLessThanOrEqual(1)
  })

  it('a bridge that throws or answers garbage gives the program an error, never a host crash', async () => {
    const bridge = testBridge({})
    bridge.call = (tool) => {
      if (tool === 'throws') throw new Error('/secret/host/path.ts failed')
      return Promise.resolve({ ok: 'yes' } as never)
    }
    const { value } = await runProgram(
      runtime,
      `const seen = []
       for (const name of ['throws', 'garbage']) { try { await tools[name]({}) } catch (error) { seen.push([error.code, error.message]) } }
       return seen`,
      { bridge, names: { throws: 'throws', garbage: 'garbage' } },
    )
    expect(value).toEqual([
      ['TOOL_FAILED', 'the sub-call failed in the host'],
      ['TOOL_FAILED', 'the sub-call failed in the host'],
    ])
  })

  it('invalid limits settle the run failed instead of throwing', async () => {
    expect((await runProgram(runtime, 'return 1', { limits: { cpuMs: Number.NaN } })).outcome).toEqual({
      ok: false,
      kind: 'error',
      message: 'limits.cpuMs must be a positive number',
    })
  })

  it('runs leave no files in the temp directory', async () => {
    // A private TMPDIR (os.tmpdir() reads it at each call): the shared one also holds what other processes make
    // meanwhile (a fresh-clone CI run saw another package's file appear there during this test).
    const saved = process.env['TMPDIR']
    const own = mkdtempSync(join(tmpdir(), 'dsh-code-tmpdir-'))
    process.env['TMPDIR'] = own
    try {
      expect(tmpdir()).toBe(own)
      await Promise.all([runProgram(runtime, 'return 1'), runProgram(runtime, 'while (true) {}', { limits: { cpuMs: 50 } }), runProgram(runtime, 'process.abort()')])
      expect(readdirSync(own)).toEqual([])
    } finally {
      if (saved === undefined) delete process.env['TMPDIR']
      else process.env['TMPDIR'] = saved
      rmSync(own, { recursive: true, force: true })
    }
  })

  it('close() aborts runs in progress and later runs', async () => {
    const own = new SandboxedNodeRuntime()
    const spinning = runProgram(own, 'while (true) {}', { limits: { cpuMs: 10_000, wallMs: 10_000 } })
    const waiting = runProgram(own, 'await tools.never({})', { tools: { never: () => new Promise<Answer>(() => {}) } })
    await new Promise((resolve) => setTimeout(resolve, 300))
    await own.close()
    expect((await spinning).outcome).toMatchObject({ ok: false, kind: 'aborted' })
    expect((await waiting).outcome).toMatchObject({ ok: false, kind: 'aborted' })
    expect((await runProgram(own, 'return 1')).outcome).toEqual({ ok: false, kind: 'aborted', message: 'the code runtime is closed' })
  })
})

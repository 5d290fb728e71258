import { afterAll, describe, expect, it } from 'vitest'
import { stripTypes } from '../strip-types.js'
import { QuickJsRuntime } from './quickjs-runtime.js'
import { runProgram, testBridge, type Answer } from './test-bridge.js'

const runtime = new QuickJsRuntime({ warmWorkers: 2 })
afterAll(() => runtime.close())

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

describe('QuickJsRuntime: values, tools and logs', () => {
  it('returns JSON values; returning nothing is valueJson undefined', async () => {
    expect((await runProgram(runtime, 'return { a: [1, "two", null, true], b: { c: -0.5 } }')).outcome).toEqual({
      ok: true,
      valueJson: '{"a":[1,"two",null,true],"b":{"c":-0.5}}',
    })
    expect((await runProgram(runtime, 'return "text"')).value).toBe('text')
    expect((await runProgram(runtime, 'const x = 1')).outcome).toEqual({ ok: true, valueJson: undefined })
  })

  it('runs a stripped TypeScript program with top-level await', async () => {
    const program = stripTypes(
      'interface Row { n: number }\nconst rows: Row[] = (await tools.list({})) as Row[]\nreturn rows.map((row: Row) => row.n * 2)',
    )
    const { value } = await runProgram(runtime, program, { tools: { list: () => ({ value: [{ n: 1 }, { n: 2 }] }) } })
    expect(value).toEqual([2, 4])
  })

  it('a sub-call crosses as JSON text both ways, under the registry name the identifier stands for', async () => {
    const { value, bridge } = await runProgram(runtime, 'return await tools.read_file({ path: "a.txt", lines: [1, 2] })', {
      tools: { 'read-file': echo },
      names: { read_file: 'read-file' },
    })
    expect(bridge.calls).toEqual([{ tool: 'read-file', argsJson: '{"path":"a.txt","lines":[1,2]}' }])
    expect(value).toEqual({ echoed: { path: 'a.txt', lines: [1, 2] } })
  })

  it('a call without an argument sends {}; more than one argument is refused', async () => {
    const { value, bridge } = await runProgram(
      runtime,
      'const a = await tools.echo(); let b; try { await tools.echo({}, 2) } catch (error) { b = error.name + ": " + error.message } return [a, b]',
      { tools: { echo } },
    )
    expect(bridge.calls).toEqual([{ tool: 'echo', argsJson: '{}' }])
    expect(value).toEqual([{ echoed: {} }, 'TypeError: tools.echo takes one argument: an object'])
  })

  it('parallel calls are all in flight at once (Promise.all)', async () => {
    // Each call is answered only once all three are in flight.
    const gates: Array<{ args: unknown; gate: ReturnType<typeof deferred<Answer>> }> = []
    const tools = {
      slow: async (args: unknown) => {
        const gate = deferred<Answer>()
        gates.push({ args, gate })
        if (gates.length === 3) for (const each of gates) each.gate.resolve({ value: { args: each.args } })
        return gate.promise
      },
    }
    const { value, bridge } = await runProgram(
      runtime,
      'const results = await Promise.all([1, 2, 3].map((n) => tools.slow({ n }))); return results.map((r) => r.args.n)',
      { tools },
    )
    expect(bridge.calls).toHaveLength(3)
    expect(value).toEqual([1, 2, 3])
  })

  it('a failed sub-call is a catchable Error with name, code and message, and no host stack', async () => {
    const denied = (): Answer => ({ error: { name: 'ToolCallError', code: 'DENIED', message: 'write_file is denied here' } })
    const { value } = await runProgram(
      runtime,
      `try { await tools.write_file({ path: "x" }) } catch (error) {
         return { isError: error instanceof Error, name: error.name, code: error.code, message: error.message, stack: String(error.stack) }
       }`,
      { tools: { write_file: denied } },
    )
    expect(value).toMatchObject({ isError: true, name: 'ToolCallError', code: 'DENIED', message: 'write_file is denied here' })
    expect((value as { stack: string }).stack).not.toMatch(/\/work|node_modules|\.ts\b|\.js\b|file:/)
  })

  it('an uncaught sub-call error ends the run failed with its name and code', async () => {
    const outcome = failure(
      (
        await runProgram(runtime, 'await tools.search({ q: 1 })', {
          tools: { search: () => ({ error: { name: 'ToolArgsError', code: 'INVALID_ARGS', message: 'q must be a string' } }) },
        })
      ).outcome,
    )
    expect(outcome).toEqual({ ok: false, kind: 'error', name: 'ToolArgsError', code: 'INVALID_ARGS', message: 'ToolArgsError: q must be a string' })
  })

  it('a thrown error ends the run with its name, message and line; a non-Error thrown is described', async () => {
    const outcome = failure((await runProgram(runtime, 'const a = 1\nconst b = null\nreturn b.x')).outcome)
    expect(outcome.kind).toBe('error')
    expect(outcome.name).toBe('TypeError')
    expect(outcome.message).toMatch(/^TypeError: .+ \(line 3\)$/)
    expect(failure((await runProgram(runtime, 'throw 42')).outcome).message).toBe('the program threw a value that is not an Error: 42')
  })

  it('a syntax error is an error outcome with the line', async () => {
    const outcome = failure((await runProgram(runtime, 'const a = 1\nconst = 2')).outcome)
    expect(outcome).toMatchObject({ kind: 'error', name: 'SyntaxError' })
    expect(outcome.message).toMatch(/^SyntaxError: .+ \(line 2\)$/)
  })

  it('a program waiting on a promise nothing can settle ends at once, not at the wall-clock limit', async () => {
    const { outcome, ms } = await runProgram(runtime, 'await new Promise(() => {})', { limits: { wallMs: 10_000 } })
    expect(failure(outcome)).toMatchObject({ kind: 'error', message: expect.stringContaining('nothing can settle') })
    expect(ms).toBeLessThan(5_000)
  })

  it('logs cross as text at their level; objects are formatted inside the guest', async () => {
    const { bridge } = await runProgram(
      runtime,
      `console.log('a', 1, { b: [1, 'x'], get c() { return 1 } }); console.warn(new Error('boom')); console.error(Symbol('s'), 2n, undefined, null)
       const cyclic = { name: 'c' }; cyclic.self = cyclic; console.info(cyclic); console.debug(() => 1, new Date(0))`,
    )
    expect(bridge.logs).toEqual([
      { level: 'log', text: "a 1 { b: [ 1, \"x\" ], c: [Getter] }" },
      { level: 'warn', text: expect.stringMatching(/^Error: boom\n/) },
      { level: 'error', text: 'Symbol(s) 2n undefined null' },
      { level: 'info', text: '{ name: "c", self: [Circular] }' },
      { level: 'debug', text: '[Function] 1970-01-01T00:00:00.000Z' },
    ])
  })

  it('logs are bounded in bytes and lines; what was dropped is counted', async () => {
    const { outcome, bridge } = await runProgram(
      runtime,
      'for (let i = 0; i < 100000; i++) console.log("line " + i + " " + "é".repeat(50)); console.log(""); return 1',
      { limits: { maxLogBytes: 2_000 } },
    )
    expect(outcome).toEqual({ ok: true, valueJson: '1' })
    const kept = bridge.logs.slice(0, -1)
    const bytes = kept.reduce((sum, { text }) => sum + Buffer.byteLength(text) + 1, 0)
    expect(bytes).toBeLessThanOrEqual(2_000)
    expect(kept.length).toBeGreaterThan(10)
    expect(bridge.logs.at(-1)).toEqual({ level: 'warn', text: expect.stringMatching(/^… \d+ more log lines dropped/) })
    const dropped = Number(/… (\d+) more/.exec(bridge.logs.at(-1)!.text)![1])
    expect(kept.length + dropped).toBe(100_001)
  })

  it('one huge log line is cut at the limit', async () => {
    const { bridge } = await runProgram(runtime, 'console.log("x".repeat(1_000_000))', { limits: { maxLogBytes: 1_000 } })
    expect(bridge.logs).toHaveLength(1)
    expect(Buffer.byteLength(bridge.logs[0]!.text)).toBeLessThanOrEqual(1_000)
  })
})

describe('QuickJsRuntime: the strict encoder', () => {
  const refusals: Array<[string, string, RegExp]> = [
    ['undefined', '{ a: undefined }', /TypeError: .*JSON data: undefined at args\.a/],
    ['a cycle', '(() => { const a = { b: {} }; a.b.a = a; return a })()', /TypeError: .*a cycle at args\.b\.a/],
    ['a getter', '{ get secret() { return 1 } }', /TypeError: .*a getter at args\.secret/],
    ['a BigInt', '{ n: 1n }', /TypeError: .*a BigInt at args\.n/],
    ['a Symbol', '{ s: Symbol("x") }', /TypeError: .*a Symbol at args\.s/],
    ['a Symbol key', '{ [Symbol("k")]: 1 }', /TypeError: .*a Symbol key at args/],
    ['a function', '{ f() {} }', /TypeError: .*a function at args\.f/],
    ['NaN', '{ n: NaN }', /TypeError: .*NaN at args\.n/],
    ['a Date', '{ d: new Date(0) }', /TypeError: .*a Date at args\.d/],
    ['a Map', '[new Map()]', /TypeError: .*a Map at args\[0\]/],
    ['a class instance', '(() => { class Point { x = 1 }; return new Point() })()', /TypeError: .*a Point at args/],
    ['a hole', '[1, , 3]', /TypeError: .*holes/],
    ['a getter in an array', '(() => { const a = [1]; Object.defineProperty(a, 0, { get() { return 2 }, enumerable: true }); return a })()', /TypeError: .*a getter at args\[0\]/],
    ['a typed array', 'new Uint8Array(2)', /TypeError: .*a Uint8Array at args/],
    ['too big', '{ text: "x".repeat(70000) }', /RangeError: .*over the limit of 65536 bytes/],
    ['too big in many parts', 'Array.from({ length: 20000 }, (_, i) => i)', /RangeError: .*over the limit of 65536 bytes/],
    ['too big in bytes, not characters', '{ text: "é".repeat(40000) }', /RangeError: .*over the limit of 65536 bytes/],
    ['too deep', '(() => { let a = []; for (let i = 0; i < 300; i++) a = [a]; return a })()', /TypeError: .*deeper than 256/],
  ]
  it.each(refusals)('refuses %s inside the program, catchably, and the bridge never sees it', async (_, argument, expected) => {
    const { value, bridge } = await runProgram(
      runtime,
      `try { await tools.echo(${argument}); return 'sent' } catch (error) { return error.name + ': ' + error.message }`,
      { tools: { echo } },
    )
    expect(value).toMatch(expected)
    expect(bridge.calls).toEqual([])
  })

  it('keeps what JSON keeps: null-prototype objects, unicode, -0 as 0, non-enumerable properties left out', async () => {
    const { bridge } = await runProgram(
      runtime,
      `const o = Object.create(null); o.k = 'v'; const p = { a: 1 }; Object.defineProperty(p, 'hidden', { value: 2 })
       await tools.echo({ o, p, s: 'é\\u2028"\\\\', z: -0, nested: [[[]]] })`,
      { tools: { echo } },
    )
    expect(JSON.parse(bridge.calls[0]!.argsJson)).toEqual({ o: { k: 'v' }, p: { a: 1 }, s: 'é\u2028"\\', z: 0, nested: [[[]]] })
  })

  it('a program that patches the built-ins does not change what the encoder sends', async () => {
    const { bridge } = await runProgram(
      runtime,
      `JSON.stringify = () => '"patched"'; Object.keys = () => []; Array.prototype.push = () => { throw new Error('no') }
       Object.defineProperty(Array.prototype, '0', { set() { throw new Error('setter') }, configurable: true })
       Object.prototype.toJSON = () => 'patched'
       await tools.echo({ a: [1, { b: 2 }] })`,
      { tools: { echo } },
    )
    expect(bridge.calls).toEqual([{ tool: 'echo', argsJson: '{"a":[1,{"b":2}]}' }])
  })

  it('the returned value is encoded the same way: non-JSON or too big fails the run, saying why', async () => {
    expect(failure((await runProgram(runtime, 'return { f: () => 1 }')).outcome)).toEqual({
      ok: false,
      kind: 'error',
      message: 'the returned value must be JSON data: a function at value.f',
    })
    expect(failure((await runProgram(runtime, 'return "x".repeat(70000)')).outcome)).toEqual({
      ok: false,
      kind: 'error',
      message: 'the returned value is over the limit of 65536 bytes of JSON',
    })
  })
})

describe('QuickJsRuntime: limits', () => {
  it.each([
    ['arrays', 'const a = []; while (true) a.push(new Array(1e5).fill(1.5))'],
    ['strings', 'const a = []; let i = 0; while (true) a.push("x".repeat(1 << 20) + i++)'],
    ['typed arrays', 'const a = []; while (true) a.push(new Uint8Array(1 << 20))'],
    ['maps', 'const m = new Map(); let i = 0; while (true) m.set(i, { i: i++ })'],
    ['a tool result copied in', 'await tools.big({})'],
  ])('memory: %s end the run as memory, and host memory stays bounded', async (_, program) => {
    const before = process.memoryUsage().rss
    const { outcome } = await runProgram(runtime, program, {
      tools: { big: () => ({ value: 'y'.repeat(20 * 1024 * 1024) }) },
      limits: { cpuMs: 5_000 },
    })
    expect(failure(outcome)).toMatchObject({ kind: 'memory', message: expect.stringContaining('memory') })
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024)
  })

  it('memory the program cannot catch: a catch block around the allocation does not save it', async () => {
    const { outcome } = await runProgram(runtime, 'try { const a = []; while (true) a.push(new Array(1e5).fill(1)) } catch { return "caught" }')
    expect(failure(outcome).kind).toBe('memory')
  })

  it.each([
    ['a loop', 'while (true) {}'],
    ['a loop after an await', 'await tools.echo({}); while (true) {}'],
    ['an endless microtask chain', 'function loop() { Promise.resolve().then(loop) } loop(); await tools.echo({})'],
    ['a loop in a catch-all', 'while (true) { try { while (true) {} } catch {} }'],
    ['regex backtracking', 'return /^(a+)+$/.test("a".repeat(40) + "b")'],
    ['a spinning getter while the thrown error is described', 'throw { get message() { while (true) {} } }'],
  ])('cpu: %s ends as timeout near the budget', async (_, program) => {
    const { outcome, ms } = await runProgram(runtime, program, { tools: { echo }, limits: { cpuMs: 150 } })
    expect(failure(outcome)).toMatchObject({ kind: 'timeout', message: 'the program used up its CPU time (150 ms)' })
    expect(ms).toBeGreaterThanOrEqual(150)
    expect(ms).toBeLessThan(2_000)
  })

  it('cpu: waiting for sub-calls does not count', async () => {
    const slow = () => new Promise<Answer>((resolve) => setTimeout(() => resolve({ value: 1 }), 150))
    const { outcome } = await runProgram(runtime, 'await tools.slow({}); return await tools.slow({})', { tools: { slow }, limits: { cpuMs: 50 } })
    expect(outcome).toEqual({ ok: true, valueJson: '1' })
  })

  it('wall: a sub-call that never answers ends the run as timeout at wallMs', async () => {
    const { outcome, ms } = await runProgram(runtime, 'await tools.never({})', {
      tools: { never: () => new Promise<Answer>(() => {}) },
      limits: { wallMs: 300 },
    })
    expect(failure(outcome)).toEqual({ ok: false, kind: 'timeout', message: 'the program ran out of wall-clock time (300 ms)' })
    expect(ms).toBeGreaterThanOrEqual(295)
    expect(ms).toBeLessThan(2_000)
  })

  it('stack: deep recursion is a catchable RangeError, also when more stack is asked for than the cap', async () => {
    const program = `let depth = 0; function f() { depth++; f() }
      try { f() } catch (error) { return [error.name, depth > 100] }`
    expect((await runProgram(runtime, program)).value).toEqual(['RangeError', true])
    expect((await runProgram(runtime, program, { limits: { stackBytes: 8 * 1024 * 1024 } })).value).toEqual(['RangeError', true])
  })

  it('stack: overflow through native frames (JSON.parse of deep nesting, a recursive replacer) never crashes the host', async () => {
    for (const program of [
      'return JSON.parse("[".repeat(100000) + "]".repeat(100000)).length',
      'function g() { return JSON.stringify({ a: [1] }, (k, v) => (k === "a" ? g() : v)) } return g()',
      'function h(n) { return n === 0 ? 0 : 1 + [n - 1].map(h)[0] } return h(1e6)',
    ]) {
      const { outcome } = await runProgram(runtime, program, { limits: { stackBytes: 1024 * 1024 } })
      expect(failure(outcome).kind).toBe('error')
    }
    // the pool still serves runs
    expect((await runProgram(runtime, 'return 1')).value).toBe(1)
  })

  it('the host event loop stays responsive while a guest spins for 1 s', async () => {
    let last = performance.now()
    let worstLag = 0
    const interval = setInterval(() => {
      const now = performance.now()
      worstLag = Math.max(worstLag, now - last - 10)
      last = now
    }, 10)
    try {
      const { outcome } = await runProgram(runtime, 'while (true) {}', { limits: { cpuMs: 1_000 } })
      expect(failure(outcome).kind).toBe('timeout')
    } finally {
      clearInterval(interval)
    }
    expect(worstLag).toBeLessThan(50)
  })
})

describe('QuickJsRuntime: the end of a run', () => {
  it('abort during a sub-call: aborted, and the late answer is ignored', async () => {
    const controller = new AbortController()
    const gate = deferred<Answer>()
    const bridge = testBridge({
      wait: () => {
        controller.abort()
        return gate.promise
      },
    })
    const { outcome } = await runProgram(runtime, 'await tools.wait({}); await tools.wait({}); return 1', {
      bridge,
      names: { wait: 'wait' },
      signal: controller.signal,
    })
    expect(outcome).toEqual({ ok: false, kind: 'aborted', message: 'the run was aborted' })
    gate.resolve({ value: 1 })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(bridge.calls).toHaveLength(1)
  })

  it('an already aborted signal ends the run before it starts', async () => {
    const { outcome, bridge } = await runProgram(runtime, 'await tools.echo({})', { tools: { echo }, signal: AbortSignal.abort() })
    expect(outcome.ok === false && outcome.kind).toBe('aborted')
    expect(bridge.calls).toEqual([])
  })

  it('once the program returned, its unawaited work never reaches the bridge', async () => {
    const { outcome, bridge } = await runProgram(
      runtime,
      'void (async () => { for (;;) await tools.echo({}) })(); Promise.resolve().then(() => tools.echo({ late: true })); return 1',
      { tools: { echo } },
    )
    expect(outcome).toEqual({ ok: true, valueJson: '1' })
    const count = bridge.calls.length
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(bridge.calls.length).toBe(count)
    expect(count).toBeLessThanOrEqual(2)
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
    const { outcome } = await runProgram(runtime, 'return 1', { limits: { cpuMs: Number.NaN } })
    expect(outcome).toEqual({ ok: false, kind: 'error', message: 'limits.cpuMs must be a positive number' })
  })

  it('close() aborts runs in progress and leaves no worker running', async () => {
    const own = new QuickJsRuntime({ warmWorkers: 1 })
    const baseline = process.getActiveResourcesInfo().filter((name) => name === 'MessagePort').length
    expect((await runProgram(own, 'return 1')).value).toBe(1)
    const spinning = runProgram(own, 'while (true) {}', { limits: { cpuMs: 10_000, wallMs: 10_000 } })
    const waiting = runProgram(own, 'await tools.never({})', { tools: { never: () => new Promise<Answer>(() => {}) } })
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(own.workerCount).toBeGreaterThanOrEqual(2)
    await own.close()
    expect((await spinning).outcome).toMatchObject({ ok: false, kind: 'aborted' })
    expect((await waiting).outcome).toMatchObject({ ok: false, kind: 'aborted' })
    expect(own.workerCount).toBe(0)
    expect(process.getActiveResourcesInfo().filter((name) => name === 'MessagePort').length).toBeLessThanOrEqual(baseline)
    expect((await runProgram(own, 'return 1')).outcome).toEqual({ ok: false, kind: 'aborted', message: 'the code runtime is closed' })
  })

  it('a worker whose run hit the CPU or memory limit serves the next run with a fresh VM', async () => {
    const own = new QuickJsRuntime({ warmWorkers: 1 })
    try {
      await runProgram(own, 'globalThis.leftover = 1; while (true) {}', { limits: { cpuMs: 50 } })
      expect(own.workerCount).toBe(1)
      expect((await runProgram(own, 'return typeof globalThis.leftover')).value).toBe('undefined')
      expect(own.workerCount).toBe(1)
    } finally {
      await own.close()
    }
  })
})

// Escape attempts against QuickJsRuntime: what a hostile program tries, and what the host must never see.
import { afterAll, describe, expect, it } from 'vitest'
import { QuickJsRuntime } from './quickjs-runtime.js'
import { runProgram, type Answer } from './test-bridge.js'

const runtime = new QuickJsRuntime({ warmWorkers: 2 })
afterAll(() => runtime.close())

const echo = (args: unknown): Answer => ({ value: { echoed: args } })
const hostPath = /\/work\/|node_modules|file:|\.ts\b|quickjs-worker|worker_threads/

describe('QuickJsRuntime escape attempts', () => {
  it('no host global is reachable: process, require, fetch, timers, WebAssembly, Atomics, Buffer', async () => {
    const { value } = await runProgram(
      runtime,
      `return ['process', 'require', 'module', 'fetch', 'setTimeout', 'setInterval', 'WebAssembly', 'Atomics', 'Buffer', 'Deno', 'std', 'os', 'print', 'importScripts', 'postMessage']
        .filter((name) => typeof globalThis[name] !== 'undefined')`,
    )
    expect(value).toEqual([])
  })

  it('the global object holds the language, tools and console, nothing named like the host side', async () => {
    const { value } = await runProgram(runtime, 'return Reflect.ownKeys(globalThis).map(String)')
    const names = value as string[]
    expect(names).toContain('tools')
    expect(names).toContain('console')
    expect(names.filter((name) => /host|bridge|call|worker|__/i.test(name))).toEqual([])
  })

  it('constructor chains end in the guest: from tools, a result, an error, Function("return this")', async () => {
    const { value } = await runProgram(
      runtime,
      `const result = await tools.echo({})
       let caught; try { await tools.fail({}) } catch (error) { caught = error }
       const probes = [tools.echo, result, caught, console.log, tools].map((start) => {
         try { return (start.constructor ?? Object).constructor('return typeof process + "/" + typeof require')() } catch (error) { return 'threw ' + error.name }
       })
       probes.push(Function('return this')() === globalThis)
       return probes`,
      { tools: { echo, fail: () => ({ error: { name: 'ToolCallError', code: 'DENIED', message: 'no' } }) } },
    )
    expect(value).toEqual(['undefined/undefined', 'undefined/undefined', 'undefined/undefined', 'undefined/undefined', 'undefined/undefined', true])
  })

  it('modules cannot be loaded: import() rejects, a static import does not parse', async () => {
    const { value } = await runProgram(
      runtime,
      `const results = []
       for (const specifier of ['fs', 'node:fs', 'data:text/javascript,export default 1', 'file:///etc/passwd', './quickjs-worker.js']) {
         try { await import(specifier); results.push('loaded ' + specifier) } catch (error) { results.push(error.name) }
       }
       return results`,
    )
    expect(value).toEqual(['ReferenceError', 'ReferenceError', 'ReferenceError', 'ReferenceError', 'ReferenceError'])
    const { outcome } = await runProgram(runtime, 'import fs from "fs"\nreturn fs')
    expect(outcome).toMatchObject({ ok: false, kind: 'error', name: 'SyntaxError' })
  })

  it('tools has no prototype, is frozen and is not thenable; its functions hold no bridge', async () => {
    const { value } = await runProgram(
      runtime,
      `const awaited = await tools
       return {
         proto: Object.getPrototypeOf(tools) === null,
         frozen: Object.isFrozen(tools),
         then: 'then' in tools,
         awaitedIsTools: awaited === tools,
         keys: Reflect.ownKeys(tools),
         ownOfFunction: Reflect.ownKeys(tools.echo).map(String),
         assign: (() => { 'use strict'; try { tools.echo = 1; return 'assigned' } catch (error) { return error.name } })(),
       }`,
      { tools: { echo } },
    )
    expect(value).toEqual({
      proto: true,
      frozen: true,
      then: false, // oxlint-disable-line unicorn/no-thenable
      awaitedIsTools: true,
      keys: ['echo'],
      ownOfFunction: ['length', 'name'],
      assign: 'TypeError',
    })
  })

  it('registry names like __proto__, constructor and hasOwnProperty are plain entries of tools and reach the bridge by name', async () => {
    const { bridge, value } = await runProgram(
      runtime,
      'return [await tools.__proto__({}), await tools.constructor({}), await tools.hasOwnProperty({})].map((r) => r.echoed)',
      { tools: Object.fromEntries([['__proto__', echo], ['constructor', echo], ['hasOwnProperty', echo]]) },
    )
    expect(bridge.calls.map((call) => call.tool)).toEqual(['__proto__', 'constructor', 'hasOwnProperty'])
    expect(value).toEqual([{}, {}, {}])
  })

  it('a program that tampers with Function.prototype, Reflect and Promise still calls only the tools it was given', async () => {
    const { bridge } = await runProgram(
      runtime,
      `Function.prototype.call = function () { return 'hijacked' }
       Reflect.apply = () => 'hijacked'
       Promise.prototype.then = function (ok, ko) { return 'hijacked' }
       try { await tools.echo({ a: 1 }) } catch {}
       return 1`,
      { tools: { echo } },
    )
    expect(bridge.calls).toEqual([{ tool: 'echo', argsJson: '{"a":1}' }])
  })

  it('__proto__ in arguments and results never reaches the host Object.prototype', async () => {
    const { bridge, value } = await runProgram(
      runtime,
      `const args = JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}')
       Object.prototype.pollutedInGuest = 'yes'
       const result = await tools.echo(args)
       return { result, ownProto: Object.hasOwn(result.echoed, '__proto__') }`,
      { tools: { echo } },
    )
    expect(bridge.calls[0]!.argsJson).toBe('{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}')
    expect(value).toMatchObject({ ownProto: true })
    const probe: Record<string, unknown> = {}
    expect(probe.polluted).toBeUndefined()
    expect(probe.pollutedInGuest).toBeUndefined()
    expect(Object.prototype).not.toHaveProperty('polluted')
  })

  it('no failure message carries a host path or a host stack', async () => {
    const programs = [
      'null.x',
      'throw new Error("x")',
      'while (true) {}',
      'const a = []; while (true) a.push(new Array(1e5).fill(1))',
      'return () => 1',
      'const = 1',
      'function f() { f() } f()',
      'await tools.fail({})',
      'await new Promise(() => {})',
    ]
    for (const program of programs) {
      const { outcome } = await runProgram(runtime, program, {
        tools: { fail: () => ({ error: { name: 'ToolCallError', code: 'TOOL_FAILED', message: 'it failed' } }) },
        limits: { cpuMs: 100 },
      })
      expect(outcome.ok).toBe(false)
      expect(JSON.stringify(outcome)).not.toMatch(hostPath)
    }
  })

  it('an error object the program throws cannot run code in the host: its getters run in the guest, under the budget', async () => {
    const { outcome } = await runProgram(
      runtime,
      `throw { get name() { return 'Evil' }, get message() { return 'from a getter' }, get stack() { return 'program:7' }, toString() { while (true) {} } }`,
      { limits: { cpuMs: 100 } },
    )
    expect(outcome).toEqual({ ok: false, kind: 'error', name: 'Evil', message: 'Evil: from a getter (line 7)' })
  })

  it('unhandled rejections stay in the guest; a throwing microtask callback ends the run as the program failing', async () => {
    const { outcome } = await runProgram(
      runtime,
      `Promise.reject(new Error('nobody listens'))
       new FinalizationRegistry(() => { throw new Error('finalizer') }).register({}, 1)
       await Promise.resolve(); return 'still here'`,
    )
    expect(outcome).toEqual({ ok: true, valueJson: '"still here"' })
    const thrown = await runProgram(runtime, `queueMicrotask(() => { throw new Error('callback') })\nawait Promise.resolve()`)
    expect(thrown.outcome).toEqual({ ok: false, kind: 'error', name: 'Error', message: 'Error: callback (line 1)' })
  })

  it('output floods are cut inside the guest: logs, a huge return value, a huge argument', async () => {
    const { outcome, bridge } = await runProgram(
      runtime,
      `for (let i = 0; i < 1e5; i++) console.error('x'.repeat(1000))
       try { await tools.echo({ s: 'x'.repeat(1e6) }) } catch {}
       return 'y'.repeat(1e6)`,
      { tools: { echo }, limits: { maxLogBytes: 4096, cpuMs: 5_000 } },
    )
    expect(outcome).toMatchObject({ ok: false, kind: 'error', message: expect.stringContaining('over the limit') })
    expect(bridge.calls).toEqual([])
    const total = bridge.logs.slice(0, -1).reduce((sum, { text }) => sum + Buffer.byteLength(text) + 1, 0)
    expect(total).toBeLessThanOrEqual(4096)
    expect(bridge.logs.at(-1)!.text).toMatch(/^… \d+ more log lines dropped/)
  })

  it('eval and Function work inside the guest, and stay there', async () => {
    const { value } = await runProgram(runtime, 'return [eval("typeof process"), new Function("return typeof tools")(), (0, eval)("this") === globalThis]')
    expect(value).toEqual(['undefined', 'object', true])
  })
})

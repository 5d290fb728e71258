// The worker thread of `QuickJsRuntime`: one run at a time, each in a fresh QuickJS VM (a fresh WebAssembly instance
// of the module the host compiled once). Everything the program does happens inside the VM, under its memory limit,
// its stack limit and a CPU budget enforced by the interrupt handler; this file only moves strings between the VM and
// the host, and never reads a guest value that is not a string, a number or a boolean.
import { parentPort, workerData } from 'node:worker_threads'
import { JSException, QuickJS, type Deferred, type JSValueHandle, type QuickJSOptions } from 'quickjs-wasi'
import type { CodeCallOutcome, CodeLimits, CodeOutcome } from '../code-runtime.js'
import { guestPrelude } from './guest-prelude.js'
import type { HostToWorker, LogLevel, WorkerData, WorkerToHost } from './worker-protocol.js'

type RunMessage = Extract<HostToWorker, { type: 'run' }>

const port = parentPort
if (port === null) throw new Error('quickjs-worker runs in a worker thread')
const { wasm } = workerData as WorkerData
const levels: ReadonlySet<string> = new Set<LogLevel>(['log', 'info', 'warn', 'error', 'debug'])
const programLine = /program:(\d+)/

function send(message: WorkerToHost): void {
  port!.postMessage(message)
}

function isOutOfMemory(error: unknown): boolean {
  return error instanceof JSException && error.name === 'InternalError' && error.message === 'out of memory'
}

function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8')
  let end = Math.max(0, maxBytes)
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--
  return bytes.subarray(0, end).toString('utf8')
}

interface RunEnd {
  readonly outcome: CodeOutcome
  readonly reusable: boolean
}

class GuestRun {
  readonly runId: number
  readonly #limits: CodeLimits
  #vm: QuickJS | undefined
  #parse: JSValueHandle | undefined
  #makeError: JSValueHandle | undefined
  #droppedLogs: JSValueHandle | undefined
  #cpuUsed = 0
  #sliceStart = -1
  #interrupted = false
  #end: RunEnd | undefined
  #finished = false
  readonly #pending = new Map<number, Deferred>()
  #nextCallId = 1
  #logLeft: number
  #logDropped = 0
  // Handles returned to the guest from host functions: the trampoline keeps its own reference, ours go after the slice.
  #scratch: JSValueHandle[] = []

  constructor(message: RunMessage) {
    this.runId = message.runId
    this.#limits = message.limits
    this.#logLeft = message.limits.maxLogBytes
  }

  async start(message: RunMessage): Promise<void> {
    const limits = this.#limits
    try {
      this.#vm = await QuickJS.create({
        wasm: wasm as QuickJSOptions['wasm'],
        memoryLimit: limits.memoryBytes,
        maxStackSize: limits.stackBytes,
        interruptHandler: () => this.#interrupt(),
      })
    } catch {
      this.#end = { outcome: failed('error', 'the code runtime could not start a VM'), reusable: false }
      this.#finish()
      return
    }
    const vm = this.#vm
    const config = JSON.stringify({
      tools: message.tools,
      maxArgBytes: limits.maxArgBytes,
      maxLogBytes: limits.maxLogBytes,
      maxValueBytes: limits.maxValueBytes,
    })
    this.#enter(() => {
      const hostCall = this.#keep(vm.newFunction('hostCall', (tool, json) => this.#call(tool, json)))
      const hostLog = this.#keep(vm.newFunction('hostLog', (level, line) => this.#log(level, line)))
      const hostEnd = this.#keep(vm.newFunction('hostEnd', (...args) => this.#hostEnd(args)))
      const setup = this.#keep(vm.evalCode(guestPrelude, 'prelude'))
      const api = this.#keep(vm.callFunction(setup, vm.undefined, hostCall, hostLog, hostEnd, this.#keep(vm.newString(config))))
      this.#parse = api.getProp('parse')
      this.#makeError = api.getProp('makeError')
      this.#droppedLogs = api.getProp('droppedLogs')
      const start = this.#keep(api.getProp('start'))
      // The program shares the wrapper's first line, so the guest's line numbers are the program's.
      const program = this.#keep(vm.evalCode(`(async function () {${message.program}\n})`, 'program'))
      vm.callFunction(start, vm.undefined, program).dispose()
    })
  }

  /** A sub-call's outcome from the host: settles the guest's promise, then runs what it unblocked. */
  settle(callId: number, outcome: CodeCallOutcome): void {
    const deferred = this.#pending.get(callId)
    if (deferred === undefined || this.#end !== undefined) return
    this.#pending.delete(callId)
    const vm = this.#vm!
    if (outcome.ok && typeof outcome.json === 'string' && outcome.json.length > this.#limits.memoryBytes) {
      this.#end = {
        outcome: failed('memory', `a tool result of ${outcome.json.length} characters does not fit in the program's memory (${this.#limits.memoryBytes} bytes)`),
        reusable: true,
      }
      this.#finish()
      return
    }
    this.#enter(() => {
      let value: JSValueHandle | undefined
      if (outcome.ok && typeof outcome.json === 'string') {
        try {
          value = vm.callFunction(this.#parse!, vm.undefined, this.#keep(vm.newString(outcome.json)))
        } catch (error) {
          if (this.#interrupted || isOutOfMemory(error)) throw error
        }
      }
      if (value !== undefined) {
        deferred.resolve(this.#keep(value))
      } else {
        const error = outcome.ok
          ? { name: 'Error', code: 'NON_JSON_VALUE', message: 'the tool result is not JSON' }
          : outcome.error
        deferred.reject(this.#keep(this.#newError(error.name, error.code, error.message)))
      }
      deferred.handle.dispose()
    })
  }

  #newError(name: unknown, code: unknown, message: unknown): JSValueHandle {
    const vm = this.#vm!
    const text = (value: unknown, max: number): JSValueHandle =>
      this.#keep(vm.newString(typeof value === 'string' ? value.slice(0, max) : ''))
    return vm.callFunction(this.#makeError!, vm.undefined, text(name, 200), text(code, 200), text(message, 8000))
  }

  #keep(handle: JSValueHandle): JSValueHandle {
    this.#scratch.push(handle)
    return handle
  }

  #interrupt(): boolean {
    if (this.#sliceStart < 0) return false
    // Once the run is over, nothing more of the program runs (unawaited work, queued jobs).
    if (this.#end !== undefined) return true
    if (this.#cpuUsed + (performance.now() - this.#sliceStart) <= this.#limits.cpuMs) return false
    this.#interrupted = true
    return true
  }

  /** Runs guest code (one slice of CPU time), then every job it queued; settles the run when it ended. */
  #enter(slice: () => void): void {
    const vm = this.#vm!
    this.#sliceStart = performance.now()
    try {
      slice()
      if (this.#end === undefined) vm.executePendingJobs()
    } catch (error) {
      if (this.#end === undefined) this.#end = this.#failure(error)
    } finally {
      this.#cpuUsed += performance.now() - this.#sliceStart
      this.#sliceStart = -1
      for (const handle of this.#scratch) handle.dispose()
      this.#scratch = []
    }
    if (this.#end === undefined && this.#pending.size === 0) {
      // No job is queued and no sub-call is in flight, and the guest has no timers: nothing can ever wake it.
      this.#end = {
        outcome: failed('error', 'the program is waiting for a promise that nothing can settle (no sub-call is in flight)'),
        reusable: true,
      }
    }
    if (this.#end !== undefined) this.#finish()
  }

  #failure(error: unknown): RunEnd {
    if (this.#interrupted) {
      return { outcome: failed('timeout', `the program used up its CPU time (${this.#limits.cpuMs} ms)`), reusable: true }
    }
    if (isOutOfMemory(error)) {
      return { outcome: failed('memory', `the program ran out of memory (${this.#limits.memoryBytes} bytes)`), reusable: true }
    }
    if (error instanceof JSException) {
      // An exception of the engine outside the program's promise: a syntax error, mostly. Its fields were read
      // (inside this slice, under the CPU budget) when quickjs-wasi built the JSException.
      const name = error.name.slice(0, 200)
      const line = programLine.exec(error.stack ?? '')?.[1]
      const message = `${name}: ${error.message.slice(0, 4000)}${line === undefined ? '' : ` (line ${line})`}`
      return { outcome: { ok: false, kind: 'error', message, name }, reusable: true }
    }
    const message =
      error instanceof RangeError
        ? "the program overflowed the engine's stack"
        : 'the code runtime failed while running the program'
    return { outcome: failed('error', message), reusable: false }
  }

  #call(toolHandle: JSValueHandle | undefined, jsonHandle: JSValueHandle | undefined): JSValueHandle {
    const vm = this.#vm!
    if (this.#end !== undefined) return this.#keep(vm.newString('the run is over'))
    if (toolHandle?.isString !== true || jsonHandle?.isString !== true) {
      return this.#keep(vm.newString('a sub-call needs a tool name and JSON text'))
    }
    const tool = toolHandle.toString()
    const argsJson = jsonHandle.toString()
    if (Buffer.byteLength(argsJson, 'utf8') > this.#limits.maxArgBytes) {
      return this.#keep(vm.newString(`the argument is over the limit of ${this.#limits.maxArgBytes} bytes of JSON`))
    }
    const callId = this.#nextCallId++
    const deferred = vm.newPromise()
    this.#pending.set(callId, deferred)
    send({ type: 'call', runId: this.runId, callId, tool, argsJson })
    return deferred.handle
  }

  #log(levelHandle: JSValueHandle | undefined, lineHandle: JSValueHandle | undefined): JSValueHandle {
    const vm = this.#vm!
    if (this.#end === undefined && levelHandle?.isString === true) {
      const level = levelHandle.toString()
      if (lineHandle?.isString !== true || this.#logLeft <= 0 || !levels.has(level)) {
        this.#logDropped++
      } else {
        let text = lineHandle.toString()
        const bytes = Buffer.byteLength(text, 'utf8') + 1
        if (bytes > this.#logLeft) {
          text = `${truncateUtf8(text, this.#logLeft - 4)}…`
          this.#logLeft = 0
        } else {
          this.#logLeft -= bytes
        }
        send({ type: 'log', runId: this.runId, level: level as LogLevel, text })
      }
    }
    return this.#keep(vm.newNumber(this.#logLeft))
  }

  #hostEnd(args: JSValueHandle[]): JSValueHandle {
    const vm = this.#vm!
    if (this.#end !== undefined) return vm.undefined
    const text = (index: number): string | undefined => {
      const handle = args[index]
      return handle?.isString === true ? handle.toString() : undefined
    }
    if (args[0]?.isBool === true && args[0].toBoolean()) {
      const valueJson = text(1)
      if (valueJson !== undefined && Buffer.byteLength(valueJson, 'utf8') > this.#limits.maxValueBytes) {
        this.#end = {
          outcome: failed('error', `the returned value is over the limit of ${this.#limits.maxValueBytes} bytes of JSON`),
          reusable: true,
        }
      } else {
        this.#end = { outcome: { ok: true, valueJson }, reusable: true }
      }
      return vm.undefined
    }
    const name = text(1)
    const code = text(2)
    const message = text(3) ?? ''
    const line = text(4)
    const refusedValue = text(5) === 'value'
    const composed = refusedValue || name === undefined ? message : `${name}: ${message}`
    const outcome: CodeOutcome = {
      ok: false,
      kind: 'error',
      message: line === undefined ? composed : `${composed} (line ${line})`,
      ...(refusedValue || name === undefined ? {} : { name }),
      ...(refusedValue || code === undefined ? {} : { code }),
    }
    this.#end = { outcome, reusable: true }
    return vm.undefined
  }

  /** The lines the guest dropped without calling the host: read from its own counter (a closure of the prelude). */
  #guestDroppedLogs(): number {
    const vm = this.#vm
    if (vm === undefined || this.#droppedLogs === undefined) return 0
    try {
      const count = vm.callFunction(this.#droppedLogs, vm.undefined)
      const value = count.isNumber ? count.toNumber() : 0
      count.dispose()
      return Number.isSafeInteger(value) && value > 0 ? value : 0
    } catch {
      return 0
    }
  }

  #finish(): void {
    if (this.#finished) return
    this.#finished = true
    const end = this.#end!
    this.#logDropped += this.#guestDroppedLogs()
    if (this.#logDropped > 0) {
      const text = `… ${this.#logDropped} more log line${this.#logDropped === 1 ? '' : 's'} dropped: the program's logs are limited to ${this.#limits.maxLogBytes} bytes`
      send({ type: 'log', runId: this.runId, level: 'warn', text })
    }
    this.#pending.clear()
    this.#vm?.dispose()
    this.#vm = undefined
    current = undefined
    send({ type: 'done', runId: this.runId, outcome: end.outcome, reusable: end.reusable })
  }
}

function failed(kind: 'error' | 'timeout' | 'memory', message: string): CodeOutcome {
  return { ok: false, kind, message }
}

let current: GuestRun | undefined

port.on('message', (message: HostToWorker) => {
  if (message.type === 'run') {
    if (current !== undefined) return
    current = new GuestRun(message)
    void current.start(message)
  } else if (message.type === 'settle' && current?.runId === message.runId) {
    current.settle(message.callId, message.outcome)
  }
})
send({ type: 'ready' })

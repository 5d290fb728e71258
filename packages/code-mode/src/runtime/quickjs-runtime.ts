import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import type { CodeCallOutcome, CodeLimits, CodeOutcome, CodeRunRequest, CodeRuntime } from '../code-runtime.js'
import type { CompiledWasm, HostToWorker, WorkerData, WorkerToHost } from './worker-protocol.js'
import { checkCallOutcome, checkLimits } from '../runtime-checks.js'

const { compile: compileWasm } = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<CompiledWasm> } })
  .WebAssembly

/** The largest stack a program gets, whatever `limits.stackBytes` asks: beyond it, QuickJS's WASM build may abort. */
export const QUICKJS_MAX_STACK_BYTES = 256 * 1024

/** Options of {@link QuickJsRuntime}. */
export interface QuickJsRuntimeOptions {
  /**
   * Idle workers kept for the next runs (default 1). A run takes an idle worker when there is one, else starts one; a
   * worker whose run ended inside it (returned, threw, CPU or memory limit) goes back to the pool, one that had to be
   * terminated (wall-clock limit, abort, a fault) never does. Each run gets a fresh VM either way. `0`: a new worker
   * for every run.
   */
  readonly warmWorkers?: number
  /** How long an idle worker is kept, in ms (default 30 s). Idle workers never keep the process alive. */
  readonly idleWorkerMs?: number
}

interface PooledWorker {
  readonly worker: Worker
  /** The run it serves, if any: gets its messages and its failure. */
  run: WorkerRun | undefined
  idleTimer: NodeJS.Timeout | undefined
}

type Settle = (outcome: CodeOutcome, recycle: boolean) => void

function aborted(message = 'the run was aborted'): CodeOutcome {
  return { ok: false, kind: 'aborted', message }
}

/** Where the worker's code is: the built file beside the bundle, or the TypeScript source under a loader in tests. */
function workerEntry(): { url: URL; execArgv: string[] } {
  if (import.meta.url.endsWith('.ts')) {
    return {
      url: new URL('./quickjs-worker.ts', import.meta.url),
      execArgv: ['--import', new URL('./source-loader.mjs', import.meta.url).href],
    }
  }
  return { url: new URL('./quickjs-worker.js', import.meta.url), execArgv: [] }
}

/** One run on the host side: its worker, its wall-clock watchdog, its signal. */
class WorkerRun {
  readonly request: CodeRunRequest
  readonly runId: number
  #settle: Settle
  #settled = false
  #worker: PooledWorker | undefined
  #timer: NodeJS.Timeout | undefined
  readonly #onAbort = (): void => this.end(aborted(), false)

  constructor(request: CodeRunRequest, runId: number, settle: Settle) {
    this.request = request
    this.runId = runId
    this.#settle = settle
    request.signal.addEventListener('abort', this.#onAbort, { once: true })
    this.#timer = setTimeout(
      () => this.end({ ok: false, kind: 'timeout', message: `the program ran out of wall-clock time (${request.limits.wallMs} ms)` }, false),
      request.limits.wallMs,
    )
  }

  get settled(): boolean {
    return this.#settled
  }

  attach(pooled: PooledWorker, limits: CodeLimits): void {
    this.#worker = pooled
    pooled.run = this
    const { program, tools } = this.request
    this.#post({ type: 'run', runId: this.runId, program, tools: tools.map(({ identifier, tool }) => ({ identifier, tool })), limits })
  }

  /** A message of the worker serving this run. */
  receive(message: WorkerToHost): void {
    if (this.#settled || !('runId' in message) || message.runId !== this.runId) return
    if (message.type === 'call') {
      this.#call(message.callId, message.tool, message.argsJson)
    } else if (message.type === 'log') {
      try {
        this.request.bridge.log(message.level, message.text)
      } catch {
        // The host's log sink failing is not the program's failure.
      }
    } else if (message.type === 'done') {
      this.end(message.outcome, message.reusable)
    }
  }

  #call(callId: number, tool: string, argsJson: string): void {
    let pending: Promise<CodeCallOutcome>
    try {
      pending = Promise.resolve(this.request.bridge.call(String(tool), String(argsJson)))
    } catch (error) {
      pending = Promise.reject(error)
    }
    pending.then(
      (outcome) => this.#post({ type: 'settle', runId: this.runId, callId, outcome: checkCallOutcome(outcome) }),
      () => this.#post({ type: 'settle', runId: this.runId, callId, outcome: checkCallOutcome(undefined) }),
    )
  }

  #post(message: HostToWorker): void {
    if (this.#settled || this.#worker === undefined) return
    this.#worker.worker.postMessage(message)
  }

  /** Ends the run once: `recycle` when the worker finished it cleanly and can serve another. */
  end(outcome: CodeOutcome, recycle: boolean): void {
    if (this.#settled) return
    this.#settled = true
    clearTimeout(this.#timer)
    this.request.signal.removeEventListener('abort', this.#onAbort)
    const worker = this.#worker
    if (worker !== undefined) worker.run = undefined
    this.#settle(outcome, recycle)
  }

  /** The worker this run holds, if any (for the pool once the run ended). */
  get worker(): PooledWorker | undefined {
    return this.#worker
  }
}

/**
 * The default {@link CodeRuntime}: QuickJS (QuickJS-ng compiled to WASI, `quickjs-wasi`) in a worker thread. The
 * WebAssembly module is compiled once and shared with the workers; each run gets a fresh VM with the run's memory
 * limit, a stack limit (at most {@link QUICKJS_MAX_STACK_BYTES}) and a CPU budget enforced by the engine's interrupt
 * handler (time spent running the program; waiting for sub-calls does not count), while the host's wall-clock
 * watchdog and the run's signal terminate the worker. A program spinning never blocks the host's event loop.
 *
 * The program sees `tools` and `console` and the language's own built-ins; nothing of the host. Arguments, results,
 * errors and logs cross as strings made inside the VM by a strict encoder.
 */
export class QuickJsRuntime implements CodeRuntime {
  readonly name = 'quickjs'
  readonly #warmWorkers: number
  readonly #idleWorkerMs: number
  #module: Promise<CompiledWasm> | undefined
  readonly #idle: PooledWorker[] = []
  readonly #runs = new Set<WorkerRun>()
  readonly #workers = new Set<PooledWorker>()
  readonly #exits = new Set<Promise<unknown>>()
  #nextRunId = 1
  #closed = false

  constructor(options: QuickJsRuntimeOptions = {}) {
    this.#warmWorkers = Math.max(0, Math.floor(options.warmWorkers ?? 1))
    this.#idleWorkerMs = Math.max(0, options.idleWorkerMs ?? 30_000)
  }

  /** Workers alive now (running or idle). */
  get workerCount(): number {
    return this.#workers.size
  }

  run(request: CodeRunRequest): Promise<CodeOutcome> {
    return new Promise<CodeOutcome>((resolve) => {
      if (this.#closed) return resolve(aborted('the code runtime is closed'))
      const invalid = checkLimits(request?.limits)
      if (invalid !== undefined) return resolve({ ok: false, kind: 'error', message: invalid })
      if (request.signal.aborted) return resolve(aborted())
      const limits: CodeLimits = {
        ...request.limits,
        stackBytes: Math.min(Math.floor(request.limits.stackBytes), QUICKJS_MAX_STACK_BYTES),
      }
      const run = new WorkerRun(request, this.#nextRunId++, (outcome, recycle) => {
        this.#runs.delete(run)
        const worker = run.worker
        if (worker !== undefined) {
          if (recycle) this.#release(worker)
          else this.#terminate(worker)
        }
        resolve(outcome)
      })
      this.#runs.add(run)
      this.#acquire().then(
        (worker) => {
          if (run.settled) return this.#release(worker)
          worker.worker.ref()
          run.attach(worker, limits)
        },
        () => run.end({ ok: false, kind: 'error', message: 'the code runtime could not start a worker' }, false),
      )
    })
  }

  async close(): Promise<void> {
    this.#closed = true
    // Deleting the entry being visited is safe while iterating a Set.
    for (const run of this.#runs) run.end(aborted('the code runtime was closed'), false)
    for (const worker of this.#workers) this.#terminate(worker)
    await Promise.allSettled(this.#exits)
  }

  #compile(): Promise<CompiledWasm> {
    this.#module ??= (async () => {
      const path = createRequire(import.meta.url).resolve('quickjs-wasi/quickjs.wasm')
      return compileWasm(await readFile(path))
    })()
    return this.#module
  }

  async #acquire(): Promise<PooledWorker> {
    const idle = this.#idle.pop()
    if (idle !== undefined) {
      clearTimeout(idle.idleTimer)
      idle.idleTimer = undefined
      return idle
    }
    const wasm = await this.#compile()
    if (this.#closed) throw new Error('closed')
    const { url, execArgv } = workerEntry()
    const data: WorkerData = { wasm }
    // resourceLimits bound the worker's own JS heap (strings in transit); the program's memory is the VM's limit.
    const worker = new Worker(url, { workerData: data, execArgv, resourceLimits: { maxOldGenerationSizeMb: 256 } })
    const pooled: PooledWorker = { worker, run: undefined, idleTimer: undefined }
    this.#workers.add(pooled)
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
    this.#exits.add(exited)
    void exited.then(() => this.#exits.delete(exited))
    return new Promise<PooledWorker>((resolve, reject) => {
      let ready = false
      worker.on('message', (message: WorkerToHost) => {
        if (message?.type === 'ready' && !ready) {
          ready = true
          resolve(pooled)
        } else {
          pooled.run?.receive(message)
        }
      })
      worker.on('error', (error: Error & { code?: string }) => {
        const memory = error?.code === 'ERR_WORKER_OUT_OF_MEMORY'
        pooled.run?.end(
          memory
            ? { ok: false, kind: 'memory', message: "the code runtime's worker ran out of memory" }
            : { ok: false, kind: 'error', message: "the code runtime's worker failed" },
          false,
        )
        this.#terminate(pooled)
        if (!ready) reject(new Error('the worker failed to start'))
      })
      worker.once('exit', () => {
        this.#forget(pooled)
        pooled.run?.end({ ok: false, kind: 'error', message: "the code runtime's worker stopped" }, false)
        if (!ready) reject(new Error('the worker stopped before it was ready'))
      })
    })
  }

  #release(pooled: PooledWorker): void {
    if (this.#closed || this.#idle.length >= this.#warmWorkers || !this.#workers.has(pooled)) {
      this.#terminate(pooled)
      return
    }
    pooled.worker.unref()
    pooled.idleTimer = setTimeout(() => this.#terminate(pooled), this.#idleWorkerMs)
    pooled.idleTimer.unref()
    this.#idle.push(pooled)
  }

  #forget(pooled: PooledWorker): void {
    clearTimeout(pooled.idleTimer)
    pooled.idleTimer = undefined
    this.#workers.delete(pooled)
    const index = this.#idle.indexOf(pooled)
    if (index >= 0) this.#idle.splice(index, 1)
  }

  #terminate(pooled: PooledWorker): void {
    this.#forget(pooled)
    pooled.worker.terminate().catch(() => {})
  }
}

// executeStep: one model step's calls through the pipeline, batched by execution mode, answered in model order.
import type { Agent, ToolExecutionInput, ToolExecutionResult, ToolExecutionToken } from '@dsh/tools-core'
import { describeThrown, isThenable, quote } from './describe-value.js'
import type { ExecutionPipeline } from './pipeline.js'
import { aborted, HARNESS_FAULT, materialize, toolFailed } from './results.js'
import { listenForAbort, signalAborted, signalReason } from '@dsh/tools-core'
import { readStepCalls, readStepOptions, type StepEntry, type StepSettings } from './step-input.js'
import type { StepBatch, StepContext, ToolStepResult } from './step-types.js'
import type { ToolCatalog } from './tool-catalog.js'
import { ToolAbortedError } from './tool-aborted-error.js'

/** What the step runner needs of the registry. */
export interface StepHost {
  readonly catalog: ToolCatalog
  readonly pipeline: ExecutionPipeline
  /** Reports a step observer (`onBatch`, `onResult`) that threw. Never throws. */
  warn(message: string, cause?: unknown): void
}

/** Runs one step; `forcedAgent` is a scope's agent. Throws synchronously for bad options; never rejects. */
export type StepRunner = (calls: unknown, options: unknown, forcedAgent?: Agent) => Promise<ToolStepResult>

/** Why the step stopped starting calls. */
type Stop = { readonly by: 'caller' } | { readonly by: 'failure'; readonly callId: string; readonly name: string }

/** The batches: a maximal run of consecutive parallel calls is one; every serial call is one of its own. */
function planBatches(entries: readonly StepEntry[], host: StepHost, agent: Agent | undefined): StepBatch[] {
  const plan: { mode: StepBatch['mode']; calls: number[]; callIds: string[] }[] = []
  for (const [index, entry] of entries.entries()) {
    if (entry.kind === 'answered') continue
    const name = entry.kind === 'run' ? entry.name : undefined
    const mode = typeof name === 'string' ? (host.catalog.resolve(name, agent)?.mode ?? 'serial') : 'serial'
    const callId = entry.kind === 'run' && typeof entry.callId === 'string' ? entry.callId : ''
    const last = plan.at(-1)
    if (mode === 'parallel' && last?.mode === 'parallel') {
      last.calls.push(index)
      last.callIds.push(callId)
    } else plan.push({ mode, calls: [index], callIds: [callId] })
  }
  return plan.map((batch) => Object.freeze({ mode: batch.mode, calls: Object.freeze(batch.calls), callIds: Object.freeze(batch.callIds) }))
}

/** The registry's step runner. */
export function createStepRunner(host: StepHost): StepRunner {
  return (calls, options, forcedAgent) => {
    const settings = readStepOptions(options, forcedAgent)
    const entries = readStepCalls(calls, settings)
    return new Step(host, settings, entries).run()
  }
}

class Step {
  private readonly results: (ToolExecutionResult | undefined)[]
  private reported = 0
  private stop: Stop | undefined
  /** With `failFast`: the signal the calls run under, fired by the caller's signal or by a failure. */
  private readonly controller: AbortController | undefined
  private readonly batches: StepBatch[]

  constructor(
    private readonly host: StepHost,
    private readonly settings: StepSettings,
    private readonly entries: readonly StepEntry[],
  ) {
    this.results = entries.map(() => undefined)
    this.controller = settings.failFast ? new AbortController() : undefined
    this.batches = planBatches(entries, host, settings.agent)
  }

  async run(): Promise<ToolStepResult> {
    const { signal } = this.settings
    let unlisten: (() => void) | undefined
    if (this.controller !== undefined && signal !== undefined) {
      const controller = this.controller
      const follow = (): void => {
        if (!controller.signal.aborted) controller.abort(signalReason(signal))
      }
      if (signalAborted(signal)) follow()
      else {
        try {
          unlisten = listenForAbort(signal, follow)
        } catch {
          // A signal that refuses a listener cannot cancel the step; checked before each call start all the same.
        }
      }
    }
    try {
      for (const [index, entry] of this.entries.entries()) if (entry.kind === 'answered') this.answer(index, entry.result, '')
      for (const batch of this.batches) await this.runBatch(batch)
    } catch (error) {
      // Unreachable unless the runtime misbehaves: every call is answered, and executeStep never rejects.
      this.host.warn('the tool registry failed while running a step', error)
    } finally {
      unlisten?.()
    }
    const results = this.results.map(
      (result, index) =>
        result ?? materialize(toolFailed(this.callIdOf(index), `The call was not answered: the tool registry failed while running the step. ${HARNESS_FAULT}`)),
    )
    return Object.freeze({
      results: Object.freeze(results),
      additionalContext: Object.freeze(collectContext(results)),
      batches: Object.freeze(this.batches),
    })
  }

  private async runBatch(batch: StepBatch): Promise<void> {
    this.observe('onBatch', () => this.settings.onBatch?.(batch))
    const width = Math.min(this.settings.concurrency, batch.calls.length)
    let next = 0
    const worker = async (): Promise<void> => {
      while (next < batch.calls.length) {
        const index = batch.calls[next++]!
        await this.runCall(index)
      }
    }
    const workers: Promise<void>[] = []
    for (let count = 0; count < width; count++) workers.push(worker())
    await Promise.all(workers)
  }

  private async runCall(index: number): Promise<void> {
    const entry = this.entries[index]!
    const name = entry.kind === 'run' && typeof entry.name === 'string' ? entry.name : ''
    const stop = this.stopped()
    if (stop !== undefined) {
      this.answer(index, materialize(aborted(this.callIdOf(index), 'ABORTED_BEFORE_DISPATCH', cancelledText(name, stop))), name)
      return
    }
    let result: ToolExecutionResult
    try {
      result = await this.host.pipeline.run(this.inputOf(entry), this.settings.agent)
    } catch (error) {
      // The pipeline never rejects; should it, the call still gets exactly one answer.
      result = materialize(toolFailed(this.callIdOf(index), `The call failed inside the tool registry (${describeThrown(error)}). ${HARNESS_FAULT}`))
    }
    this.answer(index, result, name)
  }

  /** The input the pipeline gets: the fields read once at the start, the step's signal, no agent (it is forced). */
  private inputOf(entry: StepEntry): ToolExecutionInput {
    if (entry.kind === 'raw') return entry.value as ToolExecutionInput
    if (entry.kind === 'answered') throw new TypeError('an answered call does not run')
    const signal = this.controller?.signal ?? this.settings.signal
    const input: Record<string, unknown> = { callId: entry.callId, name: entry.name, arguments: entry.arguments }
    if (entry.parent !== undefined) input['parent'] = entry.parent as ToolExecutionToken
    if (signal !== undefined) input['signal'] = signal
    return input as unknown as ToolExecutionInput
  }

  /** Why calls are no longer started, if they are not. */
  private stopped(): Stop | undefined {
    if (this.stop !== undefined) return this.stop
    const { signal } = this.settings
    if (signal !== undefined && signalAborted(signal)) this.stop = { by: 'caller' }
    return this.stop
  }

  private answer(index: number, result: ToolExecutionResult, name: string): void {
    this.results[index] = result
    if (result.isError && this.settings.failFast && this.stopped() === undefined) {
      this.stop = { by: 'failure', callId: result.callId, name }
      const reason = new ToolAbortedError('ABORTED', `Cancelled: call ${quote(result.callId)} of the step failed, and the step stops at its first failure.`)
      this.controller?.abort(reason)
    }
    while (this.reported < this.results.length) {
      const ready = this.results[this.reported]
      if (ready === undefined) break
      const at = this.reported++
      this.observe('onResult', () => this.settings.onResult?.(ready, at))
    }
  }

  private callIdOf(index: number): string {
    const entry = this.entries[index]!
    if (entry.kind === 'run') return typeof entry.callId === 'string' ? entry.callId : ''
    return entry.kind === 'answered' ? entry.result.callId : ''
  }

  /**
   * Calls an observer. A throw is logged; so is the rejection of a promise it returns (an `async` observer), which
   * the step does not wait for: it is observed, never left unhandled.
   */
  private observe(which: string, call: () => unknown): void {
    const warn = this.host.warn
    try {
      const returned = call()
      if (isThenable(returned)) {
        Promise.resolve(returned).then(undefined, (error: unknown) => warn(`an async executeStep ${which} observer rejected; the step went on`, error))
      }
    } catch (error) {
      warn(`an executeStep ${which} observer threw; the step went on`, error)
    }
  }
}

function cancelledText(name: string, stop: Stop): string {
  const call = name === '' ? 'The call' : `The call to ${quote(name)}`
  if (stop.by === 'caller') return `${call} was cancelled before it ran; nothing was executed.`
  const failed = stop.name === '' ? quote(stop.callId) : `${quote(stop.callId)} (${quote(stop.name)})`
  return `${call} was not run: call ${failed} failed earlier in this step, and the step stops at its first failure; nothing was executed.`
}

function collectContext(results: readonly ToolExecutionResult[]): StepContext[] {
  const context: StepContext[] = []
  for (const result of results) {
    const attached = result.additionalContext
    if (attached === undefined) continue
    const entry: StepContext =
      attached.source === undefined
        ? { callId: result.callId, content: attached.content }
        : { callId: result.callId, content: attached.content, source: attached.source }
    context.push(Object.freeze(entry))
  }
  return context
}

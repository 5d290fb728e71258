import {
  type Agent,
  type ContentBlock,
  type HookContext,
  type PostToolDecision,
  type PreToolDecision,
  type ToolApprovalService,
  type ToolExecutionInput,
  type ToolExecutionResult,
} from '@dsh/tools-core'
import type { Hook } from 'cordis'
import { createBrand } from './brand.js'
import { ABANDONED, ABORTED, CallAbort, withGrace } from './call-abort.js'
import { start, type Started } from './call-input.js'
import { askApproval } from './approval-stage.js'
import { readExecuteOptions, type ToolCallApprover } from './execute-options.js'
import { checkArguments } from './argument-stage.js'
import { DecisionChain, type ChainFailure } from './decision-chain.js'
import { ACCEPT, ALLOW, readPostDecision, readPreDecision } from './decisions.js'
import { describeThrown, isThenable, quote } from './describe-value.js'
import { checkGuards } from './guard-stage.js'
import { PipelineExecution } from './execution.js'
import type { HookTable } from './hook-table.js'
import { readOwn } from './own-field.js'
import {
  aborted,
  blocked,
  bodyResult,
  denied,
  HARNESS_FAULT,
  invalidDecision,
  reviewedResult,
  invalidResult,
  abandoned,
  materialize,
  notFound,
  readResult,
  textContent,
  thrownResult,
  invalidCall,
  toolFailed,
} from './results.js'
import type { ToolCatalog } from './tool-catalog.js'
import type { ToolRecord } from './tool-record.js'

/** What the pipeline needs from its surroundings. */
export interface PipelineHost {
  readonly catalog: ToolCatalog
  readonly hooks: HookTable
  /** The approval service, looked up at each `ask`; `undefined` when none is provided. */
  approvalService(): ToolApprovalService | undefined
  /** Reports a misbehaving hook, observer or service to developers (the result already tells the model). Never throws. */
  warn(message: string, cause?: unknown): void
  /**
   * How long, after the caller's signal fired, the dispatch (wrappers and body) may still take to settle before the
   * call is abandoned (`ABORTED`, saying it may still be running).
   */
  readonly abortGraceMs: number
}
const maxListedTools = 50

/** What `next()` resolves to for outer listeners once a decision chain has failed. */
const REFUSE: PreToolDecision = Object.freeze({ kind: 'deny', reason: 'a tools/pre-execute listener failed to decide' })
const REFUSE_RESULT: PostToolDecision = Object.freeze({
  kind: 'block',
  feedback: textContent('a tools/post-execute listener failed to decide'),
})

function describeFailure(event: string, chainFailure: ChainFailure): string {
  return `a ${event} listener of plugin ${quote(chainFailure.plugin)} ${chainFailure.problem}`
}

/** What the pre-execute waterfall decided, once read: proceed, ask a person (with the reason), or the denial. */
type PreOutcome = { readonly kind: 'allow' } | { readonly kind: 'ask'; readonly reason: string | undefined } | ToolExecutionResult

const PROCEED: PreOutcome = Object.freeze({ kind: 'allow' })

/**
 * The execution pipeline: input and arguments → resolution → argument validation (tools with a validation hook)
 * → `tools/pre-execute` → guards → for `ask`, approval and the guards once more → `tools/execute` wrappers → body
 * → `tools/post-execute` → materialized result → `tools/result`. Nobody is asked about a call that cannot run: an
 * unknown tool, arguments that do not validate and a guard's denial all come before any approval request. A stage
 * without listeners costs a property lookup; failures are built as data, so a denial costs no more than a success.
 */
export class ExecutionPipeline {
  /**
   * Results already checked at some wrapper level (they are fresh objects the pipeline built), so a wrapper that
   * passes one through is not read again. The final materialization checks every result regardless.
   */
  private readonly checked = createBrand()

  constructor(private readonly host: PipelineHost) {}

  /** Reports an exception of a listener of a call's signal (see {@link CallAbort}). */
  private readonly reportListener = (error: unknown): void => {
    this.host.warn('an abort listener of a tool call threw', error)
  }

  /** Runs one call (`options`: the caller's `ToolExecuteOptions`, unchecked). Never rejects. */
  async run(input: ToolExecutionInput, forcedAgent?: Agent, options?: unknown): Promise<ToolExecutionResult> {
    let started: Started
    try {
      started = start(input, forcedAgent, this.reportListener)
    } catch (error) {
      // Unreachable unless the runtime itself misbehaves (every read above is guarded); execute() never rejects.
      const exec = new PipelineExecution('', '', undefined, undefined, undefined, new CallAbort(undefined, this.reportListener))
      started = { exec, failed: invalidCall('', `The tool call could not be read: ${describeThrown(error)}`) }
    }
    const { exec } = started
    let draft = started.failed
    let approver: ToolCallApprover | undefined
    if (draft === undefined && options !== undefined) {
      const read = readExecuteOptions(options)
      if (typeof read === 'string') draft = invalidCall(exec.callId, `The tool call is malformed: ${read}.`)
      else approver = read.approval
    }
    if (draft === undefined) {
      try {
        draft = await this.process(exec, approver)
      } catch (error) {
        this.host.warn(`the tool registry failed while running ${quote(exec.name)}`, error)
        draft = toolFailed(
          exec.callId,
          `The call to ${quote(exec.name)} failed inside the tool registry (${describeThrown(error)}); whether the tool ran is not known. ${HARNESS_FAULT}`,
        )
      }
    }
    try {
      return this.deliver(exec, draft)
    } catch (error) {
      // Unreachable unless the runtime itself misbehaves (materializing and notifying are guarded).
      this.host.warn(`the tool registry failed while delivering the result of ${quote(exec.name)}`, error)
      PipelineExecution.close(exec)
      return materialize(
        toolFailed(exec.callId, `The result of the call to ${quote(exec.name)} could not be delivered (${describeThrown(error)}). ${HARNESS_FAULT}`),
      )
    }
  }

  private async process(exec: PipelineExecution, approver: ToolCallApprover | undefined): Promise<ToolExecutionResult> {
    const { catalog, hooks } = this.host
    const record = catalog.resolve(exec.name, exec.agent, exec.parent !== undefined)
    if (record === undefined) return notFound(exec.callId, this.unknownToolText(exec))
    PipelineExecution.resolved(exec, record.definition)
    if (PipelineExecution.aborted(exec)) return this.abortedBeforeDispatch(exec)
    const invalid = checkArguments(exec, record, this.warn)
    if (invalid !== undefined) return invalid

    const pre = hooks.select('tools/pre-execute')
    const decision = pre === undefined ? PROCEED : await this.decide(exec, pre)
    if ('callId' in decision) return decision
    if (PipelineExecution.aborted(exec)) return this.abortedBeforeDispatch(exec)
    const guardDenial = checkGuards(catalog, exec, this.warn)
    if (guardDenial !== undefined) return guardDenial
    if (decision.kind === 'ask') {
      const refusal = await askApproval(this.host, exec, record, decision.reason, approver)
      if (refusal !== undefined) return refusal
      // The person said yes, but what the guards check may have changed while they decided.
      const lateDenial = checkGuards(catalog, exec, this.warn)
      if (lateDenial !== undefined) return lateDenial
    }
    if (PipelineExecution.aborted(exec)) return this.abortedBeforeDispatch(exec)

    PipelineExecution.beginDispatch(exec)
    const wrappers = hooks.select('tools/execute')
    let result: ToolExecutionResult
    try {
      result = await this.settleDispatch(exec, wrappers === undefined ? this.dispatch(exec, record) : this.wrap(exec, record, wrappers))
    } finally {
      PipelineExecution.endDispatch(exec)
    }

    const post = hooks.select('tools/post-execute')
    return post === undefined ? result : this.review(exec, result, post)
  }

  /**
   * The dispatch's outcome, ended by the caller's abort: once the caller's signal fires, the wrappers and the body
   * (which heard it through `exec.signal`) get {@link PipelineHost.abortGraceMs} to settle with an outcome of their
   * own; one that has not by then is abandoned (`ABORTED`: it may still be running). A late settlement is reported
   * to developers and changes nothing.
   */
  private settleDispatch(exec: PipelineExecution, dispatched: Promise<ToolExecutionResult>): Promise<ToolExecutionResult> {
    const raced = PipelineExecution.race(exec, dispatched)
    // A call without a caller's signal cannot be aborted: nothing to race, no extra hop.
    if (raced === dispatched) return dispatched
    return raced.then((first) => (first === ABORTED ? this.abandonAfterGrace(exec, dispatched) : first))
  }

  /** The caller aborted during the dispatch: its outcome if it settles within the grace, else abandoned. */
  private async abandonAfterGrace(exec: PipelineExecution, dispatched: Promise<ToolExecutionResult>): Promise<ToolExecutionResult> {
    const graceMs = this.host.abortGraceMs
    const settled = await withGrace(dispatched, graceMs)
    if (settled !== ABANDONED) return settled
    const abandonedAt = Date.now()
    const name = quote(exec.name)
    dispatched.then(
      () => this.host.warn(`the abandoned call to ${name} settled ${Date.now() - abandonedAt}ms after it was abandoned; its outcome was ignored`),
      (error: unknown) => this.host.warn(`the abandoned call to ${name} failed after it was abandoned`, error),
    )
    return abandoned(
      exec.callId,
      `The call to ${name} was cancelled, but it did not stop within ${graceMs}ms of being cancelled, so it was abandoned: ` +
        'it may still be running, and its side effects may still take effect.',
    )
  }

  private unknownToolText(exec: PipelineExecution): string {
    const names: string[] = []
    let more = 0
    for (const record of this.host.catalog.visible(exec.agent)) {
      if (!record.listed) continue
      if (names.length < maxListedTools) names.push(record.name)
      else more++
    }
    const available =
      names.length === 0 ? 'No tools are available.' : `Available tools: ${names.join(', ')}${more > 0 ? ` and ${more} more` : ''}.`
    const hints = exec.parent === undefined ? this.host.catalog.directHints(exec.name, exec.agent) : []
    return `Unknown tool ${quote(exec.name)}. ${available}${hints.length > 0 ? ` ${hints.join(' ')}` : ''}`
  }

  private abortedBeforeDispatch(exec: PipelineExecution): ToolExecutionResult {
    return aborted(exec.callId, 'ABORTED_BEFORE_DISPATCH', `The call to ${quote(exec.name)} was cancelled before it ran; nothing was executed.`)
  }

  private abortedText(exec: PipelineExecution): string | undefined {
    return PipelineExecution.aborted(exec) ? `The call to ${quote(exec.name)} was cancelled while it ran.` : undefined
  }

  private readonly warn = (message: string, cause?: unknown): void => this.host.warn(message, cause)

  /** The pre-execute waterfall's decision: proceed, ask (the approval comes after the guards), or the denial. */
  private async decide(exec: PipelineExecution, hooks: readonly Hook[]): Promise<PreOutcome> {
    if (this.host.hooks.tracing) this.host.hooks.trace('waterfall', 'tools/pre-execute', [exec])
    const chain = new DecisionChain<PreToolDecision>(hooks, {
      invoke: (callback, next) => callback(exec, next),
      read: readPreDecision,
      base: ALLOW,
      refusal: REFUSE,
    })
    const decision = await PipelineExecution.race(exec, chain.run())
    if (decision === ABORTED) {
      return aborted(
        exec.callId,
        'ABORTED_BEFORE_DISPATCH',
        `The call to ${quote(exec.name)} was cancelled while the harness's policy decided on it; nothing was executed.`,
      )
    }
    if (chain.failure !== undefined) {
      const text = describeFailure('tools/pre-execute', chain.failure)
      this.host.warn(text, readOwn(chain.failure, 'cause'))
      return invalidDecision(exec.callId, `The call to ${quote(exec.name)} was not run: the harness's policy failed to decide (${text}). ${HARNESS_FAULT}`)
    }
    switch (decision.kind) {
      case 'allow':
        return PROCEED
      case 'deny':
        return denied(exec.callId, 'DENIED', `The call to ${quote(exec.name)} was denied: ${decision.reason}`)
      case 'ask':
        // A decision is the registry's own fresh object, but one without a reason must not inherit one.
        return { kind: 'ask', reason: readOwn(decision, 'reason') as string | undefined }
    }
  }

  /** The bottom of the dispatch stage: the body, unless the call was cancelled first. */
  private async dispatch(exec: PipelineExecution, record: ToolRecord): Promise<ToolExecutionResult> {
    if (PipelineExecution.aborted(exec)) return this.abortedBeforeDispatch(exec)
    let value: unknown
    PipelineExecution.bodyStarted(exec)
    try {
      value = await record.execute.call(record.definition, exec.arguments, exec)
    } catch (error) {
      return thrownResult(exec.callId, error, { whatFailed: `Tool ${quote(exec.name)} failed`, abortedText: this.abortedText(exec) })
    } finally {
      PipelineExecution.bodySettled(exec)
    }
    return bodyResult(exec.callId, exec.name, value)
  }

  /** The `tools/execute` wrappers around {@link dispatch}. `next()` always resolves to a checked result. */
  private wrap(exec: PipelineExecution, record: ToolRecord, hooks: readonly Hook[]): Promise<ToolExecutionResult> {
    if (this.host.hooks.tracing) this.host.hooks.trace('waterfall', 'tools/execute', [exec])
    return this.wrapLevel(exec, record, hooks, 0)
  }

  /**
   * One wrapper level (or, past the last wrapper, the dispatch). Explicit promise hops rather than an `async`
   * function, so a wrapper costs one microtask. The signal is put back to what this wrapper received when it
   * returns, so a swap never outlives the wrapper that made it.
   */
  private wrapLevel(exec: PipelineExecution, record: ToolRecord, hooks: readonly Hook[], index: number): Promise<ToolExecutionResult> {
    const hook = hooks[index]
    if (hook === undefined) return this.dispatch(exec, record).then(this.markChecked)
    const received = PipelineExecution.enter(exec, index)
    let called = false
    const next = (): Promise<ToolExecutionResult> => {
      if (called) throw new Error('next() called multiple times')
      called = true
      return this.wrapLevel(exec, record, hooks, index + 1)
    }
    const settle = (value: unknown): ToolExecutionResult => {
      PipelineExecution.leave(exec, index, received)
      return this.readWrapperResult(exec, value)
    }
    const threw = (error: unknown): ToolExecutionResult => {
      PipelineExecution.leave(exec, index, received)
      const whatFailed = `The call to ${quote(exec.name)} failed in the harness: a tools/execute wrapper threw`
      const after = `; whether the tool ran is not known. ${HARNESS_FAULT}`
      return this.markChecked(thrownResult(exec.callId, error, { whatFailed, abortedText: this.abortedText(exec), after }))
    }
    let value: unknown
    try {
      value = hook.callback(exec, next)
    } catch (error) {
      return Promise.resolve(threw(error))
    }
    return isThenable(value) ? Promise.resolve(value).then(settle, threw) : Promise.resolve(settle(value))
  }

  private readonly markChecked = (result: ToolExecutionResult): ToolExecutionResult => {
    return this.checked.mark(result)
  }

  /** A wrapper's return value as a checked result, or `INVALID_RESULT`. A result checked at an inner level passes. */
  private readWrapperResult(exec: PipelineExecution, value: unknown): ToolExecutionResult {
    if (this.checked.has(value)) return value as ToolExecutionResult
    let read: ToolExecutionResult | string
    try {
      read = readResult(exec.callId, value)
    } catch (error) {
      read = `a result whose fields cannot be read (${describeThrown(error)})`
    }
    if (typeof read !== 'string') return this.markChecked(read)
    this.host.warn(`a tools/execute wrapper returned ${read} for ${quote(exec.name)}`)
    return this.markChecked(
      invalidResult(
        exec.callId,
        `The call to ${quote(exec.name)} failed in the harness: a tools/execute wrapper returned ${read} instead of a result; ` +
          `whether the tool ran is not known. ${HARNESS_FAULT}`,
      ),
    )
  }

  /** The post-execute waterfall over the materialized dispatch result. */
  private async review(exec: PipelineExecution, draft: ToolExecutionResult, hooks: readonly Hook[]): Promise<ToolExecutionResult> {
    // Delivering a result nobody reviewed would let the caller's abort bypass the policy: withhold it instead.
    if (PipelineExecution.callerAborted(exec)) return this.withheld(exec, 'before its result could be reviewed')
    const result = materialize(draft)
    if (this.host.hooks.tracing) this.host.hooks.trace('waterfall', 'tools/post-execute', [exec, result])
    const chain = new DecisionChain<PostToolDecision>(hooks, {
      invoke: (callback, next) => callback(exec, result, next),
      read: readPostDecision,
      base: ACCEPT,
      refusal: REFUSE_RESULT,
    })
    const decision = await PipelineExecution.race(exec, chain.run())
    if (decision === ABORTED) return this.withheld(exec, 'while its result was being reviewed')
    if (chain.failure !== undefined) {
      const text = describeFailure('tools/post-execute', chain.failure)
      this.host.warn(text, readOwn(chain.failure, 'cause'))
      return invalidDecision(
        exec.callId,
        `The call to ${quote(exec.name)} ran, but its result was withheld: the harness's policy failed to review it (${text}). ` +
          'This is a fault in the harness, not in your arguments; calling again would run the tool again and fail the same way until it is fixed.',
      )
    }
    // The decision is the registry's own fresh object; its optional fields are read as own ones all the same, so a
    // polluted Object.prototype cannot supply a `content` or `additionalContext` the listener never returned.
    const context = readOwn(decision, 'additionalContext') as HookContext | undefined
    if (decision.kind === 'block') {
      // A fresh error result: the blocked result's meta and structuredContent are dropped with its content.
      const blockedResult = blocked(exec.callId, readOwn(decision, 'feedback') as ContentBlock[])
      if (context !== undefined) blockedResult.additionalContext = context
      return blockedResult
    }
    return reviewedResult(result, decision)
  }

  private withheld(exec: PipelineExecution, when: string): ToolExecutionResult {
    return aborted(
      exec.callId,
      'ABORTED',
      `The call to ${quote(exec.name)} ran, but it was cancelled ${when}, so its result was withheld; what it did may have taken effect.`,
    )
  }

  /** Materializes the final result, closes the execution and tells the observers, synchronously and once. */
  private deliver(exec: PipelineExecution, draft: ToolExecutionResult): ToolExecutionResult {
    const result = materialize(draft)
    PipelineExecution.close(exec)
    this.host.hooks.notify('tools/result', [exec, result], exec.name)
    return result
  }
}

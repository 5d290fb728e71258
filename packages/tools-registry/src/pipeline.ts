import {
  snapshotJson,
  type Agent,
  type PostToolDecision,
  type PreToolDecision,
  type ToolApprovalRequest,
  type ToolApprovalService,
  type ToolExecutionInput,
  type ToolExecutionResult,
  type ToolExecutionToken,
  type ToolGuard,
} from '@dsh/tools-core'
import type { Hook } from 'cordis'
import { DecisionChain, type ChainFailure } from './decision-chain.js'
import { ACCEPT, ALLOW, readPostDecision, readPreDecision } from './decisions.js'
import { describeThrown, describeValue, isThenable, quote } from './describe-value.js'
import { isAbortSignal, PipelineExecution } from './execution.js'
import type { HookTable } from './hook-table.js'
import {
  aborted,
  blocked,
  bodyResult,
  denied,
  HARNESS_FAULT,
  invalidDecision,
  invalidResult,
  materialize,
  nonJson,
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
  /** Reports a misbehaving hook, observer or service to developers (the result already tells the model). */
  warn(message: string, cause?: unknown): void
}

const ABORTED = Symbol('aborted')
const maxListedTools = 50

/** What `next()` resolves to for outer listeners once a decision chain has failed. */
const REFUSE: PreToolDecision = Object.freeze({ kind: 'deny', reason: 'a tools/pre-execute listener failed to decide' })
const REFUSE_RESULT: PostToolDecision = Object.freeze({
  kind: 'block',
  feedback: textContent('a tools/post-execute listener failed to decide'),
})

/** A call read from its input: the execution, or the execution and the result it already failed with. */
interface Started {
  readonly exec: PipelineExecution
  readonly failed?: ToolExecutionResult
}

function readFields(input: unknown, forcedAgent: Agent | undefined): Record<string, unknown> | string {
  if (typeof input !== 'object' || input === null) return `the call is ${describeValue(input)}, not an object`
  try {
    const fields = input as Record<string, unknown>
    const { callId, name, arguments: args, parent, signal } = fields
    return { callId, name, arguments: args, agent: forcedAgent ?? fields.agent, parent, signal }
  } catch (error) {
    return `reading the call threw: ${describeThrown(error)}`
  }
}

function inputProblem(fields: Record<string, unknown>): string | undefined {
  const { callId, name, agent, parent, signal } = fields
  if (typeof callId !== 'string') return `its callId is ${describeValue(callId)}, not a string`
  if (typeof name !== 'string') return `its name is ${describeValue(name)}, not a string`
  if (agent !== undefined && (typeof agent !== 'object' || agent === null)) return `its agent is ${describeValue(agent)}, not an object`
  if (parent !== undefined && typeof parent !== 'symbol') return `its parent is ${describeValue(parent)}, not an execution token`
  if (signal !== undefined && !isAbortSignal(signal)) return `its signal is ${describeValue(signal)}, not an AbortSignal`
  return undefined
}

/**
 * Reads the caller's input: checks its fields and materializes the arguments (detached, lossless, deep-frozen)
 * before anything else runs. A malformed call (`INVALID_CALL`) or non-JSON arguments (`NON_JSON_VALUE`) fail
 * here, before the tool is even looked up.
 */
function start(input: unknown, forcedAgent: Agent | undefined): Started {
  const fields = readFields(input, forcedAgent)
  const problem = typeof fields === 'string' ? fields : inputProblem(fields)
  if (problem !== undefined) {
    const known = typeof fields === 'string' ? {} : fields
    const exec = new PipelineExecution(
      typeof known.callId === 'string' ? known.callId : '',
      typeof known.name === 'string' ? known.name : '',
      undefined,
      typeof known.agent === 'object' && known.agent !== null ? (known.agent as Agent) : undefined,
      typeof known.parent === 'symbol' ? (known.parent as ToolExecutionToken) : undefined,
      isAbortSignal(known.signal) ? known.signal : undefined,
    )
    return { exec, failed: invalidCall(exec.callId, `The tool call is malformed: ${problem}.`) }
  }
  const valid = fields as Record<string, unknown>
  const snapshot = snapshotJson(valid.arguments)
  const exec = new PipelineExecution(
    valid.callId as string,
    valid.name as string,
    snapshot.ok ? snapshot.value : undefined,
    valid.agent as Agent | undefined,
    valid.parent as ToolExecutionToken | undefined,
    valid.signal as AbortSignal | undefined,
  )
  if (snapshot.ok) return { exec }
  return {
    exec,
    failed: nonJson(exec.callId, `The arguments of the call to ${quote(exec.name)} are not JSON: ${snapshot.error.message}`),
  }
}

function untilAborted<T>(value: T | PromiseLike<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) return Promise.resolve(ABORTED)
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(ABORTED)
    signal.addEventListener('abort', onAbort, { once: true })
    Promise.resolve(value).then(
      (settled) => {
        signal.removeEventListener('abort', onAbort)
        resolve(settled)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

function describeFailure(event: string, chainFailure: ChainFailure): string {
  return `a ${event} listener of plugin ${quote(chainFailure.plugin)} ${chainFailure.problem}`
}

/**
 * The execution pipeline: input and arguments → resolution → `tools/pre-execute` → approval → guards →
 * `tools/execute` wrappers → body → `tools/post-execute` → materialized result → `tools/result`. A stage without
 * listeners costs a property lookup; failures are built as data, so a denial costs no more than a success.
 */
export class ExecutionPipeline {
  /**
   * Results already checked at some wrapper level (they are fresh objects the pipeline built), so a wrapper that
   * passes one through is not read again. The final materialization checks every result regardless.
   */
  private readonly checked = new WeakSet<object>()

  constructor(private readonly host: PipelineHost) {}

  /** Runs one call. Never rejects. */
  async run(input: ToolExecutionInput, forcedAgent?: Agent): Promise<ToolExecutionResult> {
    let started: Started
    try {
      started = start(input, forcedAgent)
    } catch (error) {
      // Unreachable unless the runtime itself misbehaves (every read above is guarded); execute() never rejects.
      const exec = new PipelineExecution('', '', undefined, undefined, undefined, undefined)
      started = { exec, failed: invalidCall('', `The tool call could not be read: ${describeThrown(error)}`) }
    }
    const { exec } = started
    let draft = started.failed
    if (draft === undefined) {
      try {
        draft = await this.process(exec)
      } catch (error) {
        this.host.warn(`the tool registry failed while running ${quote(exec.name)}`, error)
        draft = toolFailed(
          exec.callId,
          `The call to ${quote(exec.name)} failed inside the tool registry (${describeThrown(error)}); whether the tool ran is not known. ${HARNESS_FAULT}`,
        )
      }
    }
    return this.deliver(exec, draft)
  }

  private async process(exec: PipelineExecution): Promise<ToolExecutionResult> {
    const { catalog, hooks } = this.host
    const record = catalog.resolve(exec.name, exec.agent)
    if (record === undefined) return notFound(exec.callId, this.unknownToolText(exec))
    PipelineExecution.resolved(exec, record.definition)
    if (PipelineExecution.aborted(exec)) return this.abortedBeforeDispatch(exec)

    const pre = hooks.select('tools/pre-execute')
    if (pre !== undefined) {
      const denial = await this.decide(exec, record, pre)
      if (denial !== undefined) return denial
    }
    const guardDenial = this.runGuards(catalog.globalGuards, exec) ?? this.runGuards(catalog.scopeGuards(exec.agent), exec)
    if (guardDenial !== undefined) return guardDenial
    if (PipelineExecution.aborted(exec)) return this.abortedBeforeDispatch(exec)

    PipelineExecution.beginDispatch(exec)
    const wrappers = hooks.select('tools/execute')
    let result: ToolExecutionResult
    try {
      result = wrappers === undefined ? await this.dispatch(exec, record) : await this.wrap(exec, record, wrappers)
    } finally {
      PipelineExecution.endDispatch(exec)
    }

    const post = hooks.select('tools/post-execute')
    return post === undefined ? result : this.review(exec, result, post)
  }

  private unknownToolText(exec: PipelineExecution): string {
    const names: string[] = []
    let more = 0
    for (const record of this.host.catalog.visible(exec.agent)) {
      if (names.length < maxListedTools) names.push(record.name)
      else more++
    }
    const available =
      names.length === 0 ? 'No tools are available.' : `Available tools: ${names.join(', ')}${more > 0 ? ` and ${more} more` : ''}.`
    return `Unknown tool ${quote(exec.name)}. ${available}`
  }

  private abortedBeforeDispatch(exec: PipelineExecution): ToolExecutionResult {
    return aborted(exec.callId, 'ABORTED_BEFORE_DISPATCH', `The call to ${quote(exec.name)} was cancelled before it ran; nothing was executed.`)
  }

  private abortedText(exec: PipelineExecution): string | undefined {
    return PipelineExecution.aborted(exec) ? `The call to ${quote(exec.name)} was cancelled while it ran.` : undefined
  }

  /** The pre-execute waterfall and, for `ask`, the approval. Returns the denial, or `undefined` to proceed. */
  private async decide(exec: PipelineExecution, record: ToolRecord, hooks: readonly Hook[]): Promise<ToolExecutionResult | undefined> {
    if (this.host.hooks.tracing) this.host.hooks.trace('waterfall', 'tools/pre-execute', [exec])
    const chain = new DecisionChain<PreToolDecision>(hooks, {
      invoke: (callback, next) => callback(exec, next),
      read: readPreDecision,
      base: ALLOW,
      refusal: REFUSE,
    })
    const decision = await chain.run()
    if (chain.failure !== undefined) {
      const text = describeFailure('tools/pre-execute', chain.failure)
      this.host.warn(text, chain.failure.cause)
      return invalidDecision(exec.callId, `The call to ${quote(exec.name)} was not run: the harness's policy failed to decide (${text}). ${HARNESS_FAULT}`)
    }
    switch (decision.kind) {
      case 'allow':
        return undefined
      case 'deny':
        return denied(exec.callId, 'DENIED', `The call to ${quote(exec.name)} was denied: ${decision.reason}`)
      case 'ask':
        return this.ask(exec, record, decision.reason)
    }
  }

  /** Asks the approval service; only `allowed-once` proceeds. Returns the denial, or `undefined` to proceed. */
  private async ask(exec: PipelineExecution, record: ToolRecord, reason: string | undefined): Promise<ToolExecutionResult | undefined> {
    const { callId } = exec
    const tool = quote(exec.name)
    const agent = exec.agent
    if (agent === undefined) {
      return denied(
        callId,
        'APPROVAL_NO_AGENT',
        `The call to ${tool} needs approval, but it runs for no agent, so there is nobody to ask. It was not run.`,
      )
    }
    let service: ToolApprovalService | undefined
    try {
      service = this.host.approvalService()
    } catch (error) {
      this.host.warn('looking up the toolApproval service threw', error)
    }
    if (service === undefined || service === null) {
      return denied(callId, 'APPROVAL_NO_SERVICE', `The call to ${tool} needs approval, but no approval service is available. It was not run.`)
    }
    const signal = exec.signal
    const request: ToolApprovalRequest = Object.freeze({ execution: exec, agent, tool: record.schema, reason, signal })
    let answer: unknown
    try {
      answer = await untilAborted(service.requestApproval(request), signal)
    } catch (error) {
      this.host.warn(`the approval service failed for ${tool}`, error)
      return denied(
        callId,
        'APPROVAL_UNAVAILABLE',
        `Approval for the call to ${tool} could not be obtained (the approval service failed: ${describeThrown(error)}). It was not run.`,
      )
    }
    if (answer === ABORTED) {
      return aborted(callId, 'ABORTED_BEFORE_DISPATCH', `The call to ${tool} was cancelled while it waited for approval; nothing was executed.`)
    }
    return this.readApproval(callId, tool, answer)
  }

  private readApproval(callId: string, tool: string, answer: unknown): ToolExecutionResult | undefined {
    let outcome: unknown
    let reason: unknown
    try {
      if (typeof answer === 'object' && answer !== null) ({ outcome, reason } = answer as Record<string, unknown>)
    } catch (error) {
      this.host.warn(`reading the approval answer for ${tool} threw`, error)
    }
    const because = typeof reason === 'string' && reason.trim() !== '' ? `: ${reason}` : ''
    switch (outcome) {
      case 'allowed-once':
        return undefined
      case 'rejected':
        return denied(callId, 'APPROVAL_REJECTED', `The call to ${tool} was rejected${because}. It was not run.`)
      case 'cancelled':
        return denied(callId, 'APPROVAL_CANCELLED', `The approval request for the call to ${tool} was cancelled. It was not run.`)
      case 'unavailable':
        return denied(callId, 'APPROVAL_UNAVAILABLE', `Approval for the call to ${tool} is unavailable${because}. It was not run.`)
      default:
        this.host.warn(`the approval service answered ${describeValue(answer)} for ${tool}`)
        return denied(
          callId,
          'APPROVAL_UNAVAILABLE',
          `Approval for the call to ${tool} could not be obtained (the approval service gave an invalid answer). It was not run.`,
        )
    }
  }

  /** Deny-only guards: the first reason denies (`GUARD_DENIED`); a throw or a non-reason fails closed. */
  private runGuards(guards: readonly ToolGuard[], exec: PipelineExecution): ToolExecutionResult | undefined {
    for (const guard of guards) {
      let verdict: unknown
      try {
        verdict = guard(exec)
      } catch (error) {
        this.host.warn(`a guard threw while checking ${quote(exec.name)}`, error)
        return invalidDecision(
          exec.callId,
          `The call to ${quote(exec.name)} was not run: a guard of the harness failed (it threw ${describeThrown(error)}). ${HARNESS_FAULT}`,
        )
      }
      if (verdict === undefined) continue
      if (typeof verdict === 'string' && verdict.trim() !== '') {
        return denied(exec.callId, 'GUARD_DENIED', `The call to ${quote(exec.name)} was denied by a guard: ${verdict}`)
      }
      if (isThenable(verdict)) {
        // An async guard cannot be honoured; keep its eventual rejection from going unhandled.
        Promise.resolve(verdict).then(undefined, (error: unknown) => this.host.warn('an async guard rejected', error))
      }
      this.host.warn(`a guard returned ${describeValue(verdict)} while checking ${quote(exec.name)}`)
      return invalidDecision(
        exec.callId,
        `The call to ${quote(exec.name)} was not run: a guard of the harness failed (it returned ${describeValue(verdict)}, ` +
          `not a reason to deny or undefined). ${HARNESS_FAULT}`,
      )
    }
    return undefined
  }

  /** The bottom of the dispatch stage: the body, unless the call was cancelled first. */
  private async dispatch(exec: PipelineExecution, record: ToolRecord): Promise<ToolExecutionResult> {
    if (PipelineExecution.aborted(exec)) return this.abortedBeforeDispatch(exec)
    let value: unknown
    try {
      value = await record.execute.call(record.definition, exec.arguments, exec)
    } catch (error) {
      return thrownResult(exec.callId, error, { whatFailed: `Tool ${quote(exec.name)} failed`, abortedText: this.abortedText(exec) })
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
    this.checked.add(result)
    return result
  }

  /** A wrapper's return value as a checked result, or `INVALID_RESULT`. A result checked at an inner level passes. */
  private readWrapperResult(exec: PipelineExecution, value: unknown): ToolExecutionResult {
    if (typeof value === 'object' && value !== null && this.checked.has(value)) return value as ToolExecutionResult
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
    const result = materialize(draft)
    if (this.host.hooks.tracing) this.host.hooks.trace('waterfall', 'tools/post-execute', [exec, result])
    const chain = new DecisionChain<PostToolDecision>(hooks, {
      invoke: (callback, next) => callback(exec, result, next),
      read: readPostDecision,
      base: ACCEPT,
      refusal: REFUSE_RESULT,
    })
    const decision = await chain.run()
    if (chain.failure !== undefined) {
      const text = describeFailure('tools/post-execute', chain.failure)
      this.host.warn(text, chain.failure.cause)
      return invalidDecision(
        exec.callId,
        `The call to ${quote(exec.name)} ran, but its result was withheld: the harness's policy failed to review it (${text}). ` +
          'This is a fault in the harness, not in your arguments; calling again would run the tool again and fail the same way until it is fixed.',
      )
    }
    if (decision.kind === 'block') {
      const blockedResult = blocked(exec.callId, decision.feedback)
      if (decision.additionalContext !== undefined) blockedResult.additionalContext = decision.additionalContext
      return blockedResult
    }
    if (decision.content === undefined && decision.additionalContext === undefined) return result
    const accepted: ToolExecutionResult = { ...result }
    if (decision.content !== undefined) accepted.content = decision.content
    if (decision.additionalContext !== undefined) accepted.additionalContext = decision.additionalContext
    return accepted
  }

  /** Materializes the final result, closes the execution and tells the observers, synchronously and once. */
  private deliver(exec: PipelineExecution, draft: ToolExecutionResult): ToolExecutionResult {
    const result = materialize(draft)
    PipelineExecution.close(exec)
    this.host.hooks.notify('tools/result', [exec, result], this.host.warn, exec.name)
    return result
  }
}

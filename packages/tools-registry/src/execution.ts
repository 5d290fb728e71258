import {
  createToolExecutionToken,
  type Agent,
  type ToolDefinition,
  type ToolExecution,
  type ToolExecutionToken,
} from '@dsh/tools-core'
import { ABORTED, CallAbort } from './call-abort.js'
import { describeValue } from './describe-value.js'
import { isAbortSignal, signalAborted, signalReason } from '@dsh/tools-core'

const POLICY = 0
const DISPATCH = 1
const CLOSED = 2

/**
 * The tokens of calls still running: a call's token is live from its first read until the call has been delivered
 * and its body (if it ran) has settled. A body that outlives its call (moved to the background by a task layer,
 * abandoned by a timeout policy) keeps its token live until it settles. Only these may be a nested call's `parent`.
 */
const liveTokens = new Set<ToolExecutionToken>()

/** True when `token` is the token of a call still running (see {@link liveTokens}). */
export function isLiveToken(token: ToolExecutionToken): boolean {
  return liveTokens.has(token)
}

/**
 * One call inside the pipeline. Its identity is frozen at construction (the object itself is frozen);
 * `signal` is an accessor over private state:
 * - reading it always gives a signal: the one a `tools/execute` wrapper swapped in, else the call's own, which
 *   fires when the caller's signal does (see {@link CallAbort}: the caller's signal object itself is never handed
 *   out, so no tool or listener can attach code to it that the caller's abort would run unguarded);
 * - assigning it is allowed only during the dispatch stage (wrappers and the body); elsewhere it throws.
 *
 * The pipeline drives the stages through the static methods; they are not part of the public object.
 */
export class PipelineExecution implements ToolExecution {
  readonly callId: string
  readonly name: string
  readonly arguments: unknown
  readonly agent: Agent | undefined
  readonly parent: ToolExecutionToken | undefined
  /** Made on first read: a `Symbol` is allocated in V8's old space, which most calls never need (see {@link token}). */
  #token: ToolExecutionToken | undefined = undefined
  readonly #abort: CallAbort
  #swapped: AbortSignal | undefined = undefined
  #stage = POLICY
  /** How many `tools/execute` wrapper levels have been entered and have not returned yet. */
  #depth = 0
  /** The definition resolved at stage 2, kept for {@link PipelineExecution.definitionOf}. */
  #definition: ToolDefinition | undefined = undefined
  /** True while the body runs (from its call until its promise settles). */
  #bodyRunning = false

  constructor(
    callId: string,
    name: string,
    args: unknown,
    agent: Agent | undefined,
    parent: ToolExecutionToken | undefined,
    abort: CallAbort,
  ) {
    this.callId = callId
    this.name = name
    this.arguments = args
    this.agent = agent
    this.parent = parent
    this.#abort = abort
    Object.freeze(this)
  }

  /**
   * The call's identity: one fresh symbol, the same at every read. Made when first read rather than at
   * construction, as nothing can tell the two apart and most calls are never asked for it.
   */
  get token(): ToolExecutionToken {
    if (this.#token === undefined) {
      this.#token = createToolExecutionToken()
      if (this.#stage !== CLOSED || this.#bodyRunning) liveTokens.add(this.#token)
    }
    return this.#token
  }

  /** The signal the call runs under. Always present. */
  get signal(): AbortSignal {
    return this.#swapped ?? this.#abort.signal
  }

  set signal(value: AbortSignal | undefined) {
    if (this.#stage !== DISPATCH) {
      throw new TypeError(
        'exec.signal can only be replaced by a tools/execute wrapper while it wraps the dispatch; the rest of the execution is frozen',
      )
    }
    if (value !== undefined && !isAbortSignal(value)) {
      throw new TypeError(`exec.signal must be an AbortSignal, got ${describeValue(value)}`)
    }
    this.#swapped = value
  }

  /** Records the definition the call resolved to (once, at resolution; the private field is outside the freeze). */
  static resolved(exec: PipelineExecution, definition: ToolDefinition): void {
    exec.#definition = definition
  }

  /** The definition `value` resolved to, when it is an execution of this class that got that far. */
  static definitionOf(value: unknown): ToolDefinition | undefined {
    return typeof value === 'object' && value !== null && #definition in value ? value.#definition : undefined
  }

  /** True when the signal the call runs under, or the caller's own signal, has fired. */
  static aborted(exec: PipelineExecution): boolean {
    return (exec.#swapped !== undefined && signalAborted(exec.#swapped)) || exec.#abort.fired
  }

  /** The reason of whichever signal fired. */
  static abortReason(exec: PipelineExecution): unknown {
    return exec.#swapped !== undefined && signalAborted(exec.#swapped) ? signalReason(exec.#swapped) : exec.#abort.reason
  }

  /** True when the caller's own signal has fired (a swapped signal firing does not count). */
  static callerAborted(exec: PipelineExecution): boolean {
    return exec.#abort.fired
  }

  /** `value`, or {@link ABORTED} as soon as the caller's signal fires. */
  static race<T>(exec: PipelineExecution, value: Promise<T>): Promise<T | typeof ABORTED> {
    return exec.#abort.race(value)
  }

  /**
   * Enters wrapper level `level` (0 for the outermost) and returns the signal it receives, to restore when it
   * returns.
   */
  static enter(exec: PipelineExecution, level: number): AbortSignal | undefined {
    exec.#depth = level + 1
    return exec.#swapped
  }

  /**
   * Wrapper level `level` returned: puts back the signal it received. Ignored once the dispatch stage is over, and
   * for a level that returns after a level around it already has (a wrapper may return without waiting for
   * `next()`, as a timeout policy abandoning a call does): its late restore would hand its own signal to the outer
   * wrappers still running.
   */
  static leave(exec: PipelineExecution, level: number, received: AbortSignal | undefined): void {
    if (exec.#stage !== DISPATCH || exec.#depth <= level) return
    exec.#depth = level
    exec.#swapped = received
  }

  /** Opens the dispatch stage: wrappers may now swap the signal. */
  static beginDispatch(exec: PipelineExecution): void {
    exec.#stage = DISPATCH
  }

  /** Ends the dispatch stage and restores the caller's signal. */
  static endDispatch(exec: PipelineExecution): void {
    exec.#stage = POLICY
    exec.#swapped = undefined
  }

  /** Freezes the signal too, and stops listening to the caller's: after this, the execution is entirely immutable. */
  static close(exec: PipelineExecution): void {
    exec.#stage = CLOSED
    exec.#swapped = undefined
    exec.#abort.release()
    if (!exec.#bodyRunning && exec.#token !== undefined) liveTokens.delete(exec.#token)
  }

  /** The body was called. */
  static bodyStarted(exec: PipelineExecution): void {
    exec.#bodyRunning = true
  }

  /** The body's promise settled: once the call is also delivered, its token is no longer a valid `parent`. */
  static bodySettled(exec: PipelineExecution): void {
    exec.#bodyRunning = false
    if (exec.#stage === CLOSED && exec.#token !== undefined) liveTokens.delete(exec.#token)
  }
}

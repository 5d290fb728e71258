import type { ToolExecution, ToolExecutionResult } from '@dsh/tools-core'
import type { LateSettlement } from './events.js'
import { abortIsolated, listenForAbort, signalReason } from '@dsh/tools-core'
import { abandonedResult, lateResult, timeoutResult } from './timeout-results.js'
import { ToolTimeoutError } from './tool-timeout-error.js'

/** What a {@link TimedCall} needs from the policy that started it. */
export interface TimedCallHost {
  /** The grace after a deadline before an unsettled call is abandoned. */
  readonly graceMs: number
  /** The call no longer needs the policy (it settled, or it was abandoned). */
  release(call: TimedCall): void
  /** An abandoned call settled after all. */
  reportLate(settlement: LateSettlement): void
  /** A listener of the call's signal threw when the policy aborted it (reported, never rethrown; called unbound). */
  readonly reportListener: (error: unknown) => void
}

/** The deadline has not fired; the call runs. */
const RUNNING = 0
/** The deadline fired; the grace runs (unless the policy was disposed since). The outcome is `TOOL_TIMEOUT`. */
const TIMED_OUT = 1
/** The signal this wrapper received fired first (the caller, or an outer deadline): the outcome is theirs. */
const YIELDED = 2
/** The policy was disposed before the deadline: the call finishes without one. */
const UNENFORCED = 3
/** Resolved as `TOOL_TIMEOUT_ABANDONED`; a settlement now is late. */
const ABANDONED = 4
/** Resolved with the call's own outcome (or `TOOL_TIMEOUT`). */
const SETTLED = 5

type State = typeof RUNNING | typeof TIMED_OUT | typeof YIELDED | typeof UNENFORCED | typeof ABANDONED | typeof SETTLED

type Timer = ReturnType<typeof setTimeout>

/**
 * One call under a deadline: a signal of its own that follows the signal the wrapper received (`parent`) and also
 * fires at the deadline, with a {@link ToolTimeoutError} as its reason. The outcome is decided by whichever comes
 * first:
 * - the call settles: its result, untouched;
 * - `parent` fires: the abort is forwarded and the deadline dropped; the outcome is what the call then settles with
 *   (the registry's `ABORTED`, or an outer wrapper's own judgement), never a timeout of this deadline;
 * - the deadline fires: the signal aborts; settling within the grace gives `TOOL_TIMEOUT` whatever the call produced,
 *   and not settling gives `TOOL_TIMEOUT_ABANDONED` when the grace ends, after which a settlement is only reported;
 * - the call settles past its deadline before the deadline timer could fire (a body that blocked the event loop):
 *   the deadline is checked when the call settles, so the outcome is `TOOL_TIMEOUT` (it finished, late), never a
 *   success.
 *
 * The signal is aborted with {@link abortIsolated}: a tool's abort listener that throws is reported, and cannot
 * crash the process.
 *
 * Every timer and listener is gone once the call has settled or been abandoned. {@link detach} (the policy was
 * disposed) drops the timers at once; the listener that forwards `parent`'s abort stays until the call settles,
 * because the tool holds this call's signal and must still hear its caller.
 */
export class TimedCall {
  readonly #exec: ToolExecution
  readonly #parent: AbortSignal
  readonly #timeoutMs: number
  readonly #host: TimedCallHost
  readonly #controller = new AbortController()
  #state: State = RUNNING
  #enforcing = true
  #deadlineTimer: Timer | undefined
  #graceTimer: Timer | undefined
  #deadlineAt = 0
  #startedAt = 0
  #unlistenParent: () => void = noop
  #resolve: (result: ToolExecutionResult) => void = noop
  #reject: (reason: unknown) => void = noop

  constructor(exec: ToolExecution, parent: AbortSignal, timeoutMs: number, host: TimedCallHost) {
    this.#exec = exec
    this.#parent = parent
    this.#timeoutMs = timeoutMs
    this.#host = host
  }

  /**
   * Starts the deadline, runs `next()` under this call's signal and resolves to the outcome. The registry restores
   * the signal this wrapper received when the returned promise settles.
   */
  run(next: () => Promise<ToolExecutionResult>): Promise<ToolExecutionResult> {
    const outcome = new Promise<ToolExecutionResult>((resolve, reject) => {
      this.#resolve = resolve
      this.#reject = reject
    })
    try {
      this.#unlistenParent = listenForAbort(this.#parent, this.#onParentAbort)
    } catch (error) {
      // The registry hands wrappers real AbortSignals; one that refuses a listener cannot be followed.
      this.#host.reportListener(error)
    }
    this.#startedAt = performance.now()
    this.#deadlineTimer = setTimeout(this.#onDeadline, this.#timeoutMs)
    this.#exec.signal = this.#controller.signal
    let inner: Promise<ToolExecutionResult>
    try {
      inner = next()
    } catch (error) {
      this.#finish()
      throw error
    }
    inner.then(this.#onFulfilled, this.#onRejected)
    return outcome
  }

  /** The policy was disposed: no deadline fires and nobody is abandoned any more. What already happened stands. */
  detach(): void {
    this.#enforcing = false
    this.#clearTimers()
    if (this.#state === RUNNING) this.#state = UNENFORCED
  }

  readonly #onParentAbort = (): void => {
    if (this.#state !== RUNNING && this.#state !== UNENFORCED) return
    this.#state = YIELDED
    this.#clearTimers()
    this.#unlistenParent = noop
    // Nothing is left for the policy to drop: a body that never settles after this must not be kept alive by it.
    this.#host.release(this)
    abortIsolated(this.#controller, signalReason(this.#parent), this.#host.reportListener)
  }

  readonly #onDeadline = (): void => {
    this.#deadlineTimer = undefined
    if (this.#state !== RUNNING) return
    this.#state = TIMED_OUT
    this.#deadlineAt = performance.now()
    // From here on the outcome is this deadline's; the caller aborting too changes nothing.
    this.#stopFollowingParent()
    abortIsolated(this.#controller, new ToolTimeoutError(this.#timeoutMs), this.#host.reportListener)
    // The abort ran the tool's listeners synchronously; one of them may have disposed the policy.
    if (this.#state === TIMED_OUT && this.#enforcing) this.#graceTimer = setTimeout(this.#onGrace, this.#host.graceMs)
  }

  readonly #onGrace = (): void => {
    this.#graceTimer = undefined
    if (this.#state !== TIMED_OUT) return
    this.#state = ABANDONED
    this.#host.release(this)
    const { callId, name } = this.#exec
    this.#resolve(abandonedResult(callId, name, this.#timeoutMs, this.#host.graceMs))
  }

  readonly #onFulfilled = (result: ToolExecutionResult): void => {
    if (this.#state === ABANDONED) {
      this.#reportLate({ status: 'fulfilled', result })
      return
    }
    const timedOut = this.#state === TIMED_OUT
    const lateByMs = this.#lateByMs()
    this.#finish()
    const { callId, name } = this.#exec
    if (timedOut) this.#resolve(timeoutResult(callId, name, this.#timeoutMs, !result.isError))
    else if (lateByMs === undefined) this.#resolve(result)
    else {
      this.#abortLate()
      this.#resolve(lateResult(callId, name, this.#timeoutMs, lateByMs))
    }
  }

  /**
   * How far past its deadline a call still running under it settles, or `undefined` when it is within it. The
   * deadline timer cannot fire while a body keeps the event loop busy, so the clock is read when the call settles.
   */
  #lateByMs(): number | undefined {
    if (this.#state !== RUNNING) return undefined
    const late = performance.now() - this.#startedAt - this.#timeoutMs
    return late >= 0 ? Math.round(late) : undefined
  }

  /** The call settled past its deadline: its signal fires now, so whatever it left running hears the deadline. */
  #abortLate(): void {
    abortIsolated(this.#controller, new ToolTimeoutError(this.#timeoutMs), this.#host.reportListener)
  }

  #stopFollowingParent(): void {
    const unlisten = this.#unlistenParent
    this.#unlistenParent = noop
    unlisten()
  }

  readonly #onRejected = (reason: unknown): void => {
    if (this.#state === ABANDONED) {
      this.#reportLate({ status: 'rejected', reason })
      return
    }
    const timedOut = this.#state === TIMED_OUT || this.#lateByMs() !== undefined
    this.#finish()
    if (timedOut) this.#resolve(timeoutResult(this.#exec.callId, this.#exec.name, this.#timeoutMs, false))
    else this.#reject(reason)
  }

  #reportLate(settlement: { status: 'fulfilled'; result: ToolExecutionResult } | { status: 'rejected'; reason: unknown }): void {
    const exec = this.#exec
    this.#host.reportLate(
      Object.freeze({
        callId: exec.callId,
        name: exec.name,
        execution: exec,
        timeoutMs: this.#timeoutMs,
        graceMs: this.#host.graceMs,
        lateByMs: Math.max(0, Math.round(performance.now() - this.#deadlineAt)),
        ...settlement,
      }),
    )
  }

  #finish(): void {
    this.#state = SETTLED
    this.#clearTimers()
    this.#stopFollowingParent()
    this.#host.release(this)
  }

  #clearTimers(): void {
    if (this.#deadlineTimer !== undefined) {
      clearTimeout(this.#deadlineTimer)
      this.#deadlineTimer = undefined
    }
    if (this.#graceTimer !== undefined) {
      clearTimeout(this.#graceTimer)
      this.#graceTimer = undefined
    }
  }
}

function noop(): void {}

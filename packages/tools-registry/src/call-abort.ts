import { abortIsolated, listenForAbort, signalAborted, signalReason } from '@dsh/tools-core'

/** What a stage raced against the caller's abort resolves to when the caller aborted first. */
export const ABORTED: unique symbol = Symbol('aborted')

/** What {@link withGrace} resolves to when the grace ran out first. */
export const ABANDONED: unique symbol = Symbol('abandoned')

/**
 * The caller's cancellation of one call, adopted once: the registry listens to the caller's signal (a real
 * `AbortSignal`, checked before) with the platform's own methods, and everything else (the signal tools and
 * listeners get, every race of a stage against the abort) is the registry's own. So nothing reaches the caller's
 * signal object after the call starts, and when the caller aborts, the call's own signal is aborted with
 * {@link abortIsolated}: a tool whose abort listener throws cannot crash the process.
 *
 * The call's signal (`exec.signal`) is created on first read: calls that never look at it do not pay for an
 * `AbortController`.
 */
export class CallAbort {
  readonly #caller: AbortSignal | undefined
  readonly #report: (error: unknown) => void
  #fired = false
  #reason: unknown = undefined
  #controller: AbortController | undefined = undefined
  #unlisten: (() => void) | undefined = undefined
  #aborted: Promise<typeof ABORTED> | undefined = undefined
  #resolveAborted: ((value: typeof ABORTED) => void) | undefined = undefined

  /**
   * Adopts `caller` (a real `AbortSignal`, or none). Throws when the caller's signal refuses a listener: the call
   * is then malformed.
   *
   * @param report - where an exception of a listener of the call's signal goes (the registry's warnings)
   */
  constructor(caller: AbortSignal | undefined, report: (error: unknown) => void) {
    this.#caller = caller
    this.#report = report
    if (caller === undefined) return
    if (signalAborted(caller)) {
      this.#fired = true
      this.#reason = signalReason(caller)
      return
    }
    // An inline arrow, not a class field: a field would be a closure (and a named function) per call, listened or not.
    this.#unlisten = listenForAbort(caller, () => this.#onCallerAbort())
  }

  /** True once the caller's signal has fired (before or during the call). */
  get fired(): boolean {
    return this.#fired
  }

  /** The caller's abort reason, once {@link fired}. */
  get reason(): unknown {
    return this.#reason
  }

  /** The call's own signal: fires when the caller's does. Created on first read. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController()
      // Nobody can have listened to a signal that did not exist yet: a plain abort is safe.
      if (this.#fired) this.#controller.abort(this.#reason)
    }
    return this.#controller.signal
  }

  /**
   * `value`, or {@link ABORTED} as soon as the caller aborts (at once when it already has). A call without a
   * caller's signal cannot be aborted, so `value` is awaited as it is. The race never rejects because of the abort;
   * `value`'s own rejection passes through.
   */
  race<T>(value: Promise<T>): Promise<T | typeof ABORTED> {
    if (this.#fired) return Promise.resolve(ABORTED)
    if (this.#unlisten === undefined) return value
    this.#aborted ??= new Promise<typeof ABORTED>((resolve) => {
      this.#resolveAborted = resolve
    })
    return Promise.race([value, this.#aborted])
  }

  /** The call is over: stops listening to the caller's signal (what was already delivered stands). */
  release(): void {
    const unlisten = this.#unlisten
    this.#unlisten = undefined
    unlisten?.()
  }

  #onCallerAbort(): void {
    if (this.#fired || this.#unlisten === undefined) return
    this.#fired = true
    this.#reason = this.#caller === undefined ? undefined : signalReason(this.#caller)
    this.#unlisten = undefined
    if (this.#controller !== undefined) abortIsolated(this.#controller, this.#reason, this.#report)
    this.#resolveAborted?.(ABORTED)
  }
}

/**
 * `value`, or {@link ABANDONED} when it has not settled `graceMs` after now. The timer is gone as soon as either
 * happens, and a late rejection of `value` is handled (by the caller of this function, who keeps `value`).
 */
export function withGrace<T>(value: Promise<T>, graceMs: number): Promise<T | typeof ABANDONED> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(ABANDONED), graceMs)
    value.then(
      (settled) => {
        clearTimeout(timer)
        resolve(settled)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}

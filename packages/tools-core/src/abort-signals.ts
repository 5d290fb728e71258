// Every use a dsh package makes of an AbortSignal it did not create goes through the functions here: the methods
// are the platform's own, captured when the module loads, so a signal whose own properties were replaced (or whose
// prototype was) cannot run code of its own through them, and nothing here throws.

const abortedGetter = Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'aborted')?.get
const reasonGetter = Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'reason')?.get
const addListener = EventTarget.prototype.addEventListener
const removeListener = EventTarget.prototype.removeEventListener
const apply = Reflect.apply

/**
 * True when `value` is a real `AbortSignal` (the platform's brand check: `AbortSignal.prototype`'s own `aborted`
 * getter accepts it). Look-alikes (an object with `aborted` and `addEventListener`) and polyfills are not.
 *
 * @param value - anything
 */
export function isAbortSignal(value: unknown): value is AbortSignal {
  if (typeof value !== 'object' || value === null || abortedGetter === undefined) return false
  try {
    return typeof apply(abortedGetter, value, []) === 'boolean'
  } catch {
    return false
  }
}

/**
 * Whether `signal` has fired, read through the platform's getter (a replaced `aborted` property is not consulted).
 * `false` when it cannot be read.
 *
 * @param signal - a real `AbortSignal` ({@link isAbortSignal})
 */
export function signalAborted(signal: AbortSignal): boolean {
  try {
    return abortedGetter !== undefined && apply(abortedGetter, signal, []) === true
  } catch {
    return false
  }
}

/**
 * The reason of a fired `signal`, read through the platform's getter; what the read threw, if it threw.
 *
 * @param signal - a real `AbortSignal` ({@link isAbortSignal})
 */
export function signalReason(signal: AbortSignal): unknown {
  try {
    return reasonGetter === undefined ? undefined : apply(reasonGetter, signal, [])
  } catch (error) {
    return error
  }
}

/** One listening of {@link listenForAbort} (an object of its own, so the same function listened twice is two). */
interface Listening {
  readonly listener: () => void
}

/** The one platform listener a signal gets, and the listenings it calls in order. */
interface Fanout {
  readonly listenings: Set<Listening>
  readonly onAbort: () => void
}

const fanouts = new WeakMap<AbortSignal, Fanout>()

/** Reports a listener's exception as the platform reports one of an `EventTarget` listener: uncaught, a tick later. */
function rethrowLater(error: unknown): void {
  const raise = (): never => {
    throw error
  }
  if (typeof process === 'object' && process !== null && typeof process.nextTick === 'function') process.nextTick(raise)
  else queueMicrotask(raise)
}

function fanoutOf(signal: AbortSignal): Fanout {
  const known = fanouts.get(signal)
  if (known !== undefined) return known
  const listenings = new Set<Listening>()
  const onAbort = (): void => {
    fanouts.delete(signal)
    for (const listening of listenings) {
      // One removed by an earlier listener of this abort is not called, as with the platform's own listeners.
      if (!listenings.delete(listening)) continue
      try {
        listening.listener()
      } catch (error) {
        rethrowLater(error)
      }
    }
  }
  apply(addListener, signal, ['abort', onAbort, { once: true }])
  const fanout = { listenings, onAbort }
  fanouts.set(signal, fanout)
  return fanout
}

/**
 * Listens once for `signal`'s abort with the platform's own `addEventListener` (a signal whose own methods were
 * replaced runs none of them), and returns the removal, which never throws.
 *
 * A signal gets ONE platform listener however many listenings it has: the platform's `addEventListener` walks the
 * signal's listeners on every add, so ten thousand calls sharing one caller signal took time in the square of their
 * number. The listenings are called in the order they were made; each call is a listening of its own (the same
 * function listened twice runs twice); one removed during the abort by an earlier one is not called; one made
 * during or after the abort never runs (as a platform listener added then); and an exception of one is reported
 * as the platform reports a listener's (uncaught, on the next tick), after the others ran.
 *
 * @param signal - a real `AbortSignal` ({@link isAbortSignal})
 * @param listener - called once, when the signal fires
 * @returns the function that removes the listener
 * @throws what the platform throws when the signal refuses the listener; treat that signal as unusable.
 */
export function listenForAbort(signal: AbortSignal, listener: () => void): () => void {
  const fanout = fanoutOf(signal)
  const listening: Listening = { listener }
  fanout.listenings.add(listening)
  return () => {
    if (!fanout.listenings.delete(listening) || fanout.listenings.size > 0) return
    // The last one is gone: so is the platform listener (a signal that lives on holds nothing of ours).
    if (fanouts.get(signal) === fanout) fanouts.delete(signal)
    try {
      apply(removeListener, signal, ['abort', fanout.onAbort])
    } catch {
      // Nothing to undo that could fire twice: the listener was added with `once`, and its set is empty.
    }
  }
}

/** What a window of {@link abortIsolated} reports a listener's exception to. */
export type AbortListenerReport = (error: unknown) => void

type HostListener = (...args: unknown[]) => void

// The open windows of this copy of the module. Windows open and close in the next-tick queue around each abort, so
// they nest (an abort inside a listener of another, from this copy or from another copy of the package) and never
// interleave: an inner window sets the outer one's listener aside and puts it back before the outer one closes.
const windows: AbortListenerReport[] = []
/** The listeners set aside while this copy's outermost window is open (the host's, or an outer copy's). */
let setAside: HostListener[] = []

function swallow(error: unknown): void {
  windows[windows.length - 1]?.(error)
}

function openWindow(report: AbortListenerReport): void {
  if (windows.length === 0) {
    // The host's listeners (a logger that exits, a test runner that fails the run) must not see an exception that
    // is reported instead: they are set aside for the window, in order, and put back when it closes.
    setAside = process.rawListeners('uncaughtException') as HostListener[]
    process.removeAllListeners('uncaughtException')
    process.on('uncaughtException', swallow)
  }
  windows.push(report)
}

function closeWindow(): void {
  windows.pop()
  if (windows.length > 0) return
  process.off('uncaughtException', swallow)
  const restored = setAside
  setAside = []
  for (const listener of restored) process.on('uncaughtException', listener)
}

/**
 * Aborts `controller` so that no listener of its signal can take the process down. Node.js reports an exception
 * thrown by an `EventTarget` listener (an `abort` listener a tool added, an `onabort` handler, a listener of a
 * signal derived with `AbortSignal.any`) by rethrowing it from `process.nextTick`, as an uncaught exception, which
 * ends the process. Those rethrows are queued while `abort()` runs, so they run in the next-tick queue between a
 * tick queued just before the abort and one queued just after it: for exactly that window an `uncaughtException`
 * listener hands them to `report` instead, and the host's own `uncaughtException` listeners are set aside
 * meanwhile (so a handler that exits the process does not see them either). Any other exception, before or after,
 * stays as uncaught as it was. Windows nest (an abort inside a listener of another, also across two copies of this
 * package in one process). Where there is no `process` (a browser), the abort is plain.
 *
 * @param controller - the controller to abort
 * @param reason - the abort reason
 * @param report - receives each exception a listener threw; an exception of `report` itself is dropped
 */
export function abortIsolated(controller: AbortController, reason: unknown, report: AbortListenerReport): void {
  const safeReport: AbortListenerReport = (error) => {
    try {
      report(error)
    } catch {
      // The report is for developers; a failing logger must not bring back the crash it exists to prevent.
    }
  }
  const ticks = typeof process === 'object' && process !== null && typeof process.nextTick === 'function'
  if (ticks) process.nextTick(openWindow, safeReport)
  try {
    controller.abort(reason)
  } catch (error) {
    safeReport(error)
  } finally {
    if (ticks) process.nextTick(closeWindow)
  }
}

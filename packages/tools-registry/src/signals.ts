// Every use the registry makes of an AbortSignal it did not create goes through the functions here: the methods are
// the platform's own, captured when the module loads, so a signal whose own properties were replaced (or whose
// prototype was) cannot run code of its own through them, and nothing here throws.

const abortedGetter = Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'aborted')?.get
const reasonGetter = Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'reason')?.get
const addListener = EventTarget.prototype.addEventListener
const removeListener = EventTarget.prototype.removeEventListener
const apply = Reflect.apply

/**
 * True when `value` is a real `AbortSignal` (the platform's brand check: `AbortSignal.prototype`'s own `aborted`
 * getter accepts it). Look-alikes (an object with `aborted` and `addEventListener`) and polyfills are not.
 */
export function isAbortSignal(value: unknown): value is AbortSignal {
  if (typeof value !== 'object' || value === null || abortedGetter === undefined) return false
  try {
    return typeof apply(abortedGetter, value, []) === 'boolean'
  } catch {
    return false
  }
}

/** Whether `signal` has fired, read through the platform's getter. `false` when it cannot be read. */
export function signalAborted(signal: AbortSignal): boolean {
  try {
    return abortedGetter !== undefined && apply(abortedGetter, signal, []) === true
  } catch {
    return false
  }
}

/** The reason of a fired `signal`, read through the platform's getter (what the read threw, if it threw). */
export function signalReason(signal: AbortSignal): unknown {
  try {
    return reasonGetter === undefined ? undefined : apply(reasonGetter, signal, [])
  } catch (error) {
    return error
  }
}

/**
 * Listens once for `signal`'s abort with the platform's `addEventListener`, and returns the removal (which never
 * throws). Throws when the signal refuses the listener; callers treat that signal as unusable.
 */
export function listenForAbort(signal: AbortSignal, listener: () => void): () => void {
  apply(addListener, signal, ['abort', listener, { once: true }])
  return () => {
    try {
      apply(removeListener, signal, ['abort', listener])
    } catch {
      // A signal that cannot even remove a listener holds nothing of ours that could fire twice: `once` above.
    }
  }
}

/** What a window of {@link abortIsolated} reports a listener's exception to. */
type Report = (error: unknown) => void

const windows: Report[] = []
/** The host's own `uncaughtException` listeners, set aside while a window is open. */
let setAside: Array<(...args: unknown[]) => void> = []

function swallow(error: unknown): void {
  windows[windows.length - 1]?.(error)
}

function openWindow(report: Report): void {
  if (windows.length === 0) {
    // The host's listeners (a logger that exits, a test runner that fails the run) must not see an exception that
    // is reported instead: they are set aside for the window, in order, and put back when it closes.
    setAside = process.rawListeners('uncaughtException') as Array<(...args: unknown[]) => void>
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
 * listener hands them to `report` instead (the host's own `uncaughtException` listeners are set aside meanwhile, so
 * a handler that exits the process does not see them either). Any other exception, before or after, stays uncaught
 * as it was. Where
 * there is no `process` (a browser), the abort is plain.
 */
export function abortIsolated(controller: AbortController, reason: unknown, report: Report): void {
  const safeReport: Report = (error) => {
    try {
      report(error)
    } catch {
      // The report is for developers; a failing logger must not bring back the crash it exists to prevent.
    }
  }
  const ticks = typeof process === 'object' && process !== null && typeof process.nextTick === 'function'
  if (!ticks) {
    try {
      controller.abort(reason)
    } catch (error) {
      safeReport(error)
    }
    return
  }
  process.nextTick(openWindow, safeReport)
  try {
    controller.abort(reason)
  } catch (error) {
    safeReport(error)
  } finally {
    process.nextTick(closeWindow)
  }
}

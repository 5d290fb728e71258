// How the policy touches signals it did not create, and aborts the ones it did, so that no listener of a tool can
// take the process down. (The registry keeps the same rule for the signals it owns; each package holds its own
// copy of these few lines, so neither reaches into the other.)

const reasonGetter = Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'reason')?.get
const addListener = EventTarget.prototype.addEventListener
const removeListener = EventTarget.prototype.removeEventListener
const apply = Reflect.apply

/** The reason of a fired `signal`, read through the platform's getter (what the read threw, if it threw). */
export function signalReason(signal: AbortSignal): unknown {
  try {
    return reasonGetter === undefined ? undefined : apply(reasonGetter, signal, [])
  } catch (error) {
    return error
  }
}

/**
 * Listens once for `signal`'s abort with the platform's own `addEventListener` (a signal whose own methods were
 * replaced runs none of them), and returns the removal, which never throws. Throws when the signal refuses.
 */
export function listenForAbort(signal: AbortSignal, listener: () => void): () => void {
  apply(addListener, signal, ['abort', listener, { once: true }])
  return () => {
    try {
      apply(removeListener, signal, ['abort', listener])
    } catch {
      // Nothing to undo that could fire twice: the listener was added with `once`.
    }
  }
}

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
 * Aborts `controller` so that no listener of its signal can crash the process. Node.js rethrows an exception of an
 * `EventTarget` listener (a tool's `abort` listener, an `onabort` handler, a listener of a signal derived with
 * `AbortSignal.any`) from `process.nextTick`, as an uncaught exception. Those rethrows are queued while `abort()`
 * runs, so they run between a tick queued just before it and one queued just after it; for exactly that window an
 * `uncaughtException` listener hands them to `report`, and the host's own listeners are set aside (so a handler
 * that exits the process does not see them). Every other exception stays as uncaught as it was.
 */
export function abortIsolated(controller: AbortController, reason: unknown, report: Report): void {
  const safeReport: Report = (error) => {
    try {
      report(error)
    } catch {
      // A failing logger must not bring back the crash this exists to prevent.
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

function ignore(): void {}

/**
 * True when `value` is a thenable (a promise a callback handed back where a value was due). It is then observed: its
 * rejection is never left unhandled, whatever is done with the refusal. Never throws (a `then` getter that throws
 * counts as no thenable).
 */
export function observedThenable(value: unknown): boolean {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false
  try {
    const then: unknown = (value as { then?: unknown }).then
    if (typeof then !== 'function') return false
    ;(then as (onFulfilled: () => void, onRejected: () => void) => unknown).call(value, ignore, ignore)
    return true
  } catch {
    return false
  }
}

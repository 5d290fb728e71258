import type { McpRestartPolicy } from './server-config.js'

/** The failures of the last `windowMs`: the count drives the backoff, and the circuit breaker where there is one. */
export class FailureWindow {
  #at: number[] = []
  readonly #windowMs: number

  constructor(windowMs: number) {
    this.#windowMs = windowMs
  }

  /** Records a failure at `now` and returns how many fell within the window, this one included. */
  record(now: number = Date.now()): number {
    this.#at = this.#at.filter((at) => now - at < this.#windowMs)
    this.#at.push(now)
    return this.#at.length
  }
}

/**
 * The wait before the next attempt after `failures` failures within the window: `initialDelayMs` doubled per
 * failure, capped at `maxDelayMs`. With `jitter` (a function like `Math.random`), "equal jitter": a uniformly
 * random wait between half of that and all of it, so clients that lost the same server do not come back in step.
 */
export function backoffDelay(policy: Pick<McpRestartPolicy, 'initialDelayMs' | 'maxDelayMs'>, failures: number, jitter?: () => number): number {
  const exponent = Math.max(0, Math.min(failures - 1, 30))
  const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** exponent)
  if (jitter === undefined) return base
  return Math.round(base / 2 + (base / 2) * Math.min(1, Math.max(0, jitter())))
}

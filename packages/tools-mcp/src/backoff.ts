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

/** What {@link RestartBreaker.failure} counted. */
export interface BreakerCount {
  /** The count that paces the backoff and trips the breaker: the larger of the two below. */
  readonly failures: number
  /** Failures in a row since the server was last ready (every failed connect of a server that never got ready). */
  readonly inARow: number
  /** Failures within the sliding window. */
  readonly inWindow: number
}

/**
 * The circuit breaker of a server connection. Failures add up two ways, and either count can trip it:
 *
 * - within the sliding `windowMs` (a server that crashes again and again after it got ready), and
 * - in a row, however long they took, until the server is ready again. Time alone cannot be the measure: a server
 *   that accepts connections and never answers fails each attempt only when the connect budget runs out (30 s by
 *   default), so fewer attempts than the limit fit any window, and the breaker could never trip.
 */
export class RestartBreaker {
  readonly #window: FailureWindow
  #inARow = 0

  constructor(windowMs: number) {
    this.#window = new FailureWindow(windowMs)
  }

  /** Records a failure at `now`. */
  failure(now: number = Date.now()): BreakerCount {
    const inWindow = this.#window.record(now)
    this.#inARow += 1
    return { failures: Math.max(inWindow, this.#inARow), inARow: this.#inARow, inWindow }
  }

  /** The server is ready: the failures in a row start over (those within the window still count). */
  ready(): void {
    this.#inARow = 0
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

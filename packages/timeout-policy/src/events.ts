import type { ToolExecution, ToolExecutionResult } from '@dsh/tools-core'

/** What the late settlement of an abandoned call and its policy have in common. */
interface LateSettlementBase {
  /** The call's id. */
  readonly callId: string
  /** The tool's name. */
  readonly name: string
  /** The call (frozen by then: the pipeline delivered the abandoned result long before). */
  readonly execution: Readonly<ToolExecution>
  /** The budget that ran out, in milliseconds. */
  readonly timeoutMs: number
  /** The grace the policy waited after the deadline before abandoning the call, in milliseconds. */
  readonly graceMs: number
  /** How long after the deadline the call settled, in milliseconds (at least `graceMs`). */
  readonly lateByMs: number
}

/**
 * An abandoned call settled after all: the payload of `timeout/late-settlement`. Its outcome was ignored (the call
 * had already resolved as `TOOL_TIMEOUT_ABANDONED`, and `tools/result` had been told); this event exists so the fact
 * can be logged. `status` follows `Promise.allSettled`: `fulfilled` with the `result` the inner pipeline produced
 * (the tool's result, or the error result it failed with), or `rejected` with the `reason` when something inside
 * the dispatch threw past the registry.
 */
export type LateSettlement =
  | (LateSettlementBase & {
      /** The dispatch produced a result. */
      readonly status: 'fulfilled'
      /** What it produced (ignored by the pipeline). */
      readonly result: ToolExecutionResult
    })
  | (LateSettlementBase & {
      /** The dispatch threw. */
      readonly status: 'rejected'
      /** What it threw. */
      readonly reason: unknown
    })

declare module 'cordis' {
  interface Events {
    /**
     * A call the timeout policy abandoned (`TOOL_TIMEOUT_ABANDONED`) settled after all; its outcome was ignored.
     * Emitted synchronously when it settles, for logging. See {@link LateSettlement}.
     */
    'timeout/late-settlement'(settlement: LateSettlement): void
  }
}

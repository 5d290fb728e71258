import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const toolTimeoutAbandonedErrorBrand: symbol = errorBrand('ToolTimeoutAbandonedError')

/**
 * A tool call ran past its timeout budget and then did not settle within the grace period after its signal fired
 * (code `TOOL_TIMEOUT_ABANDONED`): the policy stopped waiting for it. Unlike `TOOL_TIMEOUT`, nothing says the tool
 * stopped: its side effects may still be running. The call's result carries
 * `error: { name: 'ToolTimeoutAbandonedError', code: 'TOOL_TIMEOUT_ABANDONED' }`.
 */
export class ToolTimeoutAbandonedError extends DshError {
  static override readonly brand: symbol = toolTimeoutAbandonedErrorBrand

  /** True when `value` is a {@link ToolTimeoutAbandonedError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is ToolTimeoutAbandonedError {
    return DshError.hasBrand(value, toolTimeoutAbandonedErrorBrand)
  }

  override readonly name: string = 'ToolTimeoutAbandonedError'
  declare readonly code: 'TOOL_TIMEOUT_ABANDONED'
  /** The budget that ran out, in milliseconds. */
  readonly timeoutMs: number
  /** How long the policy waited after the deadline before abandoning the call, in milliseconds. */
  readonly graceMs: number

  /**
   * @param timeoutMs - the budget that ran out
   * @param graceMs - how long the policy waited after the deadline
   * @param message - defaults to a sentence naming both
   * @param options - `cause`
   */
  constructor(
    timeoutMs: number,
    graceMs: number,
    message = `Tool call timed out after ${timeoutMs}ms and did not stop within ${graceMs}ms; it was abandoned and its side effects may still be running`,
    options?: DshErrorOptions,
  ) {
    super('TOOL_TIMEOUT_ABANDONED', message, options)
    this.timeoutMs = timeoutMs
    this.graceMs = graceMs
  }
}

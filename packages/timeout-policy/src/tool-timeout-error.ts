import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const toolTimeoutErrorBrand: symbol = errorBrand('ToolTimeoutError')

/**
 * A tool call ran past its timeout budget (code `TOOL_TIMEOUT`). The timeout policy puts one on the call's signal
 * as the abort reason when the deadline fires (`exec.signal.reason`), so a tool that rethrows the reason, and code
 * that inspects it, can tell this deadline from any other abort. The call's result carries
 * `error: { name: 'ToolTimeoutError', code: 'TOOL_TIMEOUT' }`.
 */
export class ToolTimeoutError extends DshError {
  static override readonly brand: symbol = toolTimeoutErrorBrand

  /** True when `value` is a {@link ToolTimeoutError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is ToolTimeoutError {
    return DshError.hasBrand(value, toolTimeoutErrorBrand)
  }

  override readonly name: string = 'ToolTimeoutError'
  declare readonly code: 'TOOL_TIMEOUT'
  /** The budget that ran out, in milliseconds. */
  readonly timeoutMs: number

  /**
   * @param timeoutMs - the budget that ran out
   * @param message - defaults to `Tool call timed out after <timeoutMs>ms`
   * @param options - `cause`
   */
  constructor(timeoutMs: number, message = `Tool call timed out after ${timeoutMs}ms`, options?: DshErrorOptions) {
    super('TOOL_TIMEOUT', message, options)
    this.timeoutMs = timeoutMs
  }
}

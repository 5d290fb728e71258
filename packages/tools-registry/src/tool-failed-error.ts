import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const toolFailedErrorBrand: symbol = errorBrand('ToolFailedError')

/**
 * A tool body or a `tools/execute` wrapper threw something that is not a coded {@link DshError} (code
 * `TOOL_FAILED`); the thrown value is the `cause`. A coded error keeps its own `{ name, code }` instead.
 */
export class ToolFailedError extends DshError {
  static override readonly brand: symbol = toolFailedErrorBrand

  /** True when `value` is a {@link ToolFailedError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is ToolFailedError {
    return DshError.hasBrand(value, toolFailedErrorBrand)
  }

  override readonly name: string = 'ToolFailedError'
  declare readonly code: 'TOOL_FAILED'

  /**
   * @param message - what failed, including the thrown error's own message
   * @param options - `cause`: the thrown value
   */
  constructor(message: string, options?: DshErrorOptions) {
    super('TOOL_FAILED', message, options)
  }
}

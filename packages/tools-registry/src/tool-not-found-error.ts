import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const toolNotFoundErrorBrand: symbol = errorBrand('ToolNotFoundError')

/**
 * The called tool does not exist for the calling agent (code `UNKNOWN_TOOL`): it was never registered, it was
 * unregistered, or the agent's restrictions hide it. Reported before any policy runs, as an `isError` result.
 */
export class ToolNotFoundError extends DshError {
  static override readonly brand: symbol = toolNotFoundErrorBrand

  /** True when `value` is a {@link ToolNotFoundError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is ToolNotFoundError {
    return DshError.hasBrand(value, toolNotFoundErrorBrand)
  }

  override readonly name: string = 'ToolNotFoundError'
  declare readonly code: 'UNKNOWN_TOOL'

  /**
   * @param message - which tool is unknown, and which ones exist
   * @param options - `cause`
   */
  constructor(message: string, options?: DshErrorOptions) {
    super('UNKNOWN_TOOL', message, options)
  }
}

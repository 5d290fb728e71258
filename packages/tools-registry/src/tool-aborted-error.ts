import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const toolAbortedErrorBrand: symbol = errorBrand('ToolAbortedError')

/**
 * A call was cancelled through its signal: before its body ran (`ABORTED_BEFORE_DISPATCH`: no side effect
 * happened) or while it ran (`ABORTED`: the body failed after the signal fired).
 */
export class ToolAbortedError extends DshError {
  static override readonly brand: symbol = toolAbortedErrorBrand

  /** True when `value` is a {@link ToolAbortedError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is ToolAbortedError {
    return DshError.hasBrand(value, toolAbortedErrorBrand)
  }

  override readonly name: string = 'ToolAbortedError'
  declare readonly code: 'ABORTED' | 'ABORTED_BEFORE_DISPATCH'

  /**
   * @param code - whether the body had started
   * @param message - what was cancelled
   * @param options - `cause` (the signal's reason, or what the body threw)
   */
  constructor(code: 'ABORTED' | 'ABORTED_BEFORE_DISPATCH', message: string, options?: DshErrorOptions) {
    super(code, message, options)
  }
}

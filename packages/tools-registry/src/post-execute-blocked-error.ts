import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const postExecuteBlockedErrorBrand: symbol = errorBrand('PostExecuteBlockedError')

/**
 * A `tools/post-execute` listener blocked the result (code `POST_EXECUTE_BLOCKED`): the call became an error whose
 * content is the listener's feedback.
 */
export class PostExecuteBlockedError extends DshError {
  static override readonly brand: symbol = postExecuteBlockedErrorBrand

  /** True when `value` is a {@link PostExecuteBlockedError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is PostExecuteBlockedError {
    return DshError.hasBrand(value, postExecuteBlockedErrorBrand)
  }

  override readonly name: string = 'PostExecuteBlockedError'
  declare readonly code: 'POST_EXECUTE_BLOCKED'

  /**
   * @param message - a summary for logs (the model sees the listener's feedback)
   * @param options - `cause`
   */
  constructor(message: string, options?: DshErrorOptions) {
    super('POST_EXECUTE_BLOCKED', message, options)
  }
}

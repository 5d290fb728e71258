import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

/** Why a foreground command was stopped before it finished: the call was cancelled, or the tools were unloaded. */
export type BashAbortReason = 'abort' | 'dispose'

const bashAbortedErrorBrand: symbol = errorBrand('BashAbortedError')

/**
 * A foreground `bash` call was stopped before its command finished (code `ABORTED`): the call's signal fired (the
 * user cancelled the turn, a timeout policy's deadline passed) or the bash tools or the executor were unloaded. The
 * whole process tree was stopped. The message is what the model reads: it says so, followed by the output the
 * command printed before it stopped.
 */
export class BashAbortedError extends DshError {
  static override readonly brand: symbol = bashAbortedErrorBrand

  /** True when `value` is a {@link BashAbortedError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is BashAbortedError {
    return DshError.hasBrand(value, bashAbortedErrorBrand)
  }

  override readonly name: string = 'BashAbortedError'
  /** What stopped the command. */
  readonly reason: BashAbortReason

  constructor(reason: BashAbortReason, message: string, options?: DshErrorOptions) {
    super('ABORTED', message, options)
    this.reason = reason
  }
}

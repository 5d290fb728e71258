import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

/** The codes of a policy denial: a `deny` decision, a guard, or an `ask` that did not end in `allowed-once`. */
export type ToolDenialCode =
  | 'DENIED'
  | 'GUARD_DENIED'
  | 'APPROVAL_REJECTED'
  | 'APPROVAL_CANCELLED'
  | 'APPROVAL_UNAVAILABLE'
  | 'APPROVAL_NO_SERVICE'
  | 'APPROVAL_NO_AGENT'

const toolDeniedErrorBrand: symbol = errorBrand('ToolDeniedError')

/**
 * A call that policy did not let run: a `tools/pre-execute` listener denied it (`DENIED`), a guard denied it
 * (`GUARD_DENIED`), or an approval was asked for and not granted (`APPROVAL_REJECTED`, `APPROVAL_CANCELLED`,
 * `APPROVAL_UNAVAILABLE`, `APPROVAL_NO_SERVICE`, `APPROVAL_NO_AGENT`).
 */
export class ToolDeniedError extends DshError {
  static override readonly brand: symbol = toolDeniedErrorBrand

  /** True when `value` is a {@link ToolDeniedError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is ToolDeniedError {
    return DshError.hasBrand(value, toolDeniedErrorBrand)
  }

  override readonly name: string = 'ToolDeniedError'
  declare readonly code: ToolDenialCode

  /**
   * @param code - which policy denied the call
   * @param message - why, for the model
   * @param options - `cause`
   */
  constructor(code: ToolDenialCode, message: string, options?: DshErrorOptions) {
    super(code, message, options)
  }
}

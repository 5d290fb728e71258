import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const presentationOptionsErrorBrand: symbol = errorBrand('PresentationOptionsError')

/**
 * Options given to a presentation function are unusable (code `INVALID_CONFIG`), for example an ACP session `cwd`
 * that is not an absolute path. `option` names the offending option.
 */
export class PresentationOptionsError extends DshError {
  static override readonly brand: symbol = presentationOptionsErrorBrand

  /** True when `value` is a {@link PresentationOptionsError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is PresentationOptionsError {
    return DshError.hasBrand(value, presentationOptionsErrorBrand)
  }

  override readonly name: string = 'PresentationOptionsError'
  /** The name of the offending option, for example `cwd`. */
  readonly option: string

  /**
   * @param option - the name of the offending option
   * @param message - what is wrong and what is expected
   * @param options - `cause`
   */
  constructor(option: string, message: string, options?: DshErrorOptions) {
    super('INVALID_CONFIG', message, options)
    this.option = option
  }
}

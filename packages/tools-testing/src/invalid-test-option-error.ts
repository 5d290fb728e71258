import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const invalidTestOptionErrorBrand: symbol = errorBrand('InvalidTestOptionError')

/** An option given to a tools-testing helper is invalid (code `INVALID_CONFIG`). `option` names it. */
export class InvalidTestOptionError extends DshError {
  static override readonly brand: symbol = invalidTestOptionErrorBrand

  /** True when `value` is an {@link InvalidTestOptionError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is InvalidTestOptionError {
    return DshError.hasBrand(value, invalidTestOptionErrorBrand)
  }

  override readonly name: string = 'InvalidTestOptionError'
  /** The option, for example `maxSteps` or `plugins[1]`. */
  readonly option: string

  /**
   * @param option - the option's name or path
   * @param message - what is wrong with it
   * @param options - `cause`
   */
  constructor(option: string, message: string, options?: DshErrorOptions) {
    super('INVALID_CONFIG', `invalid option ${option}: ${message}`, options)
    this.option = option
  }
}

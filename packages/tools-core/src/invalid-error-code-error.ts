import { DshError, errorBrand, type DshErrorOptions } from './dsh-error.js'

const invalidErrorCodeErrorBrand: symbol = errorBrand('InvalidErrorCodeError')

/**
 * {@link defineToolErrorCodes} was given a family or suffixes that cannot make tool-owned codes (code
 * `INVALID_TOOL_DEFINITION`): not UPPER_SNAKE, a family starting with a word reserved for core codes, a duplicate
 * suffix, a code that is too long. `problems` lists each one.
 */
export class InvalidErrorCodeError extends DshError {
  static override readonly brand: symbol = invalidErrorCodeErrorBrand

  /** True when `value` is an {@link InvalidErrorCodeError} from any installed copy of tools-core. */
  static override isInstance(value: unknown): value is InvalidErrorCodeError {
    return DshError.hasBrand(value, invalidErrorCodeErrorBrand)
  }

  override readonly name: string = 'InvalidErrorCodeError'
  /** Every problem found, one sentence each. */
  readonly problems: readonly string[]

  /**
   * @param problems - what is wrong, one entry each
   * @param options - `cause`
   */
  constructor(problems: readonly string[], options?: DshErrorOptions) {
    super('INVALID_TOOL_DEFINITION', `Invalid tool error codes: ${problems.join('; ')}.`, options)
    this.problems = Object.freeze([...problems])
  }
}

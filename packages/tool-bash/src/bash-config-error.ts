import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const bashConfigErrorBrand: symbol = errorBrand('BashConfigError')

/**
 * The executor's configuration was rejected when the plugin loaded (code `INVALID_CONFIG`). `issues` lists every
 * problem, each starting with the key it concerns (`maxTimeoutMs: must be an integer …`).
 */
export class BashConfigError extends DshError {
  static override readonly brand: symbol = bashConfigErrorBrand

  /** True when `value` is a {@link BashConfigError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is BashConfigError {
    return DshError.hasBrand(value, bashConfigErrorBrand)
  }

  override readonly name: string = 'BashConfigError'
  /** Every problem found, one per entry. */
  readonly issues: readonly string[]

  constructor(issues: readonly string[], options?: DshErrorOptions) {
    super('INVALID_CONFIG', `invalid bash executor config:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`, options)
    this.issues = Object.freeze([...issues])
  }
}

import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const bashToolsConfigErrorBrand: symbol = errorBrand('BashToolsConfigError')

/**
 * The configuration of the bash tools plugin ({@link BashTools}) or of the combined plugin ({@link LocalBashTools})
 * was rejected when it loaded (code `INVALID_CONFIG`). `issues` lists every problem, each starting with the key it
 * concerns (`maxBackgroundTasks: must be an integer …`).
 */
export class BashToolsConfigError extends DshError {
  static override readonly brand: symbol = bashToolsConfigErrorBrand

  /** True when `value` is a {@link BashToolsConfigError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is BashToolsConfigError {
    return DshError.hasBrand(value, bashToolsConfigErrorBrand)
  }

  override readonly name: string = 'BashToolsConfigError'
  /** Every problem found, one per entry. */
  readonly issues: readonly string[]

  constructor(issues: readonly string[], options?: DshErrorOptions) {
    super('INVALID_CONFIG', `invalid bash tools config:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`, options)
    this.issues = Object.freeze([...issues])
  }
}

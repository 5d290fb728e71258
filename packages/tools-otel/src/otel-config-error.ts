import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const otelConfigErrorBrand: symbol = errorBrand('OtelConfigError')

/**
 * The configuration of {@link ToolTelemetry} was rejected (code `INVALID_CONFIG`) when the plugin loaded. `issues`
 * lists every problem, each starting with the key it concerns (`content.maxLength: must be an integer from 16 to
 * 1048576, got 3`).
 */
export class OtelConfigError extends DshError {
  static override readonly brand: symbol = otelConfigErrorBrand

  /** True when `value` is an {@link OtelConfigError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is OtelConfigError {
    return DshError.hasBrand(value, otelConfigErrorBrand)
  }

  override readonly name: string = 'OtelConfigError'
  declare readonly code: 'INVALID_CONFIG'
  /** Every problem found, one per entry. */
  readonly issues: readonly string[]

  /**
   * @param issues - every problem found, each starting with the key it concerns
   * @param options - `cause`
   */
  constructor(issues: readonly string[], options?: DshErrorOptions) {
    super('INVALID_CONFIG', `invalid tools-otel config:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`, options)
    this.issues = Object.freeze([...issues])
  }
}

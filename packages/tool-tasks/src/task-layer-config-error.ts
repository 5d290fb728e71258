import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const taskLayerConfigErrorBrand: symbol = errorBrand('TaskLayerConfigError')

/**
 * The task layer's configuration was rejected when the plugin loaded (code `INVALID_CONFIG`). `issues` lists every
 * problem, each starting with the key it concerns (`maxRunningPerAgent: must be an integer …`).
 */
export class TaskLayerConfigError extends DshError {
  static override readonly brand: symbol = taskLayerConfigErrorBrand

  /** True when `value` is a {@link TaskLayerConfigError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is TaskLayerConfigError {
    return DshError.hasBrand(value, taskLayerConfigErrorBrand)
  }

  override readonly name: string = 'TaskLayerConfigError'
  /** Every problem found, one per entry. */
  readonly issues: readonly string[]

  constructor(issues: readonly string[], options?: DshErrorOptions) {
    super('INVALID_CONFIG', `invalid task layer config:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`, options)
    this.issues = Object.freeze([...issues])
  }
}

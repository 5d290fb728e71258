import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const taskStoreConfigErrorBrand: symbol = errorBrand('TaskStoreConfigError')

/** {@link JsonlTaskStore}'s options were rejected (code `INVALID_CONFIG`). `issues` lists every problem. */
export class TaskStoreConfigError extends DshError {
  static override readonly brand: symbol = taskStoreConfigErrorBrand

  /** True when `value` is a {@link TaskStoreConfigError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is TaskStoreConfigError {
    return DshError.hasBrand(value, taskStoreConfigErrorBrand)
  }

  override readonly name: string = 'TaskStoreConfigError'
  /** Every problem found, each starting with the option it concerns. */
  readonly issues: readonly string[]

  constructor(issues: readonly string[], options?: DshErrorOptions) {
    super('INVALID_CONFIG', `invalid JsonlTaskStore options:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`, options)
    this.issues = Object.freeze([...issues])
  }
}

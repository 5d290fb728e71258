import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const invalidStepOptionsErrorBrand: symbol = errorBrand('InvalidStepOptionsError')

/**
 * `executeStep` was called with something that is not a step (code `INVALID_CONFIG`): `calls` that is not an array
 * (or whose length cannot be read), or options that are not `{ agent?, signal?, concurrency?, failFast?, onBatch?,
 * onResult? }` as documented (a `concurrency` that is not a positive integer, a `signal` that is not an
 * `AbortSignal`, …). Thrown synchronously, before any call runs: it is a fault of the harness, not of the model.
 * A malformed *call* inside a well-formed step is never thrown: it becomes that call's error result.
 */
export class InvalidStepOptionsError extends DshError {
  static override readonly brand: symbol = invalidStepOptionsErrorBrand

  /** True when `value` is an {@link InvalidStepOptionsError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is InvalidStepOptionsError {
    return DshError.hasBrand(value, invalidStepOptionsErrorBrand)
  }

  override readonly name: string = 'InvalidStepOptionsError'
  declare readonly code: 'INVALID_CONFIG'
  /** The option (or `calls`) that is wrong. */
  readonly field: string

  /**
   * @param field - the option that is wrong (`concurrency`, `signal`, `calls`)
   * @param message - what is wrong and what is expected
   * @param options - `cause`
   */
  constructor(field: string, message: string, options?: DshErrorOptions) {
    super('INVALID_CONFIG', message, options)
    this.field = field
  }
}

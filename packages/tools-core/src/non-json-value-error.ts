import { DshError, errorBrand, type DshErrorOptions } from './dsh-error.js'
import type { JsonSnapshotFailure } from './json-snapshot.js'

const nonJsonValueErrorBrand: symbol = errorBrand('NonJsonValueError')

/** A value that had to be lossless JSON was not (code `NON_JSON_VALUE`). Thrown by {@link toJsonValue}. */
export class NonJsonValueError extends DshError {
  static override readonly brand: symbol = nonJsonValueErrorBrand

  /** True when `value` is a {@link NonJsonValueError} from any installed copy of tools-core. */
  static override isInstance(value: unknown): value is NonJsonValueError {
    return DshError.hasBrand(value, nonJsonValueErrorBrand)
  }

  override readonly name: string = 'NonJsonValueError'
  /** Where and why the value was rejected. */
  readonly failure: JsonSnapshotFailure

  constructor(failure: JsonSnapshotFailure, options?: DshErrorOptions) {
    super('NON_JSON_VALUE', failure.message, options)
    this.failure = failure
  }
}

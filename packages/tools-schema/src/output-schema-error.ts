import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import { ProblemListError } from './problem-list-error.js'
import type { SchemaProblem } from './schema-problem.js'

const outputSchemaErrorBrand: symbol = errorBrand('OutputSchemaError')

/**
 * A structured-output schema uses something outside the supported subset (code `UNSUPPORTED_OUTPUT_SCHEMA`).
 * Thrown by `assertSupportedOutputSchema`; `problems` lists every violation, each with its path.
 */
export class OutputSchemaError extends ProblemListError {
  static override readonly brand: symbol = outputSchemaErrorBrand

  /** True when `value` is an {@link OutputSchemaError} from any installed copy of tools-schema. */
  static override isInstance(value: unknown): value is OutputSchemaError {
    return DshError.hasBrand(value, outputSchemaErrorBrand)
  }

  override readonly name: string = 'OutputSchemaError'

  /**
   * @param problems - every violation found (at least one)
   * @param options - `cause`
   */
  constructor(problems: readonly SchemaProblem[], options?: DshErrorOptions) {
    super('UNSUPPORTED_OUTPUT_SCHEMA', 'The output schema is outside the supported subset', problems, options)
  }
}

import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import { ProblemListError } from './problem-list-error.js'
import type { SchemaProblem } from './schema-problem.js'

const jsonSchemaErrorBrand: symbol = errorBrand('JsonSchemaError')

/**
 * A schema DSL spec uses something the DSL does not support, or uses a supported keyword wrongly (code
 * `UNSUPPORTED_SCHEMA`). Thrown at definition time; `problems` lists every problem found, each with its path.
 */
export class JsonSchemaError extends ProblemListError {
  static override readonly brand: symbol = jsonSchemaErrorBrand

  /** True when `value` is a {@link JsonSchemaError} from any installed copy of tools-schema. */
  static override isInstance(value: unknown): value is JsonSchemaError {
    return DshError.hasBrand(value, jsonSchemaErrorBrand)
  }

  override readonly name: string = 'JsonSchemaError'

  /**
   * @param problems - every problem found (at least one)
   * @param options - `cause`
   */
  constructor(problems: readonly SchemaProblem[], options?: DshErrorOptions) {
    super('UNSUPPORTED_SCHEMA', 'The schema is not supported', problems, options)
  }
}

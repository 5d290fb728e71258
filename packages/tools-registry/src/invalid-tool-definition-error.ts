import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const invalidToolDefinitionErrorBrand: symbol = errorBrand('InvalidToolDefinitionError')

/**
 * A tool definition that a model or a provider would reject later (code `INVALID_TOOL_DEFINITION`): a bad name,
 * a description that is not a string, parameters that are not a lossless JSON object schema, a `timeoutMs` out of
 * range, or an `execute` that is not a function. Thrown by `register`.
 */
export class InvalidToolDefinitionError extends DshError {
  static override readonly brand: symbol = invalidToolDefinitionErrorBrand

  /** True when `value` is an {@link InvalidToolDefinitionError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is InvalidToolDefinitionError {
    return DshError.hasBrand(value, invalidToolDefinitionErrorBrand)
  }

  override readonly name: string = 'InvalidToolDefinitionError'
  declare readonly code: 'INVALID_TOOL_DEFINITION'
  /** The offending field of the definition, as a path: `name`, `timeoutMs`, `parameters.properties.path`. */
  readonly field: string

  /**
   * @param field - the offending field, as a path into the definition
   * @param message - what is wrong and what is expected
   * @param options - `cause`
   */
  constructor(field: string, message: string, options?: DshErrorOptions) {
    super('INVALID_TOOL_DEFINITION', message, options)
    this.field = field
  }
}

import { DshError, errorBrand } from '@dsh/tools-core'

const mcpConfigErrorBrand: symbol = errorBrand('McpConfigError')

/** The configuration of an MCP server plugin is invalid (code `INVALID_CONFIG`); the message lists every problem. */
export class McpConfigError extends DshError {
  static override readonly brand: symbol = mcpConfigErrorBrand

  /** True when `value` is an {@link McpConfigError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is McpConfigError {
    return DshError.hasBrand(value, mcpConfigErrorBrand)
  }

  override readonly name: string = 'McpConfigError'
  /** Each problem, as `field: what is wrong`. */
  readonly issues: readonly string[]

  constructor(issues: readonly string[]) {
    super('INVALID_CONFIG', `Invalid MCP server configuration:\n${issues.map((issue) => `- ${issue}`).join('\n')}`)
    this.issues = Object.freeze([...issues])
  }
}

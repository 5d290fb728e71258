import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import { PROVIDER_ERROR_CODES } from './error-codes.js'
import type { SchemaIssue } from './schema-issue.js'

const providerSchemaErrorBrand: symbol = errorBrand('ProviderSchemaError')

/**
 * A tool list could not be built because the chosen schema profile cannot express a tool's parameter schema
 * faithfully (code `PROVIDER_UNSUPPORTED_SCHEMA`). The message lists every unsupported construct as "tool "x" loses
 * … on <profile>"; `issues` holds them as data. Build with `fallback: 'non-strict'` to send such tools without the
 * strict profile instead.
 */
export class ProviderSchemaError extends DshError {
  static override readonly brand: symbol = providerSchemaErrorBrand

  /** True when `value` is a {@link ProviderSchemaError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is ProviderSchemaError {
    return DshError.hasBrand(value, providerSchemaErrorBrand)
  }

  override readonly name: string = 'ProviderSchemaError'
  declare readonly code: typeof PROVIDER_ERROR_CODES.UNSUPPORTED_SCHEMA
  /** The unsupported constructs, in list order. */
  readonly issues: readonly SchemaIssue[]

  /**
   * @param issues - the `unsupported` issues that stop the build
   * @param options - `cause`
   */
  constructor(issues: readonly SchemaIssue[], options?: DshErrorOptions) {
    super(
      PROVIDER_ERROR_CODES.UNSUPPORTED_SCHEMA,
      `The tool list cannot be built (${issues.length} unsupported ${issues.length === 1 ? 'construct' : 'constructs'}):\n` +
        issues.map((issue) => `- ${issue.message}`).join('\n') +
        "\nChange the schema, choose another profile, or build with fallback: 'non-strict'.",
      options,
    )
    this.issues = Object.freeze([...issues])
  }
}

import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import { ViolationListError } from './violation-list-error.js'
import type { Violation } from './violation.js'

/** What a {@link ToolOutputError} reports. */
export interface ToolOutputErrorDetails {
  /** The tool that produced the output. */
  readonly toolName: string
  /** What is wrong with the output (at most the validator's cap). */
  readonly violations: readonly Violation[]
  /** How many more violations there were beyond the listed ones. */
  readonly omitted?: number | undefined
}

const toolOutputErrorBrand: symbol = errorBrand('ToolOutputError')

/**
 * A tool body returned something its definition does not allow (code `INVALID_TOOL_OUTPUT`): a value that is not
 * lossless JSON or does not match `output.schema`, or, without `output`, something that is neither content blocks,
 * a string nor `{ content, meta }`. It is a defect of the tool, not of the call.
 */
export class ToolOutputError extends ViolationListError {
  static override readonly brand: symbol = toolOutputErrorBrand

  /** True when `value` is a {@link ToolOutputError} from any installed copy of tools-schema. */
  static override isInstance(value: unknown): value is ToolOutputError {
    return DshError.hasBrand(value, toolOutputErrorBrand)
  }

  override readonly name: string = 'ToolOutputError'
  /** The tool that produced the output. */
  readonly toolName: string

  /**
   * @param details - the tool name, the violations and the count of omitted ones
   * @param options - `cause`
   */
  constructor(details: ToolOutputErrorDetails, options?: DshErrorOptions) {
    super(
      'INVALID_TOOL_OUTPUT',
      `Tool "${details.toolName}" produced an invalid result`,
      'This is a defect in the tool, not in the call.',
      details,
      options,
    )
    this.toolName = details.toolName
  }
}

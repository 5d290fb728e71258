import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import { ViolationListError } from './violation-list-error.js'
import type { Violation } from './violation.js'

/** What a {@link ToolArgsError} reports. */
export interface ToolArgsErrorDetails {
  /** The tool the arguments were for, when known. */
  readonly toolName?: string | undefined
  /** The violations listed (at most the validator's cap). */
  readonly violations: readonly Violation[]
  /** How many more violations there were beyond the listed ones. */
  readonly omitted?: number | undefined
}

const toolArgsErrorBrand: symbol = errorBrand('ToolArgsError')

/**
 * A tool call's arguments do not match the tool's parameter schema (code `INVALID_ARGS`). `defineTool` throws it
 * before the body runs; the registry turns it into an `isError` result whose text (this message) lists every
 * violation with its path, so the model can correct the call. `violations` and `omitted` hold them as data.
 */
export class ToolArgsError extends ViolationListError {
  static override readonly brand: symbol = toolArgsErrorBrand

  /** True when `value` is a {@link ToolArgsError} from any installed copy of tools-schema. */
  static override isInstance(value: unknown): value is ToolArgsError {
    return DshError.hasBrand(value, toolArgsErrorBrand)
  }

  override readonly name: string = 'ToolArgsError'
  /** The tool the arguments were for, when known. */
  readonly toolName: string | undefined

  /**
   * @param details - the tool name, the violations and the count of omitted ones
   * @param options - `cause`
   */
  constructor(details: ToolArgsErrorDetails, options?: DshErrorOptions) {
    const { toolName } = details
    super(
      'INVALID_ARGS',
      `Invalid arguments for ${toolName === undefined ? 'the tool' : `tool "${toolName}"`}`,
      `Fix the arguments to match the parameter schema and call ${toolName === undefined ? 'it' : `"${toolName}"`} again.`,
      details,
      options,
    )
    this.toolName = toolName
  }
}

import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const duplicateToolErrorBrand: symbol = errorBrand('DuplicateToolError')

/**
 * A tool name is already registered in the same scope (code `DUPLICATE_TOOL`). Thrown by `register`. A tool of
 * an agent's scope may shadow a global tool of the same name; two tools of one scope may not share a name.
 */
export class DuplicateToolError extends DshError {
  static override readonly brand: symbol = duplicateToolErrorBrand

  /** True when `value` is a {@link DuplicateToolError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is DuplicateToolError {
    return DshError.hasBrand(value, duplicateToolErrorBrand)
  }

  override readonly name: string = 'DuplicateToolError'
  declare readonly code: 'DUPLICATE_TOOL'
  /** The name that is taken. */
  readonly toolName: string

  /**
   * @param toolName - the name that is taken
   * @param message - where it is taken
   * @param options - `cause`
   */
  constructor(toolName: string, message: string, options?: DshErrorOptions) {
    super('DUPLICATE_TOOL', message, options)
    this.toolName = toolName
  }
}

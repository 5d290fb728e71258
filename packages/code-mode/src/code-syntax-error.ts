import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import { CODE_ERROR_CODES } from './code-error-codes.js'

const codeSyntaxErrorBrand: symbol = errorBrand('CodeSyntaxError')

/**
 * The program is not valid TypeScript or JavaScript (code `CODE_SYNTAX`), so it never ran. `line` and `column` (both
 * from 1) point into the program as the model wrote it; the message names them too.
 */
export class CodeSyntaxError extends DshError {
  static override readonly brand: symbol = codeSyntaxErrorBrand

  /** True when `value` is a {@link CodeSyntaxError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is CodeSyntaxError {
    return DshError.hasBrand(value, codeSyntaxErrorBrand)
  }

  override readonly name: string = 'CodeSyntaxError'
  /** The line of the error in the program, from 1. */
  readonly line: number
  /** The column of the error on that line, from 1. */
  readonly column: number

  constructor(detail: string, position: { readonly line: number; readonly column: number }, options?: DshErrorOptions) {
    super(CODE_ERROR_CODES.SYNTAX, `${detail} (line ${position.line}, column ${position.column})`, options)
    this.line = position.line
    this.column = position.column
  }
}

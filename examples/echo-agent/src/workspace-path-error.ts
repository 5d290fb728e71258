import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

/**
 * A path argument points outside the workspace the tool may touch (code `INVALID_ARGS`: the model can correct the
 * call). It is the kind of value rule the schema DSL cannot express, so the tool checks it in its body and throws
 * a coded error; the registry turns it into an `isError` result with `error: { name, code }`.
 */
export class WorkspacePathError extends DshError {
  static override readonly brand: symbol = errorBrand('WorkspacePathError')

  /** True when `value` is a {@link WorkspacePathError}, from any copy of this module. */
  static override isInstance(value: unknown): value is WorkspacePathError {
    return DshError.hasBrand(value, WorkspacePathError.brand)
  }

  override readonly name: string = 'WorkspacePathError'
  /** The path as the model gave it. */
  readonly path: string

  constructor(path: string, reason: string, options?: DshErrorOptions) {
    super('INVALID_ARGS', `The path "${path}" ${reason}. Give a path relative to the workspace, inside it.`, options)
    this.path = path
  }
}

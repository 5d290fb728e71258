import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const scriptedModelErrorBrand: symbol = errorBrand('ScriptedModelError')

/**
 * The scripted model of {@link runScriptedSession} (or the calls given to {@link runToolStep}) misbehaved (code
 * `INVALID_CALL`): a turn was not a list of tool calls, a call had no string `id` or `name`, a call id was used
 * twice in one session, or the model kept calling tools past `maxSteps`. It is a bug in the test's script, so it
 * is thrown rather than turned into a tool result.
 */
export class ScriptedModelError extends DshError {
  static override readonly brand: symbol = scriptedModelErrorBrand

  /** True when `value` is a {@link ScriptedModelError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is ScriptedModelError {
    return DshError.hasBrand(value, scriptedModelErrorBrand)
  }

  override readonly name: string = 'ScriptedModelError'
  /** The step (1-based) whose turn was wrong. */
  readonly step: number

  /**
   * @param step - the step (1-based) whose turn was wrong
   * @param message - what was wrong
   * @param options - `cause`
   */
  constructor(step: number, message: string, options?: DshErrorOptions) {
    super('INVALID_CALL', `scripted model, step ${step}: ${message}`, options)
    this.step = step
  }
}

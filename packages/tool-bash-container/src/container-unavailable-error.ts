import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import { CONTAINER_ERROR_CODES } from './container-error-codes.js'

const brand: symbol = errorBrand('ContainerUnavailableError')

/** Why the session container cannot be used. */
export type ContainerUnavailableCause =
  | 'engine-unreachable'
  | 'image-missing'
  | 'create-failed'
  | 'agent-failed'
  | 'limit-not-enforced'
  | 'confinement-not-enforced'
  /** A network allow list is configured but `@dsh/tool-bash-sandbox` (its proxy) cannot be loaded. */
  | 'network-unavailable'

/**
 * The container executor cannot run commands (code `CONTAINER_UNAVAILABLE`): loading `ContainerBashExecutor` fails
 * with it and nothing is provided as `ctx.bash` (never a fallback to the host). `reason` says what failed, `fix`
 * what to do about it.
 */
export class ContainerUnavailableError extends DshError {
  static override readonly brand: symbol = brand

  /** True when `value` is a {@link ContainerUnavailableError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is ContainerUnavailableError {
    return DshError.hasBrand(value, brand)
  }

  override readonly name: string = 'ContainerUnavailableError'
  /** What failed. */
  readonly reason: ContainerUnavailableCause
  /** What to do about it. */
  readonly fix: string

  constructor(reason: ContainerUnavailableCause, problem: string, fix: string, options?: DshErrorOptions) {
    super(CONTAINER_ERROR_CODES.UNAVAILABLE, `the bash container cannot start: ${problem}. Fix: ${fix}`, options)
    this.reason = reason
    this.fix = fix
  }
}

import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import { SANDBOX_ERROR_CODES } from './sandbox-error-codes.js'

const sandboxUnavailableErrorBrand: symbol = errorBrand('SandboxUnavailableError')

/** Why the sandbox cannot start. */
export type SandboxUnavailableCause =
  | 'unsupported-platform'
  | 'unsupported-architecture'
  | 'bwrap-missing'
  | 'userns-restricted'
  | 'namespaces-unavailable'
  | 'network-namespace-restricted'
  | 'mount-denied'
  | 'proc-unmountable'
  | 'profile-not-enforced'
  | 'cgroups-unavailable'
  | 'network-bridge-failed'
  | 'preflight-failed'

/**
 * The sandbox cannot start on this machine (code `SANDBOX_UNAVAILABLE`): loading `SandboxedBashExecutor` fails with
 * it, and nothing is provided as `ctx.bash` (never a silent fallback to unsandboxed commands). `reason` says what
 * is missing, `fix` what to do about it, `detail` what bubblewrap printed (if it ran).
 */
export class SandboxUnavailableError extends DshError {
  static override readonly brand: symbol = sandboxUnavailableErrorBrand

  /** True when `value` is a {@link SandboxUnavailableError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is SandboxUnavailableError {
    return DshError.hasBrand(value, sandboxUnavailableErrorBrand)
  }

  override readonly name: string = 'SandboxUnavailableError'
  /** What is missing. */
  readonly reason: SandboxUnavailableCause
  /** What to do about it. */
  readonly fix: string
  /** bubblewrap's own words (its stderr), when it ran; else ''. */
  readonly detail: string

  constructor(reason: SandboxUnavailableCause, problem: string, fix: string, detail = '', options?: DshErrorOptions) {
    super(
      SANDBOX_ERROR_CODES.UNAVAILABLE,
      `the bash sandbox cannot start: ${problem}${detail === '' ? '' : ` (bwrap said: ${detail})`}. Fix: ${fix}`,
      options,
    )
    this.reason = reason
    this.fix = fix
    this.detail = detail
  }
}

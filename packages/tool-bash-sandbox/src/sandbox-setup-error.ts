import { BashSpawnError } from '@dsh/tool-bash'
import { errorBrand, type DshErrorCode, type DshErrorOptions } from '@dsh/tools-core'
import { SANDBOX_ERROR_CODES } from './sandbox-error-codes.js'

const sandboxSetupErrorBrand: symbol = errorBrand('SandboxSetupError')

/**
 * bubblewrap could not set up the sandbox of one command (code `SANDBOX_SETUP_FAILED`), so the command never ran:
 * a mount it needed vanished, the kernel refused a namespace, … It is a `BashSpawnError` (the command could not be
 * started), with its own code and name so that a harness and a model can tell it from the command's own failure.
 * `detail` holds bubblewrap's message.
 */
export class SandboxSetupError extends BashSpawnError {
  static override readonly brand: symbol = sandboxSetupErrorBrand

  /** True when `value` is a {@link SandboxSetupError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is SandboxSetupError {
    return BashSpawnError.hasBrand(value, sandboxSetupErrorBrand)
  }

  override readonly name: string = 'SandboxSetupError'
  override readonly code: DshErrorCode = SANDBOX_ERROR_CODES.SETUP_FAILED
  /** What bubblewrap printed. */
  readonly detail: string

  constructor(detail: string, cwd: string, options?: DshErrorOptions) {
    super(
      `the sandbox could not be set up, so the command did not run (this is not the command's failure; the policy cannot be changed from here): ${detail}`,
      cwd,
      options,
    )
    this.detail = detail
  }
}

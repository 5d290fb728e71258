import { defineToolErrorCodes } from '@dsh/tools-core'

/**
 * The error codes of the sandbox, in the `SANDBOX` family: `SANDBOX_UNAVAILABLE` ({@link SandboxUnavailableError}:
 * the sandbox cannot start on this machine, so the executor did not load) and `SANDBOX_SETUP_FAILED`
 * ({@link SandboxSetupError}: bubblewrap failed to set up one command's sandbox, so the command never ran).
 */
export const SANDBOX_ERROR_CODES = defineToolErrorCodes('SANDBOX', ['UNAVAILABLE', 'SETUP_FAILED'])

import { defineToolErrorCodes } from '@dsh/tools-core'

/**
 * The error codes of Code Mode, in the `CODE` family: `CODE_SYNTAX` ({@link CodeSyntaxError}: the program is not valid
 * TypeScript or JavaScript, so it never ran) and `CODE_RUN_FAILED` (the program ran and failed: it threw, ran out of
 * time or memory, or was aborted).
 */
export const CODE_ERROR_CODES = defineToolErrorCodes('CODE', ['SYNTAX', 'RUN_FAILED'])

import { defineToolErrorCodes } from '@dsh/tools-core'

/**
 * The error codes of the container executor, in the `CONTAINER` family: `CONTAINER_UNAVAILABLE`
 * ({@link ContainerUnavailableError}: the engine or the session container cannot be used, so the executor did not load).
 */
export const CONTAINER_ERROR_CODES = defineToolErrorCodes('CONTAINER', ['UNAVAILABLE'])

import { defineToolErrorCodes } from '@dsh/tools-core'

/**
 * The codes this package owns, prefixed `PROVIDER_`:
 * - `INVALID_TOOL_NAME`: a tool name the provider would reject (or two tools with one name), when the list is built;
 * - `UNSUPPORTED_SCHEMA`: a parameter schema the chosen profile cannot express, when the list is built;
 * - `MALFORMED_CALL`: a tool call the model sent that cannot run (arguments that are not one JSON object, no
 *   name): the code of the error result a call parser returns instead of an execution input;
 * - `INVALID_INPUT`: a caller handed a conversion something that is not what its type says (a programming error).
 */
export const PROVIDER_ERROR_CODES = defineToolErrorCodes('PROVIDER', [
  'INVALID_TOOL_NAME',
  'UNSUPPORTED_SCHEMA',
  'MALFORMED_CALL',
  'INVALID_INPUT',
])

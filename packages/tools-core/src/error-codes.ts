/**
 * The pipeline's own error codes: what the schema DSL, the registry, the policies, the timeout policy, the test kit
 * and presentation produce. The union is closed (a code is added here, in tools-core, before any package uses it),
 * so a harness can switch on these exhaustively. A tool package's own codes are not listed here: it declares them,
 * prefixed with its tool family, with `defineToolErrorCodes` (they are `ToolErrorCode`s).
 */
export const ERROR_CODES = [
  // arguments, schemas and outputs
  'INVALID_ARGS',
  'INVALID_TOOL_OUTPUT',
  'UNSUPPORTED_SCHEMA',
  'UNSUPPORTED_OUTPUT_SCHEMA',
  'INVALID_STRUCTURED_VALUE',
  'NON_JSON_VALUE',
  // registration and configuration
  'INVALID_TOOL_DEFINITION',
  'DUPLICATE_TOOL',
  'INVALID_CONFIG',
  'HOST_MISMATCH',
  // policy
  'INVALID_CALL',
  'UNKNOWN_TOOL',
  'DENIED',
  'GUARD_DENIED',
  'INVALID_DECISION',
  'INVALID_RESULT',
  'APPROVAL_REJECTED',
  'APPROVAL_CANCELLED',
  'APPROVAL_UNAVAILABLE',
  'APPROVAL_NO_SERVICE',
  'APPROVAL_NO_AGENT',
  'POST_EXECUTE_BLOCKED',
  // running
  'ABORTED',
  'ABORTED_BEFORE_DISPATCH',
  'TOOL_TIMEOUT',
  'TOOL_TIMEOUT_ABANDONED',
  'TOOL_FAILED',
  // testing
  'HOT_UNLOAD_LEAK',
  // presentation
  'UNKNOWN_CARD',
  'INVALID_CARD',
] as const

/** One of the pipeline's own error codes. See {@link ERROR_CODES}; a tool package's codes are `ToolErrorCode`s. */
export type ErrorCode = (typeof ERROR_CODES)[number]

const codeSet: ReadonlySet<string> = new Set(ERROR_CODES)

/** True when `value` is one of the {@link ERROR_CODES} (a core code; `isToolErrorCode` checks a tool-owned one). */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && codeSet.has(value)
}

/**
 * Every error code a dsh tools package produces. The union is closed: a code is added here, in tools-core,
 * before any package uses it, so a harness can switch on codes exhaustively.
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
  'SPAWN_FAILED',
  'UNKNOWN_TASK',
  'TASK_LIMIT',
  // testing
  'HOT_UNLOAD_LEAK',
  // presentation
  'UNKNOWN_CARD',
  'INVALID_CARD',
] as const

/** A machine-routable error code. See {@link ERROR_CODES}. */
export type ErrorCode = (typeof ERROR_CODES)[number]

const codeSet: ReadonlySet<string> = new Set(ERROR_CODES)

/** True when `value` is one of the {@link ERROR_CODES}. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && codeSet.has(value)
}

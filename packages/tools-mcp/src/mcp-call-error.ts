import { DshError, errorBrand, ToolContentError, type ContentBlock } from '@dsh/tools-core'
import type { McpErrorCode } from './mcp-error-codes.js'

const mcpCallErrorBrand: symbol = errorBrand('McpCallError')

/** Options of the {@link McpCallError} constructor. */
export interface McpCallErrorOptions {
  /** What the model reads instead of the message: the server's own (bounded) content of an `isError` result. */
  readonly content?: readonly ContentBlock[] | undefined
  /** The underlying error (ES2022 `cause`). */
  readonly cause?: unknown
}

/**
 * A call to an MCP tool failed (one of the {@link McpErrorCode}s): the server reported an error, the protocol
 * failed, the budget ran out, the result was too large, or the server went away. Thrown from the tool body, so the
 * registry turns it into an `isError` result carrying `{ name: 'McpCallError', code }`. It is a
 * `ToolContentError`: for `MCP_SERVER_ERROR` the result's content is the server's own content (images included),
 * otherwise this message.
 */
export class McpCallError extends ToolContentError {
  static override readonly brand: symbol = mcpCallErrorBrand

  /** True when `value` is an {@link McpCallError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is McpCallError {
    return DshError.hasBrand(value, mcpCallErrorBrand)
  }

  override readonly name: string = 'McpCallError'
  /** The configured id of the server the call went to. */
  readonly server: string

  constructor(code: McpErrorCode, message: string, server: string, options?: McpCallErrorOptions) {
    super(code, message, options)
    this.server = server
  }
}

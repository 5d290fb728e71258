import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import { MCP_ERROR_CODES } from './mcp-error-codes.js'

const mcpConnectErrorBrand: symbol = errorBrand('McpConnectError')

/**
 * An MCP server could not be started or did not complete its handshake (code `MCP_CONNECT_FAILED`). The message
 * names the server and says what failed; `stderrTail` holds the last bytes the server wrote to stderr.
 */
export class McpConnectError extends DshError {
  static override readonly brand: symbol = mcpConnectErrorBrand

  /** True when `value` is an {@link McpConnectError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is McpConnectError {
    return DshError.hasBrand(value, mcpConnectErrorBrand)
  }

  override readonly name: string = 'McpConnectError'
  /** The configured id of the server. */
  readonly server: string
  /** The tail of the server's stderr (empty for HTTP servers). */
  readonly stderrTail: string

  constructor(server: string, message: string, stderrTail: string, options?: DshErrorOptions) {
    super(MCP_ERROR_CODES.CONNECT_FAILED, stderrTail === '' ? message : `${message}\nstderr of the server (last lines):\n${stderrTail}`, options)
    this.server = server
    this.stderrTail = stderrTail
  }
}

import type { ToolApprovalOutcome, ToolApprovalRequest, ToolApprovalService } from '@dsh/tools-core'
import { Service, type Context } from 'cordis'

/** Configuration of {@link DemoApproval}. */
export interface DemoApprovalConfig {
  /**
   * Answers a request. Default: `allowed-once` for every request (the demo's user says yes). A real service asks a
   * person, and must answer `cancelled` when `request.signal` fires.
   */
  readonly decide?: ((request: ToolApprovalRequest) => ToolApprovalOutcome | Promise<ToolApprovalOutcome>) | undefined
  /** Told about every request and its answer, to show them. */
  readonly onDecision?: ((request: ToolApprovalRequest, outcome: ToolApprovalOutcome) => void) | undefined
}

/**
 * The demo's approval service: the cordis service `toolApproval` that the registry asks when a
 * `tools/pre-execute` listener decides `ask`. It stands where a terminal prompt or an editor's permission dialog
 * would, answers through `config.decide`, and reports each decision through `config.onDecision`.
 */
export class DemoApproval extends Service implements ToolApprovalService {
  private readonly config: DemoApprovalConfig

  constructor(ctx: Context, config: DemoApprovalConfig = {}) {
    super(ctx, 'toolApproval')
    this.config = config
  }

  /** Answers one request: `cancelled` when its signal has fired, else what `decide` says. */
  async requestApproval(request: ToolApprovalRequest): Promise<ToolApprovalOutcome> {
    const outcome: ToolApprovalOutcome = request.signal.aborted
      ? { outcome: 'cancelled' }
      : await (this.config.decide ?? (() => ({ outcome: 'allowed-once' }) as const))(request)
    this.config.onDecision?.(request, outcome)
    return outcome
  }
}

/** A snapshot of the counters of one HTTP serving entry (`metrics()`, or scraped at `/metrics`). */
export interface ServedMetrics {
  /** 2025-era sessions open now. */
  readonly sessions: number
  /** Long-lived SSE streams open now (2025-era `GET` streams, 2026-07-28 `subscriptions/listen` streams). */
  readonly streams: number
  /** HTTP requests being answered now (long-lived streams not counted). */
  readonly requestsInFlight: number
  /** Tool calls running now (`ctx.tools.execute` not yet settled), tasks included. */
  readonly callsInFlight: number
  /** Tool calls started since the entry was created. */
  readonly callsTotal: number
  /**
   * Requests refused before MCP saw them, by code: `UNAUTHORIZED` (no token), `INVALID_TOKEN`, `INSUFFICIENT_SCOPE`,
   * `AUTH_UNAVAILABLE`, `FORBIDDEN_HOST`, `FORBIDDEN_ORIGIN`, `BODY_TOO_LARGE`, `DRAINING`, `SESSION_NOT_FOUND`,
   * `SESSION_LIMIT`, `STREAM_REFUSED` (a `GET` stream asked of a sessionless server).
   */
  readonly denials: Readonly<Record<string, number>>
  /** Tool calls that ended in an error result, by the registry's code (`GUARD_DENIED`, `APPROVAL_REJECTED`, …). */
  readonly callErrors: Readonly<Record<string, number>>
  /** `drain()` was called: readiness answers 503. */
  readonly draining: boolean
}

/** The mutable counters behind {@link ServedMetrics} (internal). */
export class ServedCounters {
  streams = 0
  requestsInFlight = 0
  callsInFlight = 0
  callsTotal = 0
  readonly denials = new Map<string, number>()
  readonly callErrors = new Map<string, number>()
  private idle: (() => void)[] = []

  deny(code: string): void {
    this.denials.set(code, (this.denials.get(code) ?? 0) + 1)
  }

  /** Counts a call until the returned function is called with its error code (or none). */
  callStarted(): (errorCode: string | undefined) => void {
    this.callsInFlight += 1
    this.callsTotal += 1
    let done = false
    return (errorCode) => {
      if (done) return
      done = true
      this.callsInFlight -= 1
      if (errorCode !== undefined) this.callErrors.set(errorCode, (this.callErrors.get(errorCode) ?? 0) + 1)
      this.settle()
    }
  }

  requestStarted(): () => void {
    this.requestsInFlight += 1
    let done = false
    return () => {
      if (done) return
      done = true
      this.requestsInFlight -= 1
      this.settle()
    }
  }

  /** Resolves once no request and no call is in flight. */
  whenIdle(): Promise<void> {
    if (this.requestsInFlight === 0 && this.callsInFlight === 0) return Promise.resolve()
    return new Promise((resolve) => this.idle.push(resolve))
  }

  private settle(): void {
    if (this.requestsInFlight !== 0 || this.callsInFlight !== 0) return
    const waiting = this.idle
    this.idle = []
    for (const resolve of waiting) resolve()
  }

  snapshot(sessions: number, draining: boolean): ServedMetrics {
    return {
      sessions,
      streams: this.streams,
      requestsInFlight: this.requestsInFlight,
      callsInFlight: this.callsInFlight,
      callsTotal: this.callsTotal,
      denials: Object.fromEntries(this.denials),
      callErrors: Object.fromEntries(this.callErrors),
      draining,
    }
  }
}

/** The metrics in the Prometheus text exposition format (version 0.0.4). */
export function prometheusText(metrics: ServedMetrics): string {
  const lines: string[] = []
  const gauge = (name: string, help: string, value: number) => lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name} ${value}`)
  const labelled = (name: string, help: string, values: Readonly<Record<string, number>>) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`)
    for (const [code, value] of Object.entries(values)) lines.push(`${name}{code="${code.replace(/[^A-Za-z0-9_]/g, '_')}"} ${value}`)
  }
  gauge('dsh_mcp_sessions', 'Open 2025-era MCP sessions.', metrics.sessions)
  gauge('dsh_mcp_streams', 'Open long-lived SSE streams.', metrics.streams)
  gauge('dsh_mcp_requests_in_flight', 'HTTP requests being answered.', metrics.requestsInFlight)
  gauge('dsh_mcp_calls_in_flight', 'Tool calls running.', metrics.callsInFlight)
  lines.push('# HELP dsh_mcp_calls_total Tool calls started.', '# TYPE dsh_mcp_calls_total counter', `dsh_mcp_calls_total ${metrics.callsTotal}`)
  labelled('dsh_mcp_denials_total', 'Requests refused before MCP saw them, by code.', metrics.denials)
  labelled('dsh_mcp_call_errors_total', 'Tool calls that ended in an error result, by code.', metrics.callErrors)
  gauge('dsh_mcp_draining', '1 while the server drains.', metrics.draining ? 1 : 0)
  return `${lines.join('\n')}\n`
}

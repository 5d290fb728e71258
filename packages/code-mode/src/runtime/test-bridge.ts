// Test support: the host side of runs in tests, a bridge that answers sub-calls from a map of handlers and records
// every call and log line. Not exported from the package.
import type { CodeBridge, CodeCallOutcome, CodeLimits, CodeOutcome, CodeRunRequest, CodeRuntime } from '../code-runtime.js'

/** What a handler gives back: a value (sent as JSON), an error the program sees thrown, or a promise of either. */
export type Answer = { readonly value: unknown } | { readonly error: { name: string; code: string; message: string } }
export type Handler = (args: unknown) => Answer | Promise<Answer>

export interface RecordedBridge extends CodeBridge {
  readonly calls: Array<{ tool: string; argsJson: string }>
  readonly logs: Array<{ level: string; text: string }>
}

export function testBridge(handlers: Record<string, Handler>): RecordedBridge {
  const calls: Array<{ tool: string; argsJson: string }> = []
  const logs: Array<{ level: string; text: string }> = []
  return {
    calls,
    logs,
    async call(tool: string, argsJson: string): Promise<CodeCallOutcome> {
      calls.push({ tool, argsJson })
      const handler = Object.hasOwn(handlers, tool) ? handlers[tool] : undefined
      if (handler === undefined) return { ok: false, error: { name: 'ToolCallError', code: 'UNKNOWN_TOOL', message: `no tool ${tool}` } }
      const answer = await handler(JSON.parse(argsJson))
      return 'value' in answer ? { ok: true, json: JSON.stringify(answer.value) } : { ok: false, error: answer.error }
    },
    log(level, text) {
      logs.push({ level, text })
    },
  }
}

/** Small limits, so that limit tests are fast. */
export const testLimits: CodeLimits = {
  memoryBytes: 16 * 1024 * 1024,
  cpuMs: 300,
  wallMs: 5_000,
  stackBytes: 256 * 1024,
  maxArgBytes: 64 * 1024,
  maxLogBytes: 16 * 1024,
  maxValueBytes: 64 * 1024,
}

export interface RunOptions {
  readonly tools?: Record<string, Handler>
  /** Identifier → registry name, when they differ (default: each handler's name as its identifier). */
  readonly names?: Record<string, string>
  readonly limits?: Partial<CodeLimits>
  readonly signal?: AbortSignal
  readonly bridge?: RecordedBridge
}

/** Runs a program on `runtime` with a recorded bridge; returns the outcome, the bridge and how long it took. */
export async function runProgram(
  runtime: CodeRuntime,
  program: string,
  options: RunOptions = {},
): Promise<{ outcome: CodeOutcome; bridge: RecordedBridge; ms: number; value: unknown }> {
  const handlers = options.tools ?? {}
  const bridge = options.bridge ?? testBridge(handlers)
  const names = options.names ?? Object.fromEntries(Object.keys(handlers).map((name) => [name, name]))
  const request: CodeRunRequest = {
    program,
    tools: Object.entries(names).map(([identifier, tool]) => ({ identifier, tool })),
    bridge,
    limits: { ...testLimits, ...options.limits },
    signal: options.signal ?? new AbortController().signal,
  }
  const started = performance.now()
  const outcome = await runtime.run(request)
  const ms = performance.now() - started
  const value = outcome.ok && outcome.valueJson !== undefined ? JSON.parse(outcome.valueJson) : undefined
  return { outcome, bridge, ms, value }
}

import type { ToolExecution, ToolExecutionResult } from '@dsh/tools-core'
import type { ToolRegistry } from '@dsh/tools-registry'
import type { CodeBridge, CodeCallError, CodeCallOutcome } from './code-runtime.js'
import { declaration, type CodeSdk, type SdkSource } from './sdk.js'

/** One sub-call as the ledger and `meta` record it. */
export interface SubCallRecord {
  readonly callId: string
  readonly name: string
  readonly isError: boolean
  /** The error code, for a failed sub-call. */
  readonly code?: string
}

/** The limits of a run's sub-calls. */
export interface SubCallLimits {
  /** Sub-calls per run; the next one fails in the program with `CODE_SUBCALL_LIMIT`. */
  readonly maxSubCalls: number
  /** Parallel-safe sub-calls in flight at once. */
  readonly maxParallelSubCalls: number
  /** The JSON text of one sub-call's arguments, in bytes (checked again on the host: the bridge is hostile input). */
  readonly maxArgBytes: number
}

/** The most characters of a failed sub-call's text the program gets in `err.message`. */
const MAX_ERROR_MESSAGE = 2_000
/** The most `$search` answers. */
const MAX_SEARCH_RESULTS = 20

interface Pending {
  readonly parallel: boolean
  readonly start: () => void
}

/**
 * The host side of one run's bridge: each call from the program becomes `ctx.tools.execute` with callId
 * `<outer>:code:<n>`, the outer agent, `parent` = the outer call's token and the run's signal, so every policy of the
 * pipeline applies. Parallel-safe tools (`concurrencySafe`) overlap up to the limit; every other call runs alone, in
 * the order the program made them. The program's tool names are hostile input: each is looked up at call time in
 * the agent's nested view, `run_code` itself is refused. Once {@link SubCalls.finish} runs, nothing more starts and
 * the calls in flight are aborted and awaited, so nothing lands after the run's result.
 */
export class SubCalls implements CodeBridge {
  readonly records: SubCallRecord[] = []
  readonly logs: Array<{ readonly level: string; readonly text: string }> = []
  private readonly controller = new AbortController()
  private readonly queue: Pending[] = []
  private readonly inFlight = new Set<Promise<unknown>>()
  private running = 0
  private runningSerial = false
  private made = 0
  private finished = false

  constructor(
    private readonly tools: ToolRegistry,
    private readonly exec: Readonly<ToolExecution>,
    private readonly sdk: CodeSdk,
    private readonly limits: SubCallLimits,
    signal: AbortSignal,
    private readonly tool: string,
  ) {
    if (signal.aborted) this.controller.abort(signal.reason)
    else signal.addEventListener('abort', () => this.controller.abort(signal.reason), { once: true })
  }

  log(level: 'log' | 'info' | 'warn' | 'error' | 'debug', text: string): void {
    if (!this.finished) this.logs.push({ level, text: String(text) })
  }

  call(tool: string, argsJson: string): Promise<CodeCallOutcome> {
    if (this.finished) return Promise.resolve(failure('CodeRunError', 'ABORTED', 'The run is over; the call was not made.'))
    if (typeof tool !== 'string' || typeof argsJson !== 'string') return Promise.resolve(failure('CodeRunError', 'INVALID_ARGS', 'A tool call needs a tool name and JSON arguments.'))
    if (tool === '$search') return Promise.resolve(this.search(argsJson))
    if (tool === '$describe') return Promise.resolve(this.describe(argsJson))
    if (tool === this.tool) return Promise.resolve(failure('CodeRunError', 'UNKNOWN_TOOL', `${this.tool} cannot be called from a program.`))
    if (Buffer.byteLength(argsJson) > this.limits.maxArgBytes) {
      return Promise.resolve(failure('CodeRunError', 'INVALID_ARGS', `The arguments are more than ${this.limits.maxArgBytes} bytes of JSON.`))
    }
    let args: unknown
    try {
      args = JSON.parse(argsJson)
    } catch {
      return Promise.resolve(failure('CodeRunError', 'INVALID_ARGS', 'The arguments are not JSON.'))
    }
    if (this.made >= this.limits.maxSubCalls) {
      return Promise.resolve(failure('CodeRunError', 'CODE_SUBCALL_LIMIT', `A program may make at most ${this.limits.maxSubCalls} tool calls; this one was not made.`))
    }
    this.made += 1
    const callId = `${this.exec.callId}:code:${this.made}`
    const parallel = this.isParallel(tool)
    return new Promise<CodeCallOutcome>((resolve) => {
      const start = (): void => {
        const running = this.execute(callId, tool, args).then((outcome) => {
          this.running -= 1
          if (!parallel) this.runningSerial = false
          this.inFlight.delete(running)
          resolve(outcome)
          this.pump()
        })
        this.inFlight.add(running)
      }
      this.queue.push({ parallel, start })
      this.pump()
    })
  }

  /** Ends the run's sub-calls: nothing more starts, calls in flight are aborted and awaited. */
  async finish(): Promise<void> {
    this.finished = true
    this.queue.length = 0
    if (this.inFlight.size > 0) {
      this.controller.abort(new Error('the program ended'))
      await Promise.allSettled(this.inFlight)
    }
  }

  /** Starts queued calls: a serial one alone when nothing runs; parallel ones up to the limit, never past a serial one. */
  private pump(): void {
    while (this.queue.length > 0 && !this.finished) {
      const next = this.queue[0] as Pending
      if (this.runningSerial) return
      if (!next.parallel && this.running > 0) return
      if (next.parallel && this.running >= this.limits.maxParallelSubCalls) return
      this.queue.shift()
      this.running += 1
      if (!next.parallel) this.runningSerial = true
      next.start()
    }
  }

  private isParallel(tool: string): boolean {
    const definition = this.tools.get(tool, this.exec.agent, { nested: true })
    if (definition === undefined) return false
    if (definition.concurrencySafe !== undefined) return definition.concurrencySafe === true
    return definition.annotations?.readOnlyHint === true
  }

  private async execute(callId: string, name: string, args: unknown): Promise<CodeCallOutcome> {
    const result = await this.tools.execute({
      callId,
      name,
      arguments: args,
      ...(this.exec.agent === undefined ? {} : { agent: this.exec.agent }),
      parent: this.exec.token,
      signal: this.controller.signal,
    })
    const record: SubCallRecord = result.isError ? { callId, name, isError: true, code: result.error?.code ?? 'TOOL_FAILED' } : { callId, name, isError: false }
    this.records.push(record)
    if (result.isError) return failure(result.error?.name ?? 'ToolError', result.error?.code ?? 'TOOL_FAILED', textOf(result).slice(0, MAX_ERROR_MESSAGE))
    return { ok: true, json: valueJson(result, this.tools.outputSchema(name, this.exec.agent, { nested: true }) !== undefined) }
  }

  private search(argsJson: string): CodeCallOutcome {
    const query = parseString(argsJson)
    if (query === undefined) return failure('CodeRunError', 'INVALID_ARGS', '$search takes one string.')
    const words = query.toLowerCase().split(/\s+/).filter((word) => word !== '')
    const found: Array<{ name: string; description: string }> = []
    for (const source of this.sources()) {
      const haystack = `${source.schema.name} ${source.schema.description}`.toLowerCase()
      if (words.every((word) => haystack.includes(word))) found.push({ name: source.schema.name, description: source.schema.description.split('\n', 1)[0] ?? '' })
      if (found.length >= MAX_SEARCH_RESULTS) break
    }
    return { ok: true, json: JSON.stringify(found) }
  }

  private describe(argsJson: string): CodeCallOutcome {
    const name = parseString(argsJson)
    if (name === undefined) return failure('CodeRunError', 'INVALID_ARGS', '$describe takes one tool name.')
    const entry = this.sdk.tools.find((tool) => tool.tool === name || tool.identifier === name)
    const source = entry === undefined ? undefined : this.sources().find((candidate) => candidate.schema.name === entry.tool)
    return { ok: true, json: JSON.stringify(entry === undefined || source === undefined ? null : declaration(entry.identifier, source, '')) }
  }

  /** The SDK's tools as the registry has them now (a tool removed since the SDK was made is not there). */
  private sources(): SdkSource[] {
    const sources: SdkSource[] = []
    const agent = this.exec.agent
    const schemas = this.tools.schemas(agent, { nested: true })
    for (const { tool } of this.sdk.tools) {
      const schema = schemas.find((candidate) => candidate.name === tool)
      if (schema !== undefined) sources.push({ schema, outputSchema: this.tools.outputSchema(tool, agent, { nested: true }) })
    }
    return sources
  }
}

function failure(name: string, code: string, message: string): CodeCallOutcome {
  const error: CodeCallError = { name, code, message }
  return { ok: false, error }
}

function textOf(result: ToolExecutionResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n')
}

/** What the program receives: the structured value of a tool with an output schema, else `{ content, structuredContent? }`. */
function valueJson(result: ToolExecutionResult, hasOutputSchema: boolean): string {
  if (hasOutputSchema && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent)
  return JSON.stringify(result.structuredContent === undefined ? { content: result.content } : { content: result.content, structuredContent: result.structuredContent })
}

function parseString(json: string): string | undefined {
  try {
    const value: unknown = JSON.parse(json)
    if (typeof value === 'string') return value
    if (Array.isArray(value) && typeof value[0] === 'string') return value[0]
    return undefined
  } catch {
    return undefined
  }
}

/**
 * The ledger line the model always reads: `7 sub-calls: 5 ok, 1 DENIED (write_file), 1 INVALID_ARGS (search)`, or
 * `No sub-calls.`.
 */
export function ledger(records: readonly SubCallRecord[]): string {
  if (records.length === 0) return 'No sub-calls.'
  const ok = records.filter((record) => !record.isError).length
  const failed = new Map<string, string[]>()
  for (const record of records) {
    if (!record.isError) continue
    const code = record.code ?? 'TOOL_FAILED'
    const names = failed.get(code) ?? []
    names.push(record.name)
    failed.set(code, names)
  }
  const parts = ok > 0 || failed.size === 0 ? [`${ok} ok`] : []
  for (const [code, names] of failed) {
    const unique = [...new Set(names)]
    const shown = unique.length > 5 ? `${unique.slice(0, 5).join(', ')}, …` : unique.join(', ')
    parts.push(`${names.length} ${code} (${shown})`)
  }
  return `${records.length} sub-call${records.length === 1 ? '' : 's'}: ${parts.join(', ')}`
}

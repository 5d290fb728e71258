// Approval over MCP for served calls: an `ask` of the registry's pipeline becomes an elicitation of the client's user.
// A 2025-era client is asked with `elicitation/create` inside the call; a 2026-07-28 client gets an `input_required`
// result and retries the call with its answer, so a call waiting for its answer outlives the round that asked
// (PendingApprovals keeps it, bounded in number and time).
import { randomUUID } from 'node:crypto'
import type { ToolApprovalOutcome, ToolExecutionResult } from '@dsh/tools-core'
import type { ToolCallApprovalRequest, ToolCallApprover } from '@dsh/tools-registry'
import type { ElicitRequestFormParams } from '@modelcontextprotocol/server'
import { McpConfigError } from '../mcp-config-error.js'

/** How a served registry asks for approval (part of `ToolServerOptions`). */
export interface ServedApprovalOptions {
  /**
   * Who answers an `ask` of a served call: `'client'` (default), the MCP client's user through elicitation (see
   * the reference page), or `'host'`, the registry's own `toolApproval` service for the served `agent` (without an
   * agent such a call is denied, `APPROVAL_NO_AGENT`).
   */
  readonly approval?: 'client' | 'host' | undefined
  /**
   * How long a served call waits for its client's answer to an approval request before it is denied
   * (`APPROVAL_UNAVAILABLE`, saying the client did not answer in time). Default 600000 (10 minutes).
   */
  readonly approvalTimeoutMs?: number | undefined
  /**
   * At most this many served calls of one server wait for a 2026-07-28 client's answer at once (their state lives on
   * the server between the rounds); an `ask` past it is denied at once (`APPROVAL_UNAVAILABLE`). Default 64.
   */
  readonly maxPendingApprovals?: number | undefined
}

const defaultTimeoutMs = 600_000
const defaultMaxPending = 64
const maxTimerMs = 2_147_483_647
/** The longest argument text an elicitation message quotes; the rest is counted, not shown. */
export const MAX_APPROVAL_ARGUMENTS_CHARS = 2_000
/** The key of our one input request in an `input_required` result. */
export const APPROVAL_INPUT_KEY = 'dsh_approval'

function positiveInteger(name: string, value: number | undefined, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value <= 0 || value > max) {
    throw new McpConfigError([`${name}: must be a positive integer${max === maxTimerMs ? ` of at most ${maxTimerMs} ms` : ''}, got ${JSON.stringify(value) ?? String(value)}`])
  }
  return value
}

/** The checked approval settings of a served registry; throws `McpConfigError` (`INVALID_CONFIG`). */
export function resolveApprovalOptions(options: ServedApprovalOptions): { readonly mode: 'client' | 'host'; readonly timeoutMs: number; readonly maxPending: number } {
  const mode = options.approval ?? 'client'
  if (mode !== 'client' && mode !== 'host') throw new McpConfigError([`approval: must be 'client' or 'host', got ${JSON.stringify(mode) ?? String(mode)}`])
  return {
    mode,
    timeoutMs: positiveInteger('approvalTimeoutMs', options.approvalTimeoutMs, defaultTimeoutMs, maxTimerMs),
    maxPending: positiveInteger('maxPendingApprovals', options.maxPendingApprovals, defaultMaxPending),
  }
}

/** Whether a client's declared capabilities include form-mode elicitation (an empty `elicitation: {}` means form). */
export function supportsFormElicitation(capabilities: unknown): boolean {
  if (typeof capabilities !== 'object' || capabilities === null) return false
  const elicitation = (capabilities as { elicitation?: unknown }).elicitation
  if (typeof elicitation !== 'object' || elicitation === null) return false
  const modes = elicitation as { form?: unknown; url?: unknown }
  return modes.form !== undefined || modes.url === undefined
}

/** The form the client's user answers: accept runs the call once, decline refuses it. No fields to fill in. */
export function approvalForm(request: ToolCallApprovalRequest): ElicitRequestFormParams {
  let args: string
  try {
    args = JSON.stringify(request.execution.arguments) ?? '{}'
  } catch {
    args = '(arguments that cannot be shown)'
  }
  if (args.length > MAX_APPROVAL_ARGUMENTS_CHARS) {
    args = `${args.slice(0, MAX_APPROVAL_ARGUMENTS_CHARS)}… (${args.length - MAX_APPROVAL_ARGUMENTS_CHARS} more characters)`
  }
  const why = request.reason === undefined || request.reason.trim() === '' ? '' : ` Why it is asked: ${request.reason}.`
  return {
    mode: 'form',
    message: `Allow the tool "${request.tool.name}" to run with these arguments?${why}\n${args}\nAccept to run it once; decline to refuse.`,
    requestedSchema: { type: 'object', properties: {} },
  }
}

/** The client's elicitation answer (an `ElicitResult`, or anything else a client sent) as an approval outcome. */
export function outcomeOf(answer: unknown): ToolApprovalOutcome {
  const action = typeof answer === 'object' && answer !== null ? (answer as { action?: unknown }).action : undefined
  switch (action) {
    case 'accept':
      return { outcome: 'allowed-once' }
    case 'decline':
      return { outcome: 'rejected', reason: "the MCP client's user declined it" }
    case 'cancel':
      return { outcome: 'cancelled' }
    default:
      return { outcome: 'unavailable', reason: 'the MCP client answered the approval request with no accept, decline or cancel' }
  }
}

/** What a 2026-07-28 round must do next: answer with the result, or ask the client (an `input_required` result). */
export type ServedStep = { readonly kind: 'done'; readonly result: ToolExecutionResult } | { readonly kind: 'ask'; readonly id: string; readonly form: ElicitRequestFormParams }

/**
 * One served call of a 2026-07-28 client, which may span rounds: its execution runs under its own signal (each
 * round's request signal is linked to it only while that round is open), and {@link next} says what the open round
 * must answer.
 */
export class ServedCall {
  readonly #controller = new AbortController()
  /** Steps produced and not yet taken by a round. */
  readonly #steps: ServedStep[] = []
  #waiter: ((step: ServedStep) => void) | undefined
  /** The execution's signal: fires when the open round's request is cancelled. */
  readonly signal: AbortSignal = this.#controller.signal

  constructor(
    /** The round-one request's `name` and JSON `arguments`: a retry must repeat them. */
    readonly name: string,
    readonly argumentsJson: string | undefined,
  ) {}

  /** Starts the execution (once). */
  run(execute: (signal: AbortSignal) => Promise<ToolExecutionResult>): void {
    void execute(this.signal).then((result) => this.#push({ kind: 'done', result }))
  }

  /** What the open round must answer: the next step, once there is one. */
  next(): Promise<ServedStep> {
    const step = this.#steps.shift()
    if (step !== undefined) return Promise.resolve(step)
    return new Promise((resolve) => (this.#waiter = resolve))
  }

  /** The execution now waits for the client's answer to `form` (request state `id`): the open round asks. */
  asking(id: string, form: ElicitRequestFormParams): void {
    this.#push({ kind: 'ask', id, form })
  }

  /** Links a round's request signal to the execution until the returned function is called. */
  follow(signal: AbortSignal): () => void {
    if (signal.aborted) {
      this.#controller.abort(signal.reason)
      return () => {}
    }
    const onAbort = () => this.#controller.abort(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    return () => signal.removeEventListener('abort', onAbort)
  }

  #push(step: ServedStep): void {
    const waiter = this.#waiter
    this.#waiter = undefined
    if (waiter === undefined) this.#steps.push(step)
    else waiter(step)
  }
}

interface Pending {
  readonly call: ServedCall
  readonly answer: (outcome: ToolApprovalOutcome) => void
  readonly timer: ReturnType<typeof setTimeout>
}

/**
 * Served calls waiting for a 2026-07-28 client's answer, by request state (a random id, never guessable). Shared by
 * every server instance of one serving entry (stateless HTTP builds one per request). Bounded: at most `maxPending`
 * at once, each for at most `timeoutMs`; `close()` answers every one `cancelled`.
 */
export class PendingApprovals {
  readonly #pending = new Map<string, Pending>()
  #closed = false

  constructor(readonly settings: { readonly timeoutMs: number; readonly maxPending: number }) {}

  /** How many calls wait now. */
  get size(): number {
    return this.#pending.size
  }

  /**
   * The approver of `call` for a 2026-07-28 client: each `ask` makes the open round answer `input_required` and
   * waits for the retry's answer (or the timeout, or the call's cancellation).
   */
  approverFor(call: ServedCall): ToolCallApprover {
    return (request) =>
      new Promise<ToolApprovalOutcome>((resolve) => {
        if (this.#closed) return resolve({ outcome: 'cancelled' })
        const { maxPending, timeoutMs } = this.settings
        if (this.#pending.size >= maxPending) {
          return resolve({ outcome: 'unavailable', reason: `${maxPending} served calls already wait for their approval (maxPendingApprovals); try again later` })
        }
        const id = randomUUID()
        const settle = (outcome: ToolApprovalOutcome) => {
          const pending = this.#pending.get(id)
          if (pending === undefined) return
          this.#pending.delete(id)
          clearTimeout(pending.timer)
          request.signal.removeEventListener('abort', onAbort)
          resolve(outcome)
        }
        const onAbort = () => settle({ outcome: 'cancelled' })
        const timer = setTimeout(() => settle({ outcome: 'unavailable', reason: `the MCP client did not answer the approval request within ${timeoutMs} ms` }), timeoutMs)
        // Waiting for a person must not keep a process alive that has nothing else to do; close() settles it.
        timer.unref?.()
        this.#pending.set(id, { call, answer: settle, timer })
        request.signal.addEventListener('abort', onAbort, { once: true })
        call.asking(id, approvalForm(request))
      })
  }

  /**
   * The call waiting under request state `id`, with the function that answers it (which removes it); `undefined`
   * when none waits under that id (it was answered, timed out or never existed).
   */
  take(id: string): { readonly call: ServedCall; readonly answer: (outcome: ToolApprovalOutcome) => void } | undefined {
    const pending = this.#pending.get(id)
    if (pending === undefined) return undefined
    return { call: pending.call, answer: pending.answer }
  }

  /** Answers every waiting call `cancelled` and refuses new ones. */
  close(): void {
    this.#closed = true
    // Answering removes an entry; a Map iterates on past deletions.
    for (const pending of this.#pending.values()) pending.answer({ outcome: 'cancelled' })
  }
}

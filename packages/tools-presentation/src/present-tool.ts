import {
  deepFreeze,
  snapshotJson,
  type GenericCallView,
  type GenericResultView,
  type ToolCallView,
  type ToolResult,
  type ToolResultView,
} from '@dsh/tools-core'
import {
  describeThrown,
  snapshotResult,
  snapshotToolCallView,
  snapshotToolResultView,
  type CardSnapshot,
} from './card-snapshot.js'
import { InvalidCardError } from './invalid-card-error.js'
import { UnknownCardError } from './unknown-card-error.js'

/**
 * Anything with a name and optional presenters: a `ToolDefinition`, or the part of one a UI keeps. The presenters
 * are called as methods (with the tool as `this`).
 */
export interface PresentableTool {
  /** The tool's name: the generic card's title. */
  readonly name: string
  /** How to show the pending call; `undefined` (or no method) for the generic card. */
  presentCall?(args: unknown): ToolCallView | undefined
  /** How to show the completed call; `undefined` (or no method) for the generic card with the raw content. */
  presentResult?(args: unknown, result: ToolResult): ToolResultView | undefined
}

/** What went wrong in a presenter (or with the result it was given). The UI shows the generic card; this is for logs. */
export interface PresenterFailure {
  /** The tool's name. */
  tool: string
  /** Which presenter failed. */
  phase: 'call' | 'result'
  /**
   * What it threw, or an `UnknownCardError` (`UNKNOWN_CARD`) or `InvalidCardError` (`INVALID_CARD`) when it
   * returned something that is not a well-formed card of the vocabulary (a Promise, a field whose getter throws, a
   * revoked proxy, …). For a result whose content cannot be shown as it is, an `InvalidCardError` at `content`.
   */
  error: unknown
}

/** Options of {@link presentToolCall} and {@link presentToolResult}. */
export interface PresentOptions {
  /** Told when a presenter throws or returns a malformed card. Its own failures are swallowed too. */
  onError?: ((failure: PresenterFailure) => void) | undefined
}

/**
 * The generic pending card: title = the tool's name, the raw arguments as input. Detached and deep-frozen; arguments
 * that are not lossless JSON (or cannot be read) are left out, with a note saying so. Never throws.
 */
export function genericCallFallback(name: string, args: unknown): GenericCallView {
  const view: GenericCallView = { card: 'generic', title: typeof name === 'string' ? name : 'tool' }
  if (args !== undefined) {
    const input = snapshotJson(args)
    if (input.ok) view.rawInput = input.value
    else view.content = [{ type: 'text', text: `[The arguments cannot be shown: ${describeThrown(input.error.message)}]` }]
  }
  return deepFreeze(view) as GenericCallView
}

/**
 * The generic completed card: no title (the pending one stays) and the result's raw content, detached and
 * deep-frozen. Content that is not a list of well-formed blocks, or cannot be read, is shown as a note. Never throws.
 */
export function genericResultFallback(result: Pick<ToolResult, 'content'>): GenericResultView {
  return deepFreeze({ card: 'generic', content: [...snapshotResult(result).content] }) as GenericResultView
}

function report(options: PresentOptions, failure: PresenterFailure): void {
  try {
    options.onError?.(failure)
  } catch {
    // A logging hook must not be able to break the UI either.
  }
}

function toolName(tool: PresentableTool): string {
  try {
    const name: unknown = tool.name
    return typeof name === 'string' ? name : String(name)
  } catch {
    return 'tool'
  }
}

function isPromise(value: unknown): value is Promise<unknown> {
  try {
    return value instanceof Promise
  } catch {
    // A proxy whose prototype cannot be read: not a promise; the snapshot will say what it is.
    return false
  }
}

/**
 * Calls the tool's presenter (read once, called as a method) and detaches what it returns. `undefined` when the tool
 * has no presenter or it returned `undefined`; otherwise the snapshot. Throws what the presenter (or reading it)
 * throws.
 */
function runPresenter<View>(
  tool: PresentableTool,
  key: 'presentCall' | 'presentResult',
  args: readonly unknown[],
  snapshot: (value: unknown) => CardSnapshot<View>,
): CardSnapshot<View> | undefined {
  const presenter: unknown = tool[key]
  if (typeof presenter !== 'function') return undefined
  const output: unknown = Reflect.apply(presenter, tool, args)
  if (output === undefined) return undefined
  if (isPromise(output)) {
    // Nobody will await it: keep its rejection from becoming an unhandled one.
    Promise.prototype.then.call(output, undefined, () => {})
    const reason = 'a Promise (presenters are synchronous)'
    return { ok: false, error: new UnknownCardError({ card: undefined, path: 'card', reason }) }
  }
  return snapshot(output)
}

/**
 * The card for a pending call: the tool's `presentCall(args)` when it returns a well-formed card, else the generic
 * card (title = tool name, raw args as input). What is returned is a detached, deep-frozen copy of the checked card:
 * the presenter's object is read once, field by field, and changing it afterwards changes nothing. A presenter that
 * throws or returns a malformed card (a getter that throws and a revoked proxy included) is contained: the generic
 * card is returned and `options.onError` is told. Never throws, whatever `tool` and `args` are.
 */
export function presentToolCall(tool: PresentableTool, args: unknown, options: PresentOptions = {}): ToolCallView {
  const name = toolName(tool)
  let failure: unknown
  try {
    const snapshot = runPresenter(tool, 'presentCall', [args], snapshotToolCallView)
    if (snapshot === undefined) return genericCallFallback(name, args)
    if (snapshot.ok) return snapshot.view
    failure = snapshot.error
  } catch (error) {
    // `undefined` may be what was thrown: the failure is reported all the same.
    failure = error
  }
  report(options, { tool: name, phase: 'call', error: failure })
  return genericCallFallback(name, args)
}

/**
 * The card for a completed call: the tool's `presentResult(args, result)` when it returns a well-formed card, else
 * the generic card with the result's raw content (and no title, so the pending title stays). Detached and contained
 * like in {@link presentToolCall}; a result whose content cannot be read (a proxy, a throwing getter, not an array)
 * gives a generic card with a note saying so, and `options.onError` is told. Never throws.
 */
/**
 * `result` as a presenter may see it: without the execution-time `structuredContent` a full `ToolExecutionResult`
 * carries, since a replayed session log does not hold it (a presenter that read it would draw a different card on
 * replay). The result itself when it has none.
 */
function withoutCanonicalValue(result: ToolResult): ToolResult {
  let holds = false
  try {
    holds = Object.hasOwn(result, 'structuredContent')
  } catch {
    return result // a hostile object: the presenter's own failure handling applies
  }
  if (!holds) return result
  const { structuredContent: _canonical, ...replayable } = result as ToolResult & { structuredContent?: unknown }
  return replayable
}

export function presentToolResult(
  tool: PresentableTool,
  args: unknown,
  result: ToolResult,
  options: PresentOptions = {},
): ToolResultView {
  const name = toolName(tool)
  let failed = false
  let failure: unknown
  try {
    const snapshot = runPresenter(tool, 'presentResult', [args, withoutCanonicalValue(result)], snapshotToolResultView)
    if (snapshot?.ok === true) return snapshot.view
    if (snapshot !== undefined) {
      failed = true
      failure = snapshot.error
    }
  } catch (error) {
    failed = true
    failure = error
  }
  if (failed) report(options, { tool: name, phase: 'result', error: failure })
  const fallback = snapshotResult(result)
  if (fallback.problem !== undefined) {
    const error = new InvalidCardError({ card: 'generic', path: 'content', reason: `the result cannot be shown: ${fallback.problem}` })
    report(options, { tool: name, phase: 'result', error })
  }
  return deepFreeze({ card: 'generic', content: [...fallback.content] }) as GenericResultView
}

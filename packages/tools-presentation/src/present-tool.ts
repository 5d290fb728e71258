import type { GenericCallView, GenericResultView, ToolCallView, ToolResult, ToolResultView } from '@dsh/tools-core'
import { findToolCallViewIssue, findToolResultViewIssue } from './validate-card.js'

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

/** What went wrong in a presenter. The UI shows the generic card instead; this is for logs. */
export interface PresenterFailure {
  /** The tool's name. */
  tool: string
  /** Which presenter failed. */
  phase: 'call' | 'result'
  /**
   * What it threw, or an `UnknownCardError` (`UNKNOWN_CARD`) or `InvalidCardError` (`INVALID_CARD`) when it
   * returned something that is not a well-formed card of the vocabulary.
   */
  error: unknown
}

/** Options of {@link presentToolCall} and {@link presentToolResult}. */
export interface PresentOptions {
  /** Told when a presenter throws or returns a malformed card. Its own failures are swallowed too. */
  onError?: ((failure: PresenterFailure) => void) | undefined
}

/** The generic pending card: title = the tool's name, the raw arguments as input. */
export function genericCallFallback(name: string, args: unknown): GenericCallView {
  const view: GenericCallView = { card: 'generic', title: name }
  if (args !== undefined) view.rawInput = args
  return view
}

/** The generic completed card: no title (the pending one stays) and the result's raw content. */
export function genericResultFallback(result: Pick<ToolResult, 'content'>): GenericResultView {
  return { card: 'generic', content: Array.isArray(result.content) ? [...result.content] : [] }
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
    return typeof tool.name === 'string' ? tool.name : String(tool.name)
  } catch {
    return 'tool'
  }
}

/**
 * The card for a pending call: the tool's `presentCall(args)` when it returns a well-formed card, else the generic
 * card (title = tool name, raw args as input). A presenter that throws or returns a malformed card is contained:
 * the generic card is returned and `options.onError` is told. Never throws.
 */
export function presentToolCall(tool: PresentableTool, args: unknown, options: PresentOptions = {}): ToolCallView {
  const name = toolName(tool)
  let view: unknown
  let failed = false
  let failure: unknown
  try {
    if (typeof tool.presentCall !== 'function') return genericCallFallback(name, args)
    view = tool.presentCall(args)
    if (view === undefined) return genericCallFallback(name, args)
    failure = findToolCallViewIssue(view)
    failed = failure !== undefined
  } catch (error) {
    failed = true
    failure = error
  }
  if (!failed) return view as ToolCallView
  report(options, { tool: name, phase: 'call', error: failure })
  return genericCallFallback(name, args)
}

/**
 * The card for a completed call: the tool's `presentResult(args, result)` when it returns a well-formed card, else
 * the generic card with the result's raw content (and no title, so the pending title stays). A presenter that throws
 * or returns a malformed card is contained like in {@link presentToolCall}. Never throws.
 */
export function presentToolResult(
  tool: PresentableTool,
  args: unknown,
  result: ToolResult,
  options: PresentOptions = {},
): ToolResultView {
  const name = toolName(tool)
  let view: unknown
  let failed = false
  let failure: unknown
  try {
    if (typeof tool.presentResult !== 'function') return genericResultFallback(result)
    view = tool.presentResult(args, result)
    if (view === undefined) return genericResultFallback(result)
    failure = findToolResultViewIssue(view)
    failed = failure !== undefined
  } catch (error) {
    failed = true
    failure = error
  }
  if (!failed) return view as ToolResultView
  report(options, { tool: name, phase: 'result', error: failure })
  return genericResultFallback(result)
}

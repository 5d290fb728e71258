import type { Agent, CallId, ContentBlock, ToolExecutionResult } from '@dsh/tools-core'
import type { ReplayableToolResult } from './replayable-result.js'
import type { ExecuteStepOptions, StepCall, ToolExecutionMode, ToolStepResult } from '@dsh/tools-registry'

/** One tool call as a model emits it: the model's call id, the tool's name, and the parsed JSON arguments. */
export interface ScriptedToolCall {
  /** The model's id for the call (unique within a session). */
  readonly id: CallId
  /** The tool the model calls. */
  readonly name: string
  /** The parsed arguments, handed to the pipeline as they are (it checks they are lossless JSON). */
  readonly arguments: unknown
}

/**
 * What the loop needs of the registry: `ctx.tools` (a `ToolRegistry`), or anything with the same `executeStep`
 * (the registry's production step runner, which batches, orders and cancels the calls).
 */
export interface ToolStepTarget {
  /** Runs one model step's calls. */
  readonly executeStep: (calls: readonly StepCall[], options?: ExecuteStepOptions) => Promise<ToolStepResult>
}

/**
 * The step reached a call's batch (its calls then start, or, after an abort, end unstarted). Every call of a batch
 * is announced, in model order, before any result of that batch.
 */
export interface ToolCallEvent {
  /** The event name, as a harness's session log spells it. */
  readonly type: 'tool/call'
  /** The step (1-based). */
  readonly step: number
  /** The batch of the step the call ran in (1-based). */
  readonly batch: number
  /** `parallel` when the call ran together with the other calls of its batch; `serial` when it ran alone. */
  readonly mode: ToolExecutionMode
  /** The model's id for the call. */
  readonly callId: CallId
  /** The tool's name. */
  readonly name: string
  /** The arguments as the model sent them. */
  readonly arguments: unknown
}

/** The result of a call, appended in model order. */
export interface ToolResultEvent {
  /** The event name. */
  readonly type: 'tool/result'
  /** The step (1-based). */
  readonly step: number
  /** The call's id. */
  readonly callId: CallId
  /** The tool's name (as called). */
  readonly name: string
  /**
   * The frozen result the pipeline resolved to, as a log persists it: without `structuredContent` (see
   * {@link ReplayableToolResult}; the step's `results` keep the whole result for programmatic use).
   */
  readonly result: ReplayableToolResult
}

/**
 * The `additionalContext` a `tools/post-execute` listener attached to a call's result, appended for the next
 * model request after every result of the step (so tool-call/result adjacency stays intact), in model order.
 */
export interface ContextMessageEvent {
  /** The event name. */
  readonly type: 'context/message'
  /** The step (1-based). */
  readonly step: number
  /** The call whose result carried the context. */
  readonly callId: CallId
  /** The context's content. */
  readonly content: readonly ContentBlock[]
  /** Who attached it, when the listener said. */
  readonly source?: string
}

/** One entry of the session log. */
export type SessionEvent = ToolCallEvent | ToolResultEvent | ContextMessageEvent

/** A group of calls of one step that ran together (`parallel`) or a single call that ran alone (`serial`). */
export interface ToolCallBatch {
  /** How the batch ran. */
  readonly mode: ToolExecutionMode
  /** Its calls, in model order. */
  readonly callIds: readonly CallId[]
}

/** One step of a session: the model's calls, how they ran, their results and the context appended after them. */
export interface SessionStep {
  /** The step's number (1-based). */
  readonly step: number
  /** The model's calls, in model order. */
  readonly calls: readonly ScriptedToolCall[]
  /** The batches the calls ran in, in order. */
  readonly batches: readonly ToolCallBatch[]
  /** The results, in model order (`results[i]` answers `calls[i]`). */
  readonly results: readonly ToolExecutionResult[]
  /** The context appended after the results, in model order. */
  readonly context: readonly ContextMessageEvent[]
  /** This step's part of the session log. */
  readonly events: readonly SessionEvent[]
}

/** Options of {@link runToolStep}. */
export interface ToolStepOptions {
  /** The agent the calls run for: its scope's tools, restrictions and guards apply. */
  readonly agent?: Agent | undefined
  /** Handed to every call as its `signal`. */
  readonly signal?: AbortSignal | undefined
  /** The step's number in the events (default 1). */
  readonly step?: number | undefined
  /** Called synchronously with each event as it is appended (to print a live session, say). */
  readonly onEvent?: ((event: SessionEvent) => void) | undefined
}

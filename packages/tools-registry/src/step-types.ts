import type { Agent, CallId, ContentBlock, ToolExecutionInput, ToolExecutionResult } from '@dsh/tools-core'
import type { ToolExecutionMode } from './tool-record.js'

/**
 * One call of a model step, in the model's order, as {@link ToolRegistry.executeStep} takes it:
 * - a `ToolExecutionInput` (its `agent` and `signal`, when present, must be the step's own);
 * - a parsed call that can run, `{ ok: true, input }`;
 * - a call already answered, `{ ok: false, result }`: an error result made before the registry (a provider parser's
 *   `PROVIDER_MALFORMED_CALL` for arguments that are not JSON). It is returned as it is, in its place; nothing runs
 *   for it.
 *
 * The `ParsedToolCall`s of `@dsh/tools-providers` are of the second and third kind, so a provider loop passes them
 * straight in.
 */
export type StepCall =
  | ToolExecutionInput
  | { readonly ok: true; readonly input: ToolExecutionInput }
  | { readonly ok: false; readonly result: ToolExecutionResult }

/** A group of a step's calls that ran together (`parallel`), or a single call that ran alone (`serial`). */
export interface StepBatch {
  /** How the batch runs. */
  readonly mode: ToolExecutionMode
  /** Its calls, as indices into the step's calls, in model order. */
  readonly calls: readonly number[]
  /** Their call ids (`''` for a call without a readable one), in the same order. */
  readonly callIds: readonly CallId[]
}

/** One call's `additionalContext`, handed back by {@link ToolRegistry.executeStep} to append after the step. */
export interface StepContext {
  /** The call whose result carried it. */
  readonly callId: CallId
  /** The context's content. */
  readonly content: readonly ContentBlock[]
  /** Who attached it, when the listener said. */
  readonly source?: string
}

/** Options of {@link ToolRegistry.executeStep}. */
export interface ExecuteStepOptions {
  /** The agent every call runs for (its scope's tools, restrictions and guards), as `execute` does. */
  readonly agent?: Agent | undefined
  /**
   * The step's one signal (the caller's). When it fires, calls already started end as `execute` ends them; calls
   * not started yet end as `ABORTED_BEFORE_DISPATCH` without any policy being asked.
   */
  readonly signal?: AbortSignal | undefined
  /** The most parallel-safe calls of a batch running at once: a positive integer; no limit when absent. */
  readonly concurrency?: number | undefined
  /**
   * Stop the step at its first failure (default `false`: siblings never cancel each other). A failure is any result
   * with `isError: true`, an already-answered call included. Calls not started then end as
   * `ABORTED_BEFORE_DISPATCH` (their text names the failed call); calls running get their `exec.signal` aborted
   * (reason: a `ToolAbortedError`) and end as `execute` ends an aborted call (`ABORTED`, or their own result if
   * they finish first).
   */
  readonly failFast?: boolean | undefined
  /**
   * Called synchronously when the step reaches a batch, before any of its calls starts (or is cancelled). A throw is
   * logged and the step goes on; a returned promise is not waited for, and its rejection is logged the same way.
   */
  readonly onBatch?: ((batch: StepBatch) => void) | undefined
  /**
   * Called synchronously with each result in model order, as soon as it and every earlier result are in. A throw is
   * logged and the step goes on; a returned promise is not waited for, and its rejection is logged the same way.
   */
  readonly onResult?: ((result: ToolExecutionResult, index: number) => void) | undefined
}

/** Options of a scope's {@link ToolScope.executeStep}: the agent is the scope's. */
export type ScopedExecuteStepOptions = Omit<ExecuteStepOptions, 'agent'>

/** A finished step, frozen. */
export interface ToolStepResult {
  /** One frozen result per call, in model order (`results[i]` answers `calls[i]`): the objects `execute` returns. */
  readonly results: readonly ToolExecutionResult[]
  /**
   * Every result's `additionalContext`, in model order, to append after all of the step's results (never between
   * them, so each provider's call/result adjacency holds). The results still carry it too: a converter given this
   * list must not read it from the results again.
   */
  readonly additionalContext: readonly StepContext[]
  /** The batches the calls ran in, in order (an already-answered call is in none). */
  readonly batches: readonly StepBatch[]
}

import type {
  Agent,
  PostToolDecision,
  PreToolDecision,
  ToolApprovalService,
  ToolExecution,
  ToolExecutionResult,
} from '@dsh/tools-core'
import type { ToolRegistry } from './tool-registry.js'

/**
 * A change to what a model can be shown, emitted as `tools/change`: a tool was registered or unregistered (in the
 * global layer when `agent` is undefined, else in that agent's scope), or a restriction of an agent's scope was
 * added or removed. Guards do not change what is visible and emit nothing.
 */
export type ToolChange =
  | {
      /** A tool appeared or went away. */
      readonly type: 'register' | 'unregister'
      /** The tool's name. */
      readonly name: string
      /** The scope it belongs to; `undefined` for a global tool. */
      readonly agent?: Agent | undefined
    }
  | {
      /** A restriction of an agent's scope was added or removed. */
      readonly type: 'restrict' | 'unrestrict'
      /** The agent whose view changed. */
      readonly agent: Agent
    }

declare module 'cordis' {
  interface Context {
    /** The tool registry and execution pipeline (`@dsh/tools-registry`). */
    tools: ToolRegistry
    /**
     * The optional approval seam the registry asks when a `tools/pre-execute` listener decides `ask`. Provide it
     * with `ctx.provide('toolApproval', service)` or a `Service` named `toolApproval`; the registry looks it up at
     * each `ask` (no `inject` needed) and denies with `APPROVAL_NO_SERVICE` when there is none.
     */
    toolApproval: ToolApprovalService
  }

  interface Events {
    /**
     * The allow/deny/ask waterfall, run before every call of a known tool whose arguments validated (a tool with a
     * validation hook, every `defineTool` tool, never reaches it with invalid arguments). Return a decision, or
     * `next()` to delegate (the innermost default is `allow`). An `ask` reaches the approval service only after the
     * guards passed. A malformed decision, returning nothing, or throwing denies the
     * call with `INVALID_DECISION`, whatever outer listeners return.
     */
    'tools/pre-execute'(
      exec: Readonly<ToolExecution>,
      next: () => Promise<PreToolDecision>,
    ): PreToolDecision | PromiseLike<PreToolDecision>
    /**
     * Around-dispatch wrappers, run after policy allowed the call. `next()` runs the inner wrappers and the body and
     * always resolves to a result (failures become `isError` results). A wrapper may replace `exec.signal` for what
     * it wraps; the registry restores it when the wrapper returns. Returning a non-result yields `INVALID_RESULT`.
     */
    'tools/execute'(
      exec: ToolExecution,
      next: () => Promise<ToolExecutionResult>,
    ): ToolExecutionResult | PromiseLike<ToolExecutionResult>
    /**
     * Inspects the result of the dispatch stage (deep-frozen). `accept` may replace (or, with an own field set to
     * `undefined`, drop) `content`, `meta` and `structuredContent`, and attach `additionalContext`; `block` turns the
     * call into an error whose content is the feedback, dropping `meta` and `structuredContent`. `next()` delegates
     * (the innermost default accepts unchanged). To redact a secret, replace every field that holds it.
     */
    'tools/post-execute'(
      exec: Readonly<ToolExecution>,
      result: ToolExecutionResult,
      next: () => Promise<PostToolDecision>,
    ): PostToolDecision | PromiseLike<PostToolDecision>
    /**
     * The authoritative outcome of every `execute`, delivered synchronously exactly once: the frozen execution and
     * the deep-frozen, JSON-safe result. Observers cannot change it; one that throws is logged and starves no peer.
     */
    'tools/result'(exec: Readonly<ToolExecution>, result: ToolExecutionResult): void
    /** What a model can be shown changed. See {@link ToolChange}. */
    'tools/change'(change: ToolChange): void
  }
}

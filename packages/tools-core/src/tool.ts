import type { Agent } from './agent.js'
import type { ToolExecutionPolicy } from './task.js'
import type { ContentBlock } from './content.js'
import type { ToolErrorInfo } from './dsh-error.js'
import type { ReadonlyJsonValue } from './json.js'
import type { ToolCallView, ToolResultView } from './presentation.js'

/** The id a model gave one tool call; results are matched to calls by it. */
export type CallId = string

/**
 * The JSON Schema of a tool's arguments: an object schema, sent to the model verbatim. Readonly so that frozen
 * and `as const` schemas are accepted; mutable JSON objects are too.
 */
export type ToolParametersSchema = { readonly [keyword: string]: ReadonlyJsonValue } & { readonly type: 'object' }

/**
 * The JSON Schema of a tool's `structuredContent` (its canonical output value): an object schema, as MCP requires of
 * a tool's `outputSchema`. Readonly for the same reason as {@link ToolParametersSchema}.
 */
export type ToolOutputSchema = { readonly [keyword: string]: ReadonlyJsonValue } & { readonly type: 'object' }

/** The model-facing part of a tool: exactly what a model request carries. */
export interface ToolSchema {
  /** The name the model calls, `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`. */
  name: string
  /** What the tool does, written for the model. */
  description: string
  /** The JSON Schema of the arguments. */
  parameters: ToolParametersSchema
}

/** What a tool body returns: content blocks, or content plus a private presentation payload. */
export type ToolExecuteReturn = ContentBlock[] | ToolExecuteObjectReturn

/** The object form of {@link ToolExecuteReturn}. */
export interface ToolExecuteObjectReturn {
  /** The model-facing content. */
  content: ContentBlock[]
  /**
   * The replayable presentation payload (the user guide's `presentationMeta`): tool-private data for
   * `presentResult` and the session log; must be lossless JSON.
   */
  meta?: unknown
  /**
   * The canonical value of the call (MCP's `structuredContent`), for programmatic callers of `ctx.tools.execute`
   * and for serving the tool over MCP; must be lossless JSON. It is an execution-time value: a session log does not
   * persist it, and `presentResult` never sees it (replay cannot supply it). `defineTool` sets it to the validated
   * `output` value.
   */
  structuredContent?: unknown
}

/**
 * A completed call as `presentResult` sees it: the replayable projections only (`content` and `meta`), never
 * `structuredContent`, because a replayed session log does not hold it. A failed call has no `meta`; its `content`
 * is the error's text, or the content a `ToolContentError` failed with.
 */
export interface ToolResult {
  /** The model-facing content. */
  content: ContentBlock[]
  /** True when the call failed. */
  isError: boolean
  /** The tool-private presentation payload of a successful call, if it attached one. */
  meta?: unknown
}

/** What {@link ToolDefinition.validateArguments} found: the arguments match, or why they do not. */
export type ToolArgumentsCheck = ToolArgumentsAccepted | ToolArgumentsRejected

/** The arguments match the tool's parameters. */
export interface ToolArgumentsAccepted {
  /** Discriminant. */
  readonly ok: true
}

/** The arguments do not match the tool's parameters. */
export interface ToolArgumentsRejected {
  /** Discriminant. */
  readonly ok: false
  /**
   * What is wrong, written for the model so it can correct the call (every violation with its path). It becomes
   * the text of the `INVALID_ARGS` result.
   */
  readonly message: string
}

/**
 * The MCP behaviour hints of a tool (MCP's `ToolAnnotations`), declared by its author. They describe the tool to
 * clients and people (a client may skip a confirmation for a read-only tool), so declare only what is true. They are
 * never part of the model-facing {@link ToolSchema}. An MCP server lists them as the tool's `annotations`; the registry
 * itself reads `readOnlyHint` only (a read-only tool may run in parallel unless `concurrencySafe` says otherwise).
 */
export interface ToolAnnotations {
  /** MCP's annotation title, a display name; prefer {@link ToolDefinition.title}. */
  readonly title?: string | undefined
  /** The tool does not modify its environment. MCP's default: `false`. */
  readonly readOnlyHint?: boolean | undefined
  /** The tool may perform destructive updates (meaningful when not read-only). MCP's default: `true`. */
  readonly destructiveHint?: boolean | undefined
  /** Calling it twice with the same arguments has no further effect (meaningful when not read-only). MCP's default: `false`. */
  readonly idempotentHint?: boolean | undefined
  /** The tool interacts with an open world of external entities (the web, a shared service). MCP's default: `true`. */
  readonly openWorldHint?: boolean | undefined
}

/** A registered tool: the model-facing schema, the body, and optional presenters. */
export interface ToolDefinition extends ToolSchema {
  /**
   * A human-readable display name for UIs and MCP clients (`Read a file`), never sent to the model (the model
   * reads `name` and `description`). An MCP server lists it as the tool's `title`.
   */
  title?: string | undefined
  /**
   * The tool's MCP behaviour hints ({@link ToolAnnotations}), as its author declares them; never sent to the model.
   * An MCP server lists exactly these as the tool's `annotations` (nothing is derived from `concurrencySafe`).
   */
  annotations?: ToolAnnotations | undefined
  /**
   * Runs one call. `args` is the parsed, frozen JSON arguments (`unknown`: a raw definition validates its own
   * input; `defineTool` does it for you). Throwing makes the call an `isError` result: a branded `DshError` keeps
   * its `{ name, code }` and the model reads its message; a `ToolContentError` (or a subclass) fails with
   * content of its own (an image of the failure, say), which the model reads instead.
   */
  execute(args: unknown, exec: ToolExecution): Promise<ToolExecuteReturn>
  /**
   * The tool's own argument check, the registry's validation hook. When a definition carries it, the registry
   * calls it right after resolving the tool, with the frozen arguments, before any `tools/pre-execute` listener,
   * guard or person sees the call: a rejection is an `INVALID_ARGS` result (`ToolArgsError`) whose text is the
   * rejection's `message`, and nobody is asked about the call. It must be pure and synchronous (a throw, or an
   * answer that is not a {@link ToolArgumentsCheck}, is `TOOL_FAILED` and the call does not run).
   *
   * `defineTool` sets it from the parameter schema. A raw JSON-Schema definition without it is not validated by
   * the registry (its body checks its own input).
   */
  validateArguments?(args: unknown): ToolArgumentsCheck
  /**
   * Cooperative timeout budget in milliseconds (a positive integer ≤ 2,147,483,647). Omit for no deadline.
   * Enforced by `@dsh/timeout-policy`; never sent to the model. Declaring it asserts that the tool honours
   * `exec.signal`.
   */
  timeoutMs?: number
  /** True when calls of this tool may run in parallel with other such calls of the same step. */
  concurrencySafe?: boolean
  /**
   * Whether and how its calls may run as tasks (in the background), read by the task layer (`@dsh/tool-tasks`);
   * without the layer every call runs in the foreground. Never sent to the model (`background: 'optional'` makes
   * `defineTool` add a `run_in_background` parameter, which is).
   */
  execution?: ToolExecutionPolicy | undefined
  /**
   * The JSON Schema of the `structuredContent` a successful call returns: an object schema (`type: 'object'`),
   * lossless JSON, checked by the registry at registration. It is never part of the model-facing
   * {@link ToolSchema} (`ctx.tools.schemas()` stays `{ name, description, parameters }`, which a provider request
   * spreads); the registry hands it out separately (`ctx.tools.outputSchema(name)`), and serving the tool over MCP
   * lists it as the tool's `outputSchema`. Declaring it asserts that every successful call returns a
   * `structuredContent` object matching it.
   *
   * `defineTool` sets it from `output.schema` when that schema is an object; an output of any other shape (a
   * string, an array, a `oneOf`) has no `outputSchema`, because MCP allows only objects there.
   */
  outputSchema?: ToolOutputSchema
  /**
   * How to show the PENDING call, from its arguments only (pure: a UI calls it while streaming and on replay).
   * Return `undefined` (or omit it) for the generic card.
   */
  presentCall?(args: unknown): ToolCallView | undefined
  /**
   * How to show the COMPLETED call, from its arguments and result only (pure, for the same reason).
   * Return `undefined` (or omit it) to keep the pending title and show the raw content.
   */
  presentResult?(args: unknown, result: ToolResult): ToolResultView | undefined
}

declare const toolExecutionTokenBrand: unique symbol

/** The opaque identity of one execution: a fresh symbol, compared by identity only. */
export type ToolExecutionToken = symbol & { readonly [toolExecutionTokenBrand]: true }

/** Creates a fresh {@link ToolExecutionToken}. The registry calls it once per execution. */
export function createToolExecutionToken(description = 'dsh.tool-execution'): ToolExecutionToken {
  return Symbol(description) as ToolExecutionToken
}

/** One tool call as the caller (the agent loop) hands it to `ctx.tools.execute`. */
export interface ToolExecutionInput {
  /** The model's id for the call. */
  readonly callId: CallId
  /** The tool the model called. */
  readonly name: string
  /** The parsed JSON arguments (`unknown`: the pipeline checks they are lossless JSON). */
  readonly arguments: unknown
  /** The agent on whose behalf the call runs. */
  readonly agent?: Agent | undefined
  /** The token of the enclosing execution, when this call is a sub-dispatch of another. */
  readonly parent?: ToolExecutionToken | undefined
  /** Cancels the call. */
  signal?: AbortSignal | undefined
}

/**
 * One call inside the pipeline. Its identity (`callId`, `name`, `arguments`, `agent`, `parent`, `token`) is
 * frozen from the start; only `signal` may be swapped, by a `tools/execute` wrapper, for its dispatch.
 */
export interface ToolExecution extends ToolExecutionInput {
  /** Registry-assigned identity, shared with nested calls only as their opaque `parent`. */
  readonly token: ToolExecutionToken
  /** The arguments as detached, deep-frozen lossless JSON. */
  readonly arguments: unknown
  /** Always present: the caller's signal, or one that never fires. */
  signal: AbortSignal
}

/** Model-facing context a `tools/post-execute` listener attaches for the NEXT request (not this result). */
export interface HookContext {
  /** The context to append after the step's results. */
  content: ContentBlock[]
  /** Who attached it (a plugin name), for logs. */
  source?: string
}

/** The outcome of one call: what the model sees, plus structure for code. */
export interface ToolExecutionResult {
  /** The call's id. */
  callId: CallId
  /**
   * What the model sees. Always present, also for errors: a failure's text, or the content a
   * `ToolContentError` failed with.
   */
  content: ContentBlock[]
  /** True when the call failed. */
  isError: boolean
  /** For failures: the machine-routable `{ name, code }`. */
  error?: ToolErrorInfo
  /**
   * Context a `tools/post-execute` listener attached for the NEXT request. Not part of `content`: the loop
   * buffers it and appends it after all results of the step, keeping call/result adjacency intact.
   */
  additionalContext?: HookContext
  /**
   * The replayable presentation payload of a successful call (the user guide's `presentationMeta`), for
   * `presentResult` and session logs.
   */
  meta?: unknown
  /**
   * The canonical value of a successful call (MCP's `structuredContent`; `defineTool`'s validated `output` value)
   * for programmatic callers and MCP clients. Execution-time only: a session log should not persist it (persist
   * `content` and `meta`, the replayable projections), and provider messages do not carry it.
   */
  structuredContent?: unknown
}

/** One scope's filter over the global tools: an allow list, a deny list, or both. */
export interface ToolRestriction {
  /** Only these global tools stay visible (when given). */
  readonly allow?: readonly string[]
  /** These global tools are hidden. */
  readonly deny?: readonly string[]
  /**
   * Whose view it filters. `'all'` (the default): every call of the agent and every listing. `'direct'`: the model's
   * own calls (calls without a `parent`) and the model-facing listings; a call dispatched from inside a running call
   * (Code Mode's sub-calls, with `parent`) sees through it, and so do the registry's listings asked with
   * `{ nested: true }`.
   */
  readonly appliesTo?: 'all' | 'direct' | undefined
  /** Added to the `UNKNOWN_TOOL` text of a call to a tool this restriction hides: how to reach it instead, say. */
  readonly hint?: string | undefined
}

/**
 * Final, deny-only pre-dispatch policy. Return a reason to deny, `undefined` to keep the waterfall's decision.
 * It has no allow result, so nothing after it can undo a denial. Guards run after the whole `tools/pre-execute`
 * waterfall and before any approval request (nobody is asked about a call a guard denies), and once more after an
 * approval is granted; keep them pure and synchronous.
 */
export type ToolGuard = (execution: Readonly<ToolExecution>) => string | undefined

/** A `tools/pre-execute` decision. */
export type PreToolDecision =
  | { kind: 'allow' }
  | { kind: 'deny'; reason: string }
  | { kind: 'ask'; reason?: string }

/**
 * A `tools/post-execute` decision.
 *
 * - `accept` keeps the result, replacing the fields it names: `content`, `meta` and `structuredContent` each
 *   replace the result's own when given, and an own field set to `undefined` drops it (`content` becomes `[]`).
 *   A field left out is kept. To redact a secret, replace (or drop) every field that holds it.
 * - `block` turns the result into a `POST_EXECUTE_BLOCKED` error whose content is `feedback`; its `meta` and
 *   `structuredContent` are dropped.
 */
export type PostToolDecision = PostToolAccept | PostToolBlock

/** The `accept` form of {@link PostToolDecision}. */
export interface PostToolAccept {
  /** Discriminant. */
  kind: 'accept'
  /** Replaces the model-facing content; `undefined` (as an own field) empties it. */
  content?: ContentBlock[] | undefined
  /** Replaces the presentation payload (lossless JSON); `undefined` (as an own field) drops it. */
  meta?: unknown
  /** Replaces the canonical value (lossless JSON); `undefined` (as an own field) drops it. */
  structuredContent?: unknown
  /** Context for the next request. */
  additionalContext?: HookContext
}

/** The `block` form of {@link PostToolDecision}. */
export interface PostToolBlock {
  /** Discriminant. */
  kind: 'block'
  /** What the model reads instead of the result. */
  feedback: ContentBlock[]
  /** Context for the next request. */
  additionalContext?: HookContext
}

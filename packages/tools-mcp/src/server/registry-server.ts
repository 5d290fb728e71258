import type { Agent, ToolApprovalOutcome, ToolExecutionResult } from '@dsh/tools-core'
import type { ToolCallApprover, ToolExecuteOptions } from '@dsh/tools-registry'
import {
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  inputResponse,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type InputRequiredResult,
  type Server,
  type ServerCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server'
import type { Context } from 'cordis'
import { McpConfigError } from '../mcp-config-error.js'
import {
  APPROVAL_INPUT_KEY,
  approvalForm,
  outcomeOf,
  PendingApprovals,
  resolveApprovalOptions,
  ServedCall,
  supportsFormElicitation,
  type ServedApprovalOptions,
  type ServedStep,
} from './served-approval.js'
import { runServedCall } from './served-call-info.js'
import { declaresTasksExtension, registerTaskHandlers, TASKS_EXTENSION } from './served-task-handlers.js'
import {
  legacyTaskWire,
  modernTaskWire,
  newTaskId,
  resolveTaskOptions,
  ServedTasks,
  taskPolicyOf,
  type ServedTask,
  type ServedTaskOptions,
  type ServedTaskOutcome,
  type ServedTaskPolicy,
} from './served-tasks.js'
import { taskResult, TaskResultServer } from './task-result-server.js'

/** What a served registry shows, on whose behalf it runs calls, and who approves them. */
export interface ToolServerOptions extends ServedApprovalOptions {
  /**
   * The agent the server acts for: `tools/list` shows the tools this agent sees (its own tools, and the globals its
   * restrictions admit), and every `tools/call` runs as this agent (`execution.agent`: its scope, restrictions and
   * guards, and whatever a `tools/pre-execute` listener decides for it). A tool the agent does not see is unknown to
   * the client (`-32602`). Default: no agent, the global tools.
   */
  readonly agent?: Agent | undefined
  /** The name the server reports. Default `dsh-tools`. */
  readonly name?: string | undefined
  /** The version the server reports. Default `0.1.0`. */
  readonly version?: string | undefined
  /**
   * How long a 2026-07-28 client may cache the `tools/list` result (its `ttlMs`, with `cacheScope: 'private'`:
   * the list depends on the agent and the token). Default 0: always stale, so a client that does not listen for
   * changes re-lists every time. Clients that keep a `subscriptions/listen` stream open (HTTP) are told of every
   * change either way. Ignored by 2025-era clients, which get `list_changed` on their connection.
   */
  readonly listTtlMs?: number | undefined
  /**
   * How long calls are offered as MCP tasks, in both generations, for tools whose definition allows it
   * (`execution.background` `'optional'` or `'required'`); `false` serves no tasks. Default: tasks on, with the
   * defaults of {@link ServedTaskOptions}. See the reference page, "Serving tasks".
   */
  readonly tasks?: ServedTaskOptions | false | undefined
}

/** How {@link createToolServer}'s own change notifications are sent; internal to the serving entries. */
export interface ToolServerWiring {
  /** Send `notifications/tools/list_changed` on the server's own connection (stdio, in-memory). Default `true`. */
  readonly notifyOnConnection?: boolean | undefined
  /**
   * The era the server's connection speaks. A 2025-era connection is notified only after `initialized`; a
   * 2026-07-28 one has no handshake, so from the start (the serving entry routes the notification onto the
   * connection's `subscriptions/listen` streams). Default `legacy`.
   */
  readonly era?: 'legacy' | 'modern' | undefined
  /**
   * Called with the send of each coalesced notification instead of sending it at once: a 2025-era HTTP session
   * holds it back until its `GET` stream is open, so a change made before the client opened it is not lost.
   */
  readonly deliver?: ((send: () => void) => void) | undefined
  /**
   * Where calls of 2026-07-28 clients wait for their approval between rounds: one store for every server instance of
   * a serving entry that builds an instance per request (stateless HTTP). Default: a store of this server's own,
   * closed by `dispose`.
   */
  readonly approvals?: PendingApprovals | undefined
  /**
   * Where the server's tasks live: one store for every server instance of a serving entry (stateless HTTP builds one
   * per request; a 2025-era session's tasks outlive nothing but the session). Default: a store of this server's own,
   * closed by `dispose`. Ignored when `options.tasks` is `false`.
   */
  readonly tasks?: ServedTasks | undefined
  /**
   * Whose tasks a request may create and see: a 2025-era session's id, a connection, the credentials of a 2026-07-28
   * caller; `undefined` offers no tasks to that request. Default: the request's session id, else this server's
   * connection.
   */
  readonly taskOwner?: ((context: ServerContext) => string | undefined) | undefined
  /**
   * Told of every call the server starts; the returned function is told how it ended (the error result's code, or
   * `undefined` for a success). The HTTP entries count calls in flight with it.
   */
  readonly onCall?: (() => (errorCode: string | undefined) => void) | undefined
  /** How requests reach the server, for `servedCallInfo(exec).transport`. Default: not said. */
  readonly transport?: 'stdio' | 'http' | undefined
}

/** What a served call's execution is told of the request that started it. */
interface ServedRequest {
  /** The request's `params._meta` (trace context). */
  readonly meta: unknown
  readonly requestId: string | number
  readonly sessionId: string | undefined
  readonly protocolVersion: string | undefined
}

/** One `ctx.tools.execute` of a served call. */
interface ServedExecution {
  readonly name: string
  readonly args: unknown
  readonly signal: AbortSignal
  readonly approval: ToolCallApprover | undefined
  readonly request: ServedRequest
}

/**
 * Runs `send` once after a burst of calls of the returned function (a plugin registering ten tools at once is one
 * notification): on the next macrotask, timer cleared by `cancel`.
 */
export function coalesced(send: () => void): { readonly schedule: () => void; readonly cancel: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined
  return {
    schedule: () => {
      if (timer !== undefined) return
      timer = setTimeout(() => {
        timer = undefined
        send()
      }, 0)
    },
    cancel: () => {
      clearTimeout(timer)
      timer = undefined
    },
  }
}

function cacheHints(options: ToolServerOptions): { 'tools/list': { ttlMs: number; cacheScope: 'private' } } | undefined {
  const ttlMs = options.listTtlMs
  if (ttlMs === undefined) return undefined
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 0) throw new McpConfigError([`listTtlMs: must be a non-negative integer number of milliseconds, got ${JSON.stringify(ttlMs) ?? String(ttlMs)}`])
  return { 'tools/list': { ttlMs, cacheScope: 'private' } }
}

let callCounter = 0

/** How much of an unknown tool's name an error message quotes. */
const maxQuotedName = 200

/** `tools/call` of a tool the served agent does not see: a JSON-RPC error (-32602), in every protocol revision. */
function unknownTool(name: string): ProtocolError {
  const shown = name.length > maxQuotedName ? `${name.slice(0, maxQuotedName)}…` : name
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${JSON.stringify(shown)}. This server has no tool of that name; tools/list names the tools it has.`, {
    code: 'UNKNOWN_TOOL',
  })
}

const hintKeys = ['title', 'readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const

/**
 * The `title` and `annotations` a served tool is listed with: exactly what its definition declares (a `defineTool`
 * author's `title` and `annotations`, or what a trusted MCP server's tool carried), own fields of the right type
 * only. Nothing is derived: `concurrencySafe` is not `readOnlyHint` (a client may skip a confirmation on it).
 */
function displayFields(definition: object | undefined): { title?: string; annotations?: Record<string, string | boolean> } {
  if (definition === undefined) return {}
  try {
    const out: { title?: string; annotations?: Record<string, string | boolean> } = {}
    const title = Object.hasOwn(definition, 'title') ? (definition as { title?: unknown }).title : undefined
    if (typeof title === 'string' && title !== '') out.title = title
    const declared = Object.hasOwn(definition, 'annotations') ? (definition as { annotations?: unknown }).annotations : undefined
    if (typeof declared === 'object' && declared !== null) {
      const annotations: Record<string, string | boolean> = {}
      for (const key of hintKeys) {
        const value = Object.hasOwn(declared, key) ? (declared as Record<string, unknown>)[key] : undefined
        if (key === 'title' ? typeof value === 'string' && value !== '' : typeof value === 'boolean') annotations[key] = value as string | boolean
      }
      if (Object.keys(annotations).length > 0) out.annotations = annotations
    }
    return out
  } catch {
    // A definition whose fields can no longer be read (a revoked proxy) is listed without them.
    return {}
  }
}

/** `value` as JSON text, or `undefined` when it cannot be (too deep for `JSON.stringify`). */
function jsonText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value)
  } catch {
    return undefined
  }
}

const noElicitation: ToolApprovalOutcome = Object.freeze({
  outcome: 'unavailable',
  reason:
    'the MCP client did not declare the elicitation capability (form mode), so its user cannot be asked. Connect with a client that supports elicitation, or have the server allow this call',
})

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The MCP form of a result. MCP allows only an object as `structuredContent`: another value (a `defineTool`
 * output that is a string or an array) is not sent, and the client reads it from the rendered content. A
 * successful result of a tool that lists an `outputSchema` must carry its object (clients reject the result
 * otherwise); when it does not (a `tools/post-execute` listener dropped it), the call is reported as failed
 * (`INVALID_TOOL_OUTPUT`) with its content, rather than as a success the client cannot check.
 */
function toMcpResult(result: ToolExecutionResult, declaresOutput: boolean): Record<string, unknown> {
  const structured = result.isError ? undefined : result.structuredContent
  if (isJsonObject(structured)) return withError({ content: result.content, isError: false, structuredContent: structured }, result)
  if (!result.isError && declaresOutput) {
    const note = 'The tool declares an outputSchema, but this result carries no structuredContent object to check against it.'
    return {
      content: [...result.content, { type: 'text', text: note }],
      isError: true,
      _meta: { 'dsh/error': { name: 'ToolOutputError', code: 'INVALID_TOOL_OUTPUT' } },
    }
  }
  return withError({ content: result.content, isError: result.isError }, result)
}

function withError(out: Record<string, unknown>, result: ToolExecutionResult): Record<string, unknown> {
  if (result.error !== undefined) out._meta = { 'dsh/error': { name: result.error.name, code: result.error.code } }
  return out
}

const inTask: ToolApprovalOutcome = Object.freeze({
  outcome: 'unavailable',
  reason:
    'the call runs as an MCP task, and this server asks for approval only within a call in the foreground. Call the tool without a task, or have the server allow this call',
})

/** The capabilities that announce tasks: the 2025-11-25 `tasks` capability, the 2026-07-28 extension, or both. */
function taskCapabilities(era: 'legacy' | 'modern' | undefined): Partial<ServerCapabilities> {
  const legacy = { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }
  const modern = { extensions: { [TASKS_EXTENSION]: {} } }
  if (era === 'legacy') return legacy
  if (era === 'modern') return modern
  return { ...legacy, ...modern }
}

/** `pending`'s value if it settles within `ms`, else `undefined` (`pending` keeps running). */
function withinBudget<T>(pending: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms)
    void pending.then((value) => {
      clearTimeout(timer)
      resolve(value)
    })
  })
}

/** What a 2026-07-28 round needs to turn its call into a task once the budget is spent. */
interface TaskPlan {
  readonly owner: string
  readonly policy: ServedTaskPolicy
  readonly budgetMs: number
  readonly startedAt: number
}

/**
 * A low-level MCP `Server` in front of the registry of `ctx`:
 *
 * - `tools/list` is `ctx.tools.schemas(agent)`, each tool with the `title` and `annotations` its definition declares
 *   (nothing derived) and its `ctx.tools.outputSchema` as `outputSchema`; to a 2025-era client, a tool whose
 *   `execution.background` is `'optional'` or `'required'` is listed with that `execution.taskSupport`;
 * - every `tools/call` goes through `ctx.tools.execute` (policy, guards, wrappers); the client's cancellation aborts
 *   it; a tool the agent does not see is a JSON-RPC error `-32602` (not an `isError` result), in every revision;
 * - an `ask` is put to the client's user by elicitation (`approval: 'client'`, the default): `elicitation/create`
 *   within the call for a 2025-era client, an `input_required` result and the client's retry for a 2026-07-28 one;
 *   a client that did not declare elicitation gets the denial `APPROVAL_UNAVAILABLE` naming the reason;
 * - long calls become MCP tasks (`options.tasks`): a task-augmented call of a 2025-era client, and a call of a
 *   2026-07-28 client that declared the tasks extension once it outlives the tool's foreground budget; `tasks/get`,
 *   `tasks/cancel` (which aborts the call's `exec.signal`), and for 2025-era clients `tasks/result` and `tasks/list`;
 * - registry changes send `notifications/tools/list_changed` on the server's connection, one per burst of changes.
 *
 * Call the returned `dispose` to stop listening, to deny the calls still waiting for an answer and (unless the wiring
 * shares a task store) to cancel its tasks. `listTtlMs` sets the `ttlMs` of 2026-07-28 `tools/list` results. Invalid
 * options throw `McpConfigError` (`INVALID_CONFIG`).
 */
export function createToolServer(ctx: Context, options: ToolServerOptions = {}, wiring: ToolServerWiring = {}): { server: Server; dispose: () => void } {
  const hints = cacheHints(options)
  const approvalSettings = resolveApprovalOptions(options)
  const taskSettings = resolveTaskOptions(options.tasks)
  const ownApprovals = wiring.approvals === undefined ? new PendingApprovals(approvalSettings) : undefined
  const approvals = wiring.approvals ?? (ownApprovals as PendingApprovals)
  const ownTasks = taskSettings !== undefined && wiring.tasks === undefined ? new ServedTasks(taskSettings) : undefined
  const taskStore = taskSettings === undefined ? undefined : (wiring.tasks ?? ownTasks)
  const connectionOwner = `connection:${newTaskId()}`
  const ownerOf = (context: ServerContext): string | undefined => {
    if (taskStore === undefined) return undefined
    return wiring.taskOwner === undefined ? (context.sessionId ?? connectionOwner) : wiring.taskOwner(context)
  }
  const server = new TaskResultServer(
    { name: options.name ?? 'dsh-tools', version: options.version ?? '0.1.0' },
    {
      capabilities: { tools: { listChanged: true }, ...(taskStore === undefined ? {} : taskCapabilities(wiring.era)) },
      ...(hints === undefined ? {} : { cacheHints: hints }),
    },
  )
  const tools = ctx.tools
  const { agent } = options
  server.setRequestHandler('tools/list', async (_request, context) => {
    const offerTasks = context.mcpReq.envelope === undefined && ownerOf(context) !== undefined
    return {
      tools: tools.schemas(agent).map((schema) => {
        const outputSchema = tools.outputSchema(schema.name, agent)
        const definition = tools.get(schema.name, agent)
        const policy = offerTasks ? taskPolicyOf(definition) : undefined
        return {
          name: schema.name,
          ...displayFields(definition),
          description: schema.description,
          inputSchema: schema.parameters as { type: 'object' },
          ...(outputSchema === undefined ? {} : { outputSchema: outputSchema as { type: 'object' } }),
          ...(policy === undefined ? {} : { execution: { taskSupport: policy.background } }),
        }
      }),
    }
  })

  const requestOf = (context: ServerContext): ServedRequest => {
    const revision = (context.mcpReq.envelope as Record<string, unknown> | undefined)?.[PROTOCOL_VERSION_META_KEY]
    return {
      meta: context.mcpReq._meta,
      requestId: context.mcpReq.id,
      sessionId: context.sessionId,
      // A 2026-07-28 request names its revision; a 2025-era connection negotiated one at initialize.
      protocolVersion: typeof revision === 'string' ? revision : server.getNegotiatedProtocolVersion(),
    }
  }
  const execute = ({ name, args, signal, approval, request }: ServedExecution): Promise<ToolExecutionResult> => {
    callCounter += 1
    const callId = `mcp_${callCounter}`
    const callOptions: ToolExecuteOptions | undefined = approval === undefined ? undefined : { approval }
    const ended = wiring.onCall?.()
    const { meta, ...said } = request
    const info = { callId, method: 'tools/call' as const, ...said, transport: wiring.transport }
    const pending = runServedCall(info, meta, () => tools.execute({ callId, name, arguments: args, agent, signal }, callOptions))
    if (ended === undefined) return pending
    return pending.then(
      (result) => (ended(result.isError ? (result.error?.code ?? 'TOOL_ERROR') : undefined), result),
      (error: unknown) => (ended('INTERNAL_ERROR'), Promise.reject(error)),
    )
  }
  const finish = (name: string, result: ToolExecutionResult): CallToolResult => {
    // The tool was there when the call began; one removed before the pipeline resolved it is unknown all the same.
    if (result.error?.code === 'UNKNOWN_TOOL') throw unknownTool(name)
    return toMcpResult(result, tools.outputSchema(name, agent) !== undefined) as CallToolResult
  }
  /** How a task's call ended, as `tools/call` would have answered it. */
  const taskOutcomeOf = (name: string, result: ToolExecutionResult): ServedTaskOutcome => {
    try {
      const answer = finish(name, result)
      return { kind: 'result', result: Object.freeze(answer as Record<string, unknown>), isError: answer.isError === true }
    } catch (error) {
      const failure = error instanceof ProtocolError ? error : new ProtocolError(ProtocolErrorCode.InternalError, error instanceof Error ? error.message : String(error))
      return { kind: 'error', error: { code: failure.code, message: failure.message, ...(failure.data === undefined ? {} : { data: failure.data }) } }
    }
  }
  /** 2025-11-25 `notifications/tasks/status` when a task of this connection ends (best effort). */
  const notifyStatus = (task: ServedTask): void => {
    void server.notification({ method: 'notifications/tasks/status', params: legacyTaskWire(task, taskStore?.settings.pollIntervalMs ?? 0) }).catch(() => {})
  }
  /** The plan of a 2026-07-28 round: `undefined` unless its call may become a task. */
  const planFor = (name: string, context: ServerContext, startedAt: number): TaskPlan | undefined => {
    if (taskStore === undefined || !declaresTasksExtension(context.mcpReq.envelope)) return undefined
    const owner = ownerOf(context)
    const policy = taskPolicyOf(tools.get(name, agent))
    if (owner === undefined || policy === undefined) return undefined
    const budgetMs = policy.autoBackgroundAfterMs ?? (policy.background === 'required' ? 0 : taskStore.settings.autoBackgroundAfterMs)
    return { owner, policy, budgetMs, startedAt }
  }
  /** A 2026-07-28 call that became a task: asks are refused (nobody waits on this round), the result is recorded. */
  const drain = async (task: ServedTask, call: ServedCall, pending: Promise<ServedStep>): Promise<void> => {
    let step = await pending
    while (step.kind === 'ask') {
      approvals.take(step.id)?.answer(inTask)
      step = await call.next()
    }
    task.finish(taskOutcomeOf(call.name, step.result))
  }
  /** One round of a 2026-07-28 call: its signal linked to the execution while the round is open. */
  const round = async (call: ServedCall, signal: AbortSignal, plan: TaskPlan | undefined): Promise<CallToolResult | InputRequiredResult> => {
    const unfollow = call.follow(signal)
    let step: ServedStep | undefined
    try {
      const pending = call.next()
      step = plan === undefined ? await pending : await withinBudget(pending, plan.budgetMs)
      if (step === undefined && taskStore !== undefined && plan !== undefined) {
        const task = taskStore.create({ owner: plan.owner, generation: 'modern', maxRuntimeMs: plan.policy.maxRuntimeMs, startedAt: plan.startedAt })
        if (task !== undefined) {
          // From now on the task's cancellation, not this request, stops the call.
          unfollow()
          call.follow(task.signal)
          void drain(task, call, pending)
          return taskResult({ resultType: 'task', ...modernTaskWire(task, taskStore.settings.pollIntervalMs) }) as unknown as CallToolResult
        }
      }
      // No task (none wanted, or no room for one more): the call stays in the foreground.
      step ??= await pending
    } finally {
      // The client answers in a new request (a retry): this round's request ends here, its signal no longer counts.
      unfollow()
    }
    if (step.kind === 'ask') return inputRequired({ inputRequests: { [APPROVAL_INPUT_KEY]: inputRequired.elicit(step.form) }, requestState: step.id })
    return finish(call.name, step.result)
  }
  /** A task-augmented 2025-11-25 call: the task is created before the answer, the call runs under its signal. */
  const startLegacyTask = (name: string, args: unknown, ttl: unknown, owner: string, request: ServedRequest): Record<string, unknown> => {
    const store = taskStore as ServedTasks
    const policy = taskPolicyOf(tools.get(name, agent))
    if (policy === undefined) {
      throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `Tool ${JSON.stringify(name)} does not support task-augmented calls (its execution.taskSupport is 'forbidden'); call it without params.task.`)
    }
    const task = store.create({ owner, generation: 'legacy', ttlMs: typeof ttl === 'number' ? ttl : undefined, maxRuntimeMs: policy.maxRuntimeMs, onChange: notifyStatus })
    if (task === undefined) {
      const { maxRunningTasks } = store.settings
      throw new ProtocolError(-32000 as ProtocolErrorCode, `Too many running tasks: this server runs at most ${maxRunningTasks} tasks per session at once. Wait for one to finish, cancel one (tasks/cancel), or call the tool without a task.`, {
        code: 'MCP_TASK_LIMIT',
        maxRunningTasks,
      })
    }
    const approval = approvalSettings.mode === 'host' ? undefined : () => inTask
    void execute({ name, args, signal: task.signal, approval, request }).then(
      (result) => task.finish(taskOutcomeOf(name, result)),
      (error: unknown) => task.finish({ kind: 'error', error: { code: ProtocolErrorCode.InternalError, message: error instanceof Error ? error.message : String(error) } }),
    )
    return taskResult({ task: legacyTaskWire(task, store.settings.pollIntervalMs) })
  }

  server.setRequestHandler('tools/call', async (request, context) => {
    const { name } = request.params
    const args = request.params.arguments ?? {}
    const startedAt = Date.now()
    const served = requestOf(context)
    const state = context.mcpReq.requestState()
    if (typeof state === 'string') {
      // A 2026-07-28 client retries a call with its answer to our approval request.
      const waiting = approvals.take(state)
      const argumentsJson = waiting?.call.argumentsJson
      if (waiting === undefined || waiting.call.name !== name || argumentsJson === undefined || argumentsJson !== jsonText(args)) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          'Invalid or expired requestState: no call of this tool with these arguments waits for approval under it (it was answered, timed out, or the retry changed the call). Call the tool again.',
          { reason: 'invalid_request_state' },
        )
      }
      waiting.answer(outcomeOf(inputResponse(context.mcpReq.inputResponses, APPROVAL_INPUT_KEY)))
      return round(waiting.call, context.mcpReq.signal, planFor(name, context, startedAt))
    }
    if (tools.get(name, agent) === undefined) throw unknownTool(name)
    const envelope = context.mcpReq.envelope
    if (envelope === undefined) {
      const taskParam = (request.params as { task?: unknown }).task
      const owner = ownerOf(context)
      // A receiver that serves no tasks to this request processes it normally, ignoring `task` (2025-11-25).
      if (typeof taskParam === 'object' && taskParam !== null && owner !== undefined) {
        return startLegacyTask(name, args, (taskParam as { ttl?: unknown }).ttl, owner, served) as unknown as CallToolResult
      }
      if (approvalSettings.mode === 'host') return finish(name, await execute({ name, args, signal: context.mcpReq.signal, approval: undefined, request: served }))
      // 2025 era: ask within the call (elicitation/create on this request's stream), under the call's own signal.
      const ask: ToolCallApprover = async (approvalRequest) => {
        if (!supportsFormElicitation(server.getClientCapabilities())) return noElicitation
        try {
          return outcomeOf(await context.mcpReq.elicitInput(approvalForm(approvalRequest), { signal: approvalRequest.signal, timeout: approvalSettings.timeoutMs }))
        } catch (error) {
          if (approvalRequest.signal.aborted) return { outcome: 'cancelled' }
          return { outcome: 'unavailable', reason: `the MCP client did not answer the approval request (${error instanceof Error ? error.message : String(error)})` }
        }
      }
      return finish(name, await execute({ name, args, signal: context.mcpReq.signal, approval: ask, request: served }))
    }
    // 2026-07-28: an ask ends this round with input_required; the call waits in `approvals` for the client's retry.
    const call = new ServedCall(name, jsonText(args))
    if (approvalSettings.mode === 'host') call.run((signal) => execute({ name, args, signal, approval: undefined, request: served }))
    else {
      const waitForClient = approvals.approverFor(call)
      const canElicit = supportsFormElicitation((envelope as Record<string, unknown>)[CLIENT_CAPABILITIES_META_KEY])
      call.run((signal) => execute({ name, args, signal, approval: canElicit ? waitForClient : () => noElicitation, request: served }))
    }
    return round(call, context.mcpReq.signal, planFor(name, context, startedAt))
  })
  if (taskStore !== undefined) registerTaskHandlers(server, taskStore, ownerOf)
  const disposeOwn = () => {
    ownApprovals?.close()
    ownTasks?.close()
  }
  if (wiring.notifyOnConnection === false) return { server, dispose: disposeOwn }
  let connected = wiring.era === 'modern'
  server.oninitialized = () => (connected = true)
  const send = () => void server.sendToolListChanged().catch(() => {})
  const notify = coalesced(() => {
    if (!connected) return
    if (wiring.deliver === undefined) send()
    else wiring.deliver(send)
  })
  const stop = ctx.on('tools/change', notify.schedule)
  return {
    server,
    dispose: () => {
      stop()
      notify.cancel()
      disposeOwn()
    },
  }
}

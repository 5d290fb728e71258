import type { ToolExecution, ToolExecutionResult } from '@dsh/tools-core'
import type { ToolRegistry } from '@dsh/tools-registry'
import {
  context as otelContext,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context as OtelContext,
  type Counter,
  type Histogram,
  type Span,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api'
import { ATTR, EVENT, SERVED_CALL_CONTEXT_KEY } from './attributes.js'
import { boundText } from './bound-text.js'
import type { ResolvedOtelConfig } from './config.js'

/** What the plugin keeps of one call between its stages. */
interface CallTrace {
  readonly span: Span
  /** The OpenTelemetry context holding {@link span}: the parent of the stage spans and of sub-calls. */
  readonly context: OtelContext
  readonly name: string
  readonly started: number
  approval: Span | undefined
}

/** An MCP server's tool, as `mcp/status` described it. */
interface McpToolInfo {
  readonly server: string
  readonly wireName: string
  readonly protocolVersion: string | undefined
}

/** The served call's request, as `@dsh/tools-mcp/server` sets it in the context (its `ServedCallInfo`). */
const SERVED_CALL = Symbol.for(SERVED_CALL_CONTEXT_KEY)

/** The part of a task snapshot (`@dsh/tool-tasks`) the plugin reads. */
interface SettledTask {
  readonly id: string
  readonly tool: string
  readonly callId: string
  readonly status: string
  readonly startedAt: number
  readonly endedAt?: number | undefined
}

/** Calls remembered for linking a task to the call that started it; the oldest are forgotten past this. */
const RECENT_CALLS = 4096
/** A model-supplied name is cut to this in spans (an unknown tool's name is whatever the model wrote). */
const MAX_NAME = 64
const DENIAL_CODES = new Set(['DENIED', 'GUARD_DENIED', 'INVALID_DECISION'])
const REPLACEABLE = ['content', 'meta', 'structuredContent'] as const

/** Reads an own data property without running a getter: the plugin never runs a listener's or a tool's code. */
function ownValue(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null) return undefined
  const descriptor = Object.getOwnPropertyDescriptor(value, key)
  return descriptor !== undefined && 'value' in descriptor ? descriptor.value : undefined
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function'
}

function safeName(name: unknown): string {
  return typeof name === 'string' ? (name.length > MAX_NAME ? `${name.slice(0, MAX_NAME)}…` : name) : '(invalid)'
}

function outcomeOf(result: ToolExecutionResult): { readonly code: string | undefined; readonly errorName: string | undefined } {
  if (result.isError !== true) return { code: undefined, errorName: undefined }
  const code = ownValue(result.error, 'code')
  const errorName = ownValue(result.error, 'name')
  return { code: typeof code === 'string' ? code : 'TOOL_FAILED', errorName: typeof errorName === 'string' ? errorName : undefined }
}

/**
 * The MCP server attributes of a call `@dsh/tools-mcp/server` serves: read from the value it sets in the context the
 * registry runs the call in, when that value names this very call (a sub-call inherits the context, not the id).
 */
function servedAttributes(exec: Readonly<ToolExecution>, parent: OtelContext): Attributes | undefined {
  if (exec.parent !== undefined) return undefined
  const info = parent.getValue(SERVED_CALL)
  if (ownValue(info, 'callId') !== exec.callId || typeof exec.callId !== 'string') return undefined
  const attributes: Attributes = { [ATTR.MCP_METHOD_NAME]: 'tools/call' }
  const requestId = ownValue(info, 'requestId')
  if (typeof requestId === 'string' || typeof requestId === 'number') attributes[ATTR.JSONRPC_REQUEST_ID] = String(requestId)
  const sessionId = ownValue(info, 'sessionId')
  if (typeof sessionId === 'string') attributes[ATTR.MCP_SESSION_ID] = sessionId
  const protocolVersion = ownValue(info, 'protocolVersion')
  if (typeof protocolVersion === 'string') attributes[ATTR.MCP_PROTOCOL_VERSION] = protocolVersion
  const transport = ownValue(info, 'transport')
  if (transport === 'stdio') attributes[ATTR.NETWORK_TRANSPORT] = 'pipe'
  else if (transport === 'http') {
    attributes[ATTR.NETWORK_TRANSPORT] = 'tcp'
    attributes[ATTR.NETWORK_PROTOCOL_NAME] = 'http'
  }
  return attributes
}

/**
 * The listeners of the plugin: one span per call from its first observed stage to its result, with the stages
 * that take time (approval, the body) as child spans and the others (policy, dispatch, review) as events.
 */
export class CallObserver {
  private readonly calls = new WeakMap<object, CallTrace>()
  /** Execution tokens of calls seen at `tools/pre-execute` → their span's context (sub-calls name it as `parent`). */
  private readonly tokens = new WeakMap<symbol, OtelContext>()
  /** Recent call ids → their span, for linking a task to the call that started it. */
  private readonly recent = new Map<string, { readonly name: string; readonly span: SpanContext }>()
  private readonly mcpTools = new Map<string, McpToolInfo>()

  constructor(
    private readonly tracer: Tracer,
    private readonly duration: Histogram,
    private readonly denials: Counter,
    private readonly tools: ToolRegistry,
    private readonly config: ResolvedOtelConfig,
    private readonly warn: (message: string, error: unknown) => void,
  ) {}

  private mcpToolOf(name: string): McpToolInfo | undefined {
    return this.mcpTools.size === 0 ? undefined : this.mcpTools.get(name)
  }

  private open(exec: Readonly<ToolExecution>, parent: OtelContext, attributes: Attributes): CallTrace {
    const name = safeName(exec.name)
    attributes[ATTR.GEN_AI_OPERATION_NAME] = 'execute_tool'
    attributes[ATTR.GEN_AI_TOOL_NAME] = name
    if (typeof exec.callId === 'string') attributes[ATTR.GEN_AI_TOOL_CALL_ID] = exec.callId
    const agentId = ownValue(exec.agent, 'id')
    if (typeof agentId === 'string') attributes[ATTR.GEN_AI_AGENT_ID] = agentId
    const mcp = this.mcpToolOf(name)
    if (mcp === undefined) attributes[ATTR.GEN_AI_TOOL_TYPE] = 'function'
    else {
      attributes[ATTR.GEN_AI_TOOL_TYPE] = 'extension'
      attributes[ATTR.MCP_METHOD_NAME] = 'tools/call'
      attributes[ATTR.DSH_MCP_SERVER] = mcp.server
      attributes[ATTR.DSH_MCP_TOOL_WIRE_NAME] = mcp.wireName
      if (mcp.protocolVersion !== undefined) attributes[ATTR.MCP_PROTOCOL_VERSION] = mcp.protocolVersion
    }
    const served = servedAttributes(exec, parent)
    if (served !== undefined) Object.assign(attributes, served)
    const kind = served === undefined ? SpanKind.INTERNAL : SpanKind.SERVER
    const span = this.tracer.startSpan(`execute_tool ${name}`, { kind, attributes }, parent)
    return { span, context: trace.setSpan(parent, span), name, started: performance.now(), approval: undefined }
  }

  /** `tools/pre-execute`, prepended: the call's span starts here; the waterfall's decision is recorded. */
  readonly preExecute = (exec: Readonly<ToolExecution>, next: () => unknown): unknown => {
    try {
      const attributes: Attributes = {}
      const parentToken = exec.parent
      let parent: OtelContext | undefined
      if (parentToken !== undefined) {
        parent = this.tokens.get(parentToken)
        const parentSpan = parent === undefined ? undefined : trace.getSpan(parent)
        const outerId = parentSpan === undefined ? undefined : /^(.*):code:\d+$/.exec(exec.callId)?.[1]
        if (outerId !== undefined) attributes[ATTR.DSH_PARENT_CALL_ID] = outerId
      }
      const definition = this.tools.definitionOf(exec)
      if (definition !== undefined && definition.description !== '') attributes[ATTR.GEN_AI_TOOL_DESCRIPTION] = boundText(definition.description, 256)
      const call = this.open(exec, parent ?? otelContext.active(), attributes)
      this.calls.set(exec, call)
      this.tokens.set(exec.token, call.context)
      const decision = next()
      if (isThenable(decision)) return decision.then((value) => this.decided(call, value))
      return this.decided(call, decision)
    } catch (error) {
      this.warn('a tools/pre-execute step of the plugin failed', error)
      return next()
    }
  }

  private decided<T>(call: CallTrace, decision: T): T {
    try {
      const kind = ownValue(decision, 'kind')
      if (typeof kind === 'string') {
        call.span.setAttribute(ATTR.DSH_POLICY_DECISION, kind)
        call.span.addEvent(EVENT.POLICY_DECIDED, { [ATTR.DSH_POLICY_DECISION]: kind })
        if (kind === 'ask') {
          call.approval = this.tracer.startSpan(`approval ${call.name}`, { attributes: { [ATTR.DSH_STAGE]: 'approval' } }, call.context)
        }
      }
    } catch (error) {
      this.warn('recording a policy decision failed', error)
    }
    return decision
  }

  private endApproval(call: CallTrace, outcome: string): void {
    const approval = call.approval
    if (approval === undefined) return
    call.approval = undefined
    approval.setAttribute(ATTR.DSH_APPROVAL_OUTCOME, outcome)
    call.span.setAttribute(ATTR.DSH_APPROVAL_OUTCOME, outcome)
    if (outcome !== 'allowed-once') approval.setStatus({ code: SpanStatusCode.ERROR, message: outcome })
    approval.end()
  }

  /** `tools/execute`, prepended (the outermost wrapper): the dispatch's start and end, the approval's end. */
  readonly dispatch = (exec: ToolExecution, next: () => Promise<ToolExecutionResult>): Promise<ToolExecutionResult> => {
    const call = this.calls.get(exec)
    if (call === undefined) return next()
    this.endApproval(call, 'allowed-once')
    call.span.addEvent(EVENT.DISPATCH_STARTED)
    return Promise.resolve(next()).then((result) => {
      call.span.addEvent(EVENT.DISPATCH_ENDED)
      return result
    })
  }

  /**
   * `tools/execute`, appended when the plugin loads: the body (and any wrapper registered after the plugin) as a
   * child span, active while it runs, so spans a tool makes itself are its children. It ends when the body settles,
   * which for a call a timeout abandoned or a task moved to the background is after the call's own span.
   */
  readonly body = (exec: ToolExecution, next: () => Promise<ToolExecutionResult>): Promise<ToolExecutionResult> => {
    const call = this.calls.get(exec)
    if (call === undefined) return next()
    // An MCP server's tool: the body is the tools/call request, the MCP client span whose context goes in its _meta.
    const mcp = this.mcpToolOf(call.name)
    const attributes: Attributes = { [ATTR.DSH_STAGE]: 'body' }
    if (mcp !== undefined) {
      attributes[ATTR.MCP_METHOD_NAME] = 'tools/call'
      attributes[ATTR.GEN_AI_TOOL_NAME] = mcp.wireName
      if (mcp.protocolVersion !== undefined) attributes[ATTR.MCP_PROTOCOL_VERSION] = mcp.protocolVersion
    }
    const kind = mcp === undefined ? SpanKind.INTERNAL : SpanKind.CLIENT
    const span = this.tracer.startSpan(`body ${call.name}`, { kind, attributes }, call.context)
    const settled = Promise.resolve(otelContext.with(trace.setSpan(call.context, span), next))
    return settled.then(
      (result) => {
        const { code } = outcomeOf(result)
        if (code !== undefined) {
          span.setAttribute(ATTR.ERROR_TYPE, code)
          span.setStatus({ code: SpanStatusCode.ERROR, message: code })
        }
        span.end()
        return result
      },
      (error: unknown) => {
        span.setStatus({ code: SpanStatusCode.ERROR })
        span.end()
        throw error
      },
    )
  }

  /** `tools/post-execute`, prepended: the review's decision, and which fields it replaced. */
  readonly review = (exec: Readonly<ToolExecution>, _result: ToolExecutionResult, next: () => unknown): unknown => {
    const call = this.calls.get(exec)
    if (call === undefined) return next()
    call.span.addEvent(EVENT.REVIEW_STARTED)
    const decision = next()
    if (isThenable(decision)) return decision.then((value) => this.reviewed(call, value))
    return this.reviewed(call, decision)
  }

  private reviewed<T>(call: CallTrace, decision: T): T {
    try {
      const kind = ownValue(decision, 'kind')
      const attributes: Attributes = {}
      if (typeof kind === 'string') attributes[ATTR.DSH_REVIEW_DECISION] = kind
      if (kind === 'accept') {
        const replaced = REPLACEABLE.filter((key) => typeof decision === 'object' && decision !== null && Object.hasOwn(decision, key))
        if (replaced.length > 0) attributes[ATTR.DSH_REVIEW_REPLACED] = replaced
      }
      call.span.setAttributes(attributes)
      call.span.addEvent(EVENT.REVIEW_DECIDED, attributes)
    } catch (error) {
      this.warn('recording a review decision failed', error)
    }
    return decision
  }

  /** `tools/result`: the outcome, the opt-in content, the metrics; the call's span ends. */
  readonly result = (exec: Readonly<ToolExecution>, result: ToolExecutionResult): void => {
    try {
      let call = this.calls.get(exec)
      if (call === undefined) {
        // Ended before any policy (malformed, not JSON, unknown tool, invalid arguments): a span of its own, now.
        call = this.open(exec, otelContext.active(), { [ATTR.DSH_ENDED_BEFORE_POLICY]: true })
      } else this.calls.delete(exec)
      const { code, errorName } = outcomeOf(result)
      this.endApproval(call, code ?? 'allowed-once')
      const span = call.span
      const outcome = code ?? 'ok'
      span.setAttribute(ATTR.DSH_OUTCOME, outcome)
      if (code !== undefined) {
        span.setAttribute(ATTR.ERROR_TYPE, code)
        if (errorName !== undefined) span.setAttribute(ATTR.DSH_ERROR_NAME, errorName)
        span.setStatus({ code: SpanStatusCode.ERROR, message: code })
      }
      if (this.config.captureArguments) span.setAttribute(ATTR.GEN_AI_TOOL_CALL_ARGUMENTS, this.capture(exec.arguments, 'arguments'))
      if (this.config.captureResults) span.setAttribute(ATTR.GEN_AI_TOOL_CALL_RESULT, this.capture(result.content, 'result'))
      span.end()

      const known = this.tools.definitionOf(exec) !== undefined
      const metricAttributes: Attributes = {
        [ATTR.GEN_AI_OPERATION_NAME]: 'execute_tool',
        // An unknown tool's name is the model's free text: kept out of metric series (the conventions' _OTHER).
        [ATTR.GEN_AI_TOOL_NAME]: known ? call.name : '_OTHER',
        [ATTR.DSH_OUTCOME]: outcome,
      }
      if (code !== undefined) metricAttributes[ATTR.ERROR_TYPE] = code
      this.duration.record((performance.now() - call.started) / 1000, metricAttributes)
      if (code !== undefined && (errorName === 'ToolDeniedError' || DENIAL_CODES.has(code))) {
        this.denials.add(1, { [ATTR.GEN_AI_TOOL_NAME]: metricAttributes[ATTR.GEN_AI_TOOL_NAME], [ATTR.ERROR_TYPE]: code })
      }
      if (typeof exec.callId === 'string') {
        this.recent.delete(exec.callId)
        this.recent.set(exec.callId, { name: call.name, span: span.spanContext() })
        if (this.recent.size > RECENT_CALLS) this.recent.delete(this.recent.keys().next().value as string)
      }
    } catch (error) {
      this.warn('recording a tool result failed', error)
    }
  }

  private capture(value: unknown, part: 'arguments' | 'result'): string {
    let text: string
    try {
      text = JSON.stringify(value) ?? 'null'
    } catch {
      return '[not JSON]'
    }
    const redact = this.config.redact
    if (redact !== undefined) {
      try {
        const redacted = redact(text, part)
        text = typeof redacted === 'string' ? redacted : '[redaction failed]'
      } catch {
        return '[redaction failed]'
      }
    }
    return boundText(text, this.config.maxLength)
  }

  /** `tasks/settled` (`@dsh/tool-tasks`): a span for the task's run, linked to the call that started it. */
  readonly taskSettled = (task: unknown): void => {
    try {
      const id = ownValue(task, 'id')
      const tool = ownValue(task, 'tool')
      const callId = ownValue(task, 'callId')
      const status = ownValue(task, 'status')
      const startedAt = ownValue(task, 'startedAt')
      const endedAt = ownValue(task, 'endedAt')
      if (typeof id !== 'string' || typeof tool !== 'string' || typeof callId !== 'string') return
      const snapshot: SettledTask = {
        id,
        tool,
        callId,
        status: typeof status === 'string' ? status : 'unknown',
        startedAt: typeof startedAt === 'number' ? startedAt : Date.now(),
        endedAt: typeof endedAt === 'number' ? endedAt : undefined,
      }
      const started = this.recent.get(callId)
      const link = started !== undefined && started.name === snapshot.tool ? [{ context: started.span }] : []
      const name = safeName(snapshot.tool)
      const span = this.tracer.startSpan(
        `task ${name}`,
        {
          kind: SpanKind.INTERNAL,
          startTime: snapshot.startedAt,
          links: link,
          attributes: {
            [ATTR.GEN_AI_TOOL_NAME]: name,
            [ATTR.GEN_AI_TOOL_CALL_ID]: snapshot.callId,
            [ATTR.DSH_TASK_ID]: snapshot.id,
            [ATTR.DSH_TASK_STATUS]: snapshot.status,
          },
        },
        otelContext.active(),
      )
      if (snapshot.status !== 'completed') span.setStatus({ code: SpanStatusCode.ERROR, message: snapshot.status })
      span.end(snapshot.endedAt ?? Date.now())
    } catch (error) {
      this.warn('recording a settled task failed', error)
    }
  }

  /** `mcp/status` (`@dsh/tools-mcp`): which registry names are an MCP server's tools. */
  readonly mcpStatus = (status: unknown): void => {
    try {
      const server = ownValue(status, 'server')
      const tools = ownValue(status, 'tools')
      if (typeof server !== 'string' || !Array.isArray(tools)) return
      const era = ownValue(status, 'era')
      const protocolVersion = era === 'modern' ? '2026-07-28' : undefined
      for (const [name, info] of this.mcpTools) if (info.server === server) this.mcpTools.delete(name)
      for (const tool of tools as unknown[]) {
        const name = ownValue(tool, 'name')
        const wireName = ownValue(tool, 'wireName')
        if (typeof name === 'string' && name !== '' && typeof wireName === 'string') this.mcpTools.set(name, { server, wireName, protocolVersion })
      }
    } catch (error) {
      this.warn('reading an mcp/status event failed', error)
    }
  }
}


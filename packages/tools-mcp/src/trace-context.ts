// Trace context over MCP `params._meta` (the OpenTelemetry MCP conventions, SEP-414): the client injects the active
// context into its requests, the served side extracts it. `@opentelemetry/api` is an optional peer dependency,
// loaded on first use; without it (or with no propagator registered, the API's default) nothing is added or read.

/** The part of `@opentelemetry/api` used here, typed structurally: our declarations never name the package. */
interface OtelApi {
  readonly context: {
    active(): OtelContext
    with<T>(context: OtelContext, run: () => T): T
  }
  readonly propagation: {
    inject(context: OtelContext, carrier: Record<string, string>): void
    extract(context: OtelContext, carrier: Record<string, string>): OtelContext
  }
}

/** An OpenTelemetry `Context`, structurally. */
interface OtelContext {
  setValue(key: symbol, value: unknown): OtelContext
}

/**
 * The OpenTelemetry context key (`createContextKey('dsh.mcp.served_call')`, which is `Symbol.for` of its
 * description, so every copy of the API shares it) under which a served call's {@link ServedCallInfo} is set while
 * the registry runs it: how a telemetry plugin tells a served call from others without importing this package.
 */
export const SERVED_CALL_CONTEXT_KEY = 'dsh.mcp.served_call'

/**
 * What a served `tools/call` request said, for observers of the call it started (`servedCallInfo(exec)` of
 * `@dsh/tools-mcp/server`, and the value under {@link SERVED_CALL_CONTEXT_KEY}): the OpenTelemetry MCP server
 * attributes.
 */
export interface ServedCallInfo {
  /** The `callId` the server gave the call (`mcp_<n>`): the execution's `callId`; a sub-call of it has another. */
  readonly callId: string
  /** `tools/call` (`mcp.method.name`). */
  readonly method: 'tools/call'
  /** The JSON-RPC id of the request that started the call (`jsonrpc.request.id`); a 2026-07-28 retry keeps the first. */
  readonly requestId: string | number
  /** The 2025-era session's id (`mcp.session.id`); `undefined` for stdio, stateless and 2026-07-28 requests. */
  readonly sessionId: string | undefined
  /** The protocol revision the request was sent for (`mcp.protocol.version`), when known. */
  readonly protocolVersion: string | undefined
  /** How the request arrived: `stdio` or `http` (`network.transport` `pipe` or `tcp`); `undefined` for another. */
  readonly transport: 'stdio' | 'http' | undefined
}

/** The keys W3C propagators write; only these are copied out of a request's `_meta` for extraction. */
const TRACE_KEYS = ['traceparent', 'tracestate', 'baggage'] as const

let loading: Promise<OtelApi | undefined> | undefined
let loaded: OtelApi | undefined
/** True once the import settled: from then on nothing waits for it (without the API, not even a microtask). */
let settled = false

/** The specifier in a variable: bundlers and TypeScript leave an optional peer's import alone. */
const otelApiSpecifier = '@opentelemetry/api'

/**
 * `@opentelemetry/api`, imported once; `undefined` when it is not installed (or fails to load). Resolves at once
 * after the first time.
 */
export function loadOtelApi(): Promise<OtelApi | undefined> {
  loading ??= import(otelApiSpecifier).then(
    (module: unknown) => {
      const api = (module as { default?: unknown }).default ?? module
      const candidate = api as Partial<OtelApi>
      loaded = typeof candidate.propagation?.inject === 'function' && typeof candidate.context?.with === 'function' ? (candidate as OtelApi) : undefined
      settled = true
      return loaded
    },
    () => ((settled = true), undefined),
  )
  return loading
}

/**
 * The `_meta` keys to send with a request made in the active OpenTelemetry context: what the registered propagator
 * injects (`traceparent`, `tracestate`, `baggage` for the W3C ones), minus any key `existing` already has, which is
 * never overwritten. Empty without `@opentelemetry/api` or without a registered propagator.
 */
export async function traceMeta(existing?: Readonly<Record<string, unknown>>): Promise<Record<string, string>> {
  const api = settled ? loaded : await loadOtelApi()
  if (api === undefined) return {}
  const carrier: Record<string, string> = {}
  try {
    api.propagation.inject(api.context.active(), carrier)
  } catch {
    return {}
  }
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(carrier)) {
    if (typeof value === 'string' && (existing === undefined || !Object.hasOwn(existing, key))) out[key] = value
  }
  return out
}

/**
 * Runs `run` in the OpenTelemetry context extracted from a served request's `_meta` (its remote parent), with
 * `info` under {@link SERVED_CALL_CONTEXT_KEY}, so the spans started while it runs (a telemetry plugin's span of
 * the call) join the caller's trace and know the request. Without `@opentelemetry/api`, `run` runs as it is; with no
 * propagator registered (the API's default) or no trace keys in `_meta`, the parent stays the active context.
 */
export function withServedContext<T>(meta: unknown, info: ServedCallInfo, run: () => Promise<T>): Promise<T> {
  if (!settled) return loadOtelApi().then(() => withServedContext(meta, info, run))
  const api = loaded
  if (api === undefined) return run()
  let context: OtelContext
  try {
    context = api.context.active()
    const carrier: Record<string, string> = {}
    if (typeof meta === 'object' && meta !== null) {
      for (const key of TRACE_KEYS) {
        const value = Object.hasOwn(meta, key) ? (meta as Record<string, unknown>)[key] : undefined
        if (typeof value === 'string') carrier[key] = value
      }
    }
    if (Object.keys(carrier).length > 0) context = api.propagation.extract(context, carrier)
    context = context.setValue(Symbol.for(SERVED_CALL_CONTEXT_KEY), info)
  } catch {
    return run()
  }
  return api.context.with(context, run)
}

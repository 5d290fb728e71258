import type { JsonObject } from '@dsh/tools-core'
import { httpAuthProblems, type McpHttpAuth } from './http-auth.js'
import { McpConfigError } from './mcp-config-error.js'
import type { McpToolDefinition } from './session-types.js'
import { DEFAULT_RESULT_BOUNDS, type ResultBounds } from './result-bounds.js'
import type { SchemaBounds, SchemaPolicy } from './schema-gate.js'
import { serverIdProblem, TOOL_NAME_PATTERN } from './tool-names.js'
import { isRecord } from './is-record.js'

/** Per-tool settings, keyed by the tool's name on the wire. */
export interface McpToolConfig {
  /** `false` leaves the tool unregistered. Default `true`. */
  readonly enabled?: boolean | undefined
  /** The registry name to use instead of `mcp__<server>__<tool>` (must be a valid tool name). */
  readonly name?: string | undefined
  /** Overrides whether calls may run in parallel (otherwise: the server's `readOnlyHint`, only when trusted). */
  readonly concurrencySafe?: boolean | undefined
  /** `ask` asks through the pipeline before every call; `allow` never adds an ask; `auto` (default) follows the hints. */
  readonly approval?: 'ask' | 'allow' | 'auto' | undefined
  /**
   * The hard cap of one call (ms), progress or not: registered as the tool's `timeoutMs`, so `@dsh/timeout-policy`
   * (when loaded) enforces it as the outer deadline and a UI can show it. Default `timeouts.callTotal`.
   */
  readonly timeoutMs?: number | undefined
  /** The call's idle budget (ms): how long the server may send neither a result nor progress. Default `timeouts.call` (never above the cap). */
  readonly idleTimeoutMs?: number | undefined
  /** Overrides whether a call that a crash interrupted may be sent again after the restart. */
  readonly idempotent?: boolean | undefined
}

/** The configuration of one MCP server plugin. Exactly one of `command` (stdio) and `url` (Streamable HTTP). */
export interface McpServerConfig {
  /** The server's id: names its tools (`mcp__<id>__<tool>`), its events and its status. Never taken from the server. */
  readonly id: string
  /** stdio: the executable (resolved on the child's `PATH`). */
  readonly command?: string | undefined
  /** stdio: its arguments. */
  readonly args?: readonly string[] | undefined
  /** stdio: its working directory. */
  readonly cwd?: string | undefined
  /** stdio: variables set for the server (they override inherited ones, `PATH` included). */
  readonly env?: Readonly<Record<string, string>> | undefined
  /** stdio: names of host variables passed through besides the default allow-list (`HOME`, `PATH`, `LANG`, …). */
  readonly inheritEnv?: readonly string[] | undefined
  /** Streamable HTTP: the endpoint URL. */
  readonly url?: string | undefined
  /** Streamable HTTP: extra request headers (an `Authorization` bearer token, say). */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /**
   * Streamable HTTP: how to authenticate (a bearer token, or an OAuth client-credentials grant), so a server that
   * requires OAuth can be reached. Not together with an `Authorization` entry in `headers`. See {@link McpHttpAuth}.
   */
  readonly auth?: McpHttpAuth | undefined
  /** Protocol era: `legacy`, `auto` (probe the 2026-07-28 `server/discover` first) or `modern`. Default: `legacy` on stdio, `auto` on HTTP. */
  readonly protocol?: 'legacy' | 'auto' | 'modern' | undefined
  /** Trust the server's annotations (parallelism, approval, replay). Default `false`. */
  readonly trust?: boolean | undefined
  /** Per-tool settings keyed by wire name. */
  readonly tools?: Readonly<Record<string, McpToolConfig>> | undefined
  /** The prefix of registry names. Default `mcp__<id>__`. */
  readonly toolPrefix?: string | undefined
  /** What to do with a tool whose inputSchema has findings. Default `transform`. */
  readonly schemaPolicy?: SchemaPolicy | undefined
  /** Resource bounds of each input and output schema, measured after `$ref` expansion. Default depth 64, 10,000 nodes. */
  readonly schemaBounds?: Partial<SchemaBounds> | undefined
  /**
   * An extra check of each input schema after the gate (a provider profile, say: build the provider's tool list
   * with `@dsh/tools-providers` and return its error). Returned problems are findings (`code: 'check'`) that drop
   * the tool unless `schemaPolicy` is `pass`.
   */
  readonly checkSchema?: McpSchemaCheck | undefined
  /** Approved fingerprints by wire name: a listed tool whose definition differs is quarantined from the start. */
  readonly pinned?: Readonly<Record<string, string>> | undefined
  /**
   * Budgets in ms: `connect` (30 s), `list` (30 s per page), `call` (the idle budget of a call, reset by every progress
   * notification: 60 s), `callTotal` (the hard cap of a call, registered as each tool's `timeoutMs`: 10 min).
   */
  readonly timeouts?: Partial<McpTimeouts> | undefined
  /** Bounds on what a result may put in front of the model. */
  readonly output?: Partial<ResultBounds> | undefined
  /** How calls of the server's task-capable tools (`execution.taskSupport`) run as tasks. See {@link McpTaskConfig}. */
  readonly tasks?: McpTaskConfig | undefined
  /** Largest message accepted from a stdio server; a larger one fails its call with `MCP_RESULT_TOO_LARGE` and restarts the server. Default 10 MiB. */
  readonly maxMessageBytes?: number | undefined
  /**
   * Restart policy after a crash. Its delays also pace the reopening of a 2026-07-28 `subscriptions/listen` stream
   * that the server or the network closed (with jitter; no suspension, since calls still work without it).
   */
  readonly restart?: Partial<McpRestartPolicy> | undefined
  /** Debounce of `list_changed` refreshes (ms). Default 200. */
  readonly listChangedDebounceMs?: number | undefined
  /**
   * A 2026-07-28 server that offers no `subscriptions/listen` stream is re-listed when its `tools/list` `ttlMs`
   * expires, but never more often than this (ms). Default 1,000.
   */
  readonly minListTtlMs?: number | undefined
  /** Most `tools/list` pages read in one discovery. Default 100. */
  readonly maxListPages?: number | undefined
  /**
   * Most tools registered from one server: a listing with more registers the first `maxTools` in the server's
   * order, reads no further page, and reports the rest in `McpServerStatus.omittedTools`. Default 1,000.
   */
  readonly maxTools?: number | undefined
  /** Bytes of stderr kept for error messages. Default 16 KiB. */
  readonly stderrTailBytes?: number | undefined
  /**
   * Grace after stdin EOF and after SIGTERM before the server's group is killed (ms); over HTTP, the longest wait for
   * the polite end of a session (the `DELETE` of a 2025-era one, closing listen streams) on unload. Default 2,000.
   */
  readonly killGraceMs?: number | undefined
}

/**
 * MCP tasks, client side: how a server's task-capable tools (`execution.taskSupport` `optional` or `required`) are
 * registered. Their `ToolDefinition.execution` is what `@dsh/tool-tasks`, when loaded, reads to make calls into dsh
 * tasks; without it every call runs in the foreground, and a call of a task-only tool waits for its MCP task there.
 */
export interface McpTaskConfig {
  /**
   * The foreground budget (ms), registered as `execution.autoBackgroundAfterMs`: with the task layer loaded, a call
   * still running after it moves to the background as a dsh task (its result is read with `task_output`). Default
   * 10,000.
   */
  readonly foregroundMs?: number | undefined
  /**
   * The `execution.background` a task-only tool (`taskSupport: 'required'`) is registered with: `'optional'` (the
   * default: in the foreground up to `foregroundMs`, then a task, as a task-capable tool; the model may also ask for
   * the background with `run_in_background`) or `'required'` (every call starts in the background at once).
   */
  readonly taskOnly?: 'optional' | 'required' | undefined
}

/** A host's own schema check: the problems it finds in one tool's (gated) input schema; none means accepted. */
export type McpSchemaCheck = (schema: JsonObject, tool: McpToolDefinition) => readonly string[]

/** Call and connection budgets (ms). */
export interface McpTimeouts {
  /** Starting the server and the handshake. */
  readonly connect: number
  /** One `tools/list` page. */
  readonly list: number
  /** A call's idle budget: reset by every progress notification. */
  readonly call: number
  /** A call's hard cap, progress or not; each tool's registered `timeoutMs` unless the tool's config sets one. */
  readonly callTotal: number
}

/** The budget of one call of a tool: the idle budget that progress resets, under the hard cap. */
export interface McpCallBudget {
  /** No result and no progress for this long fails the call (`MCP_TIMEOUT`). */
  readonly idleMs: number
  /** The hard cap: the tool's registered `timeoutMs`. */
  readonly totalMs: number
}

/** The budget of a call of the tool `wireName` under `config`: its own settings first, then the server's. */
export function callBudget(config: ResolvedMcpServerConfig, wireName: string): McpCallBudget {
  const settings = Object.hasOwn(config.tools, wireName) ? config.tools[wireName] : undefined
  const totalMs = settings?.timeoutMs ?? config.timeouts.callTotal
  return { idleMs: Math.min(settings?.idleTimeoutMs ?? config.timeouts.call, totalMs), totalMs }
}

/**
 * After a crash: restart with exponential backoff; more than `maxRestarts` within `windowMs` suspends the server.
 * A closed listen stream is reopened on the same delays (at least 100 ms, with jitter), never suspended.
 */
export interface McpRestartPolicy {
  /** Crashes within `windowMs` after which the server is suspended (circuit open). Default 5. */
  readonly maxRestarts: number
  /** The sliding window in which crashes (and listen-stream closes) add up (ms). Default 60,000. */
  readonly windowMs: number
  /** The first wait (ms), doubled per failure within the window. Default 500. */
  readonly initialDelayMs: number
  /** The longest wait (ms). Default 30,000. */
  readonly maxDelayMs: number
}

/** A validated {@link McpServerConfig} with every default filled in. */
export interface ResolvedMcpServerConfig {
  readonly id: string
  readonly transport:
    | { readonly kind: 'stdio'; readonly command: string; readonly args: readonly string[]; readonly cwd: string | undefined; readonly env: Readonly<Record<string, string>> }
    | { readonly kind: 'http'; readonly url: string; readonly headers: Readonly<Record<string, string>>; readonly auth: McpHttpAuth | undefined }
  readonly protocol: 'legacy' | 'auto' | 'modern'
  readonly trust: boolean
  readonly tools: Readonly<Record<string, McpToolConfig>>
  readonly toolPrefix: string
  readonly schemaPolicy: SchemaPolicy
  readonly schemaBounds: SchemaBounds
  readonly checkSchema: McpSchemaCheck | undefined
  readonly pinned: Readonly<Record<string, string>>
  readonly timeouts: McpTimeouts
  readonly output: ResultBounds
  readonly tasks: { readonly foregroundMs: number; readonly taskOnly: 'optional' | 'required' }
  readonly maxMessageBytes: number
  readonly restart: McpRestartPolicy
  readonly listChangedDebounceMs: number
  readonly minListTtlMs: number
  readonly maxListPages: number
  readonly maxTools: number
  readonly stderrTailBytes: number
  readonly killGraceMs: number
}

/** The host variables a stdio server gets by default (besides what `env` sets and `inheritEnv` names). */
export const DEFAULT_INHERITED_ENV: readonly string[] = Object.freeze(
  process.platform === 'win32'
    ? ['APPDATA', 'COMSPEC', 'HOMEDRIVE', 'HOMEPATH', 'LOCALAPPDATA', 'PATH', 'PATHEXT', 'PROCESSOR_ARCHITECTURE', 'SYSTEMDRIVE', 'SYSTEMROOT', 'TEMP', 'USERNAME', 'USERPROFILE', 'WINDIR']
    : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'LANG', 'LC_ALL', 'TMPDIR'],
)

const maxDelay = 2_147_483_647
const known = new Set(['id', 'command', 'args', 'cwd', 'env', 'inheritEnv', 'url', 'headers', 'auth', 'protocol', 'trust', 'tools', 'toolPrefix', 'schemaPolicy', 'schemaBounds', 'checkSchema', 'pinned', 'timeouts', 'output', 'tasks', 'maxMessageBytes', 'restart', 'listChangedDebounceMs', 'minListTtlMs', 'maxListPages', 'maxTools', 'stderrTailBytes', 'killGraceMs'])

const knownToolSettings = new Set(['enabled', 'name', 'concurrencySafe', 'approval', 'timeoutMs', 'idleTimeoutMs', 'idempotent'])


function stringRecord(value: unknown, field: string, issues: string[]): Record<string, string> {
  if (value === undefined) return {}
  if (!isRecord(value) || !Object.values(value).every((item) => typeof item === 'string')) {
    issues.push(`${field}: must be an object of strings`)
    return {}
  }
  return { ...(value as Record<string, string>) }
}

function integer(value: unknown, field: string, fallback: number, issues: string[], min = 1, max = maxDelay): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    issues.push(`${field}: must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`)
    return fallback
  }
  return value
}

function oneOf<T extends string>(value: unknown, field: string, options: readonly T[], fallback: T, issues: string[]): T {
  if (value === undefined) return fallback
  if (typeof value !== 'string' || !options.includes(value as T)) {
    issues.push(`${field}: must be one of ${options.map((option) => JSON.stringify(option)).join(', ')}, got ${JSON.stringify(value)}`)
    return fallback
  }
  return value as T
}

function toolConfigs(value: unknown, issues: string[]): Record<string, McpToolConfig> {
  if (value === undefined) return {}
  if (!isRecord(value)) {
    issues.push('tools: must be an object keyed by tool name')
    return {}
  }
  for (const [tool, settings] of Object.entries(value)) {
    const field = `tools[${JSON.stringify(tool)}]`
    if (!isRecord(settings)) {
      issues.push(`${field}: must be an object`)
      continue
    }
    for (const key of Object.keys(settings)) if (!knownToolSettings.has(key)) issues.push(`${field}.${key}: unknown option`)
    if (settings.name !== undefined && (typeof settings.name !== 'string' || !TOOL_NAME_PATTERN.test(settings.name))) {
      issues.push(`${field}.name: must match ${TOOL_NAME_PATTERN.source}`)
    }
    for (const flag of ['enabled', 'concurrencySafe', 'idempotent'] as const) {
      if (settings[flag] !== undefined && typeof settings[flag] !== 'boolean') issues.push(`${field}.${flag}: must be a boolean`)
    }
    oneOf(settings.approval, `${field}.approval`, ['ask', 'allow', 'auto'], 'auto', issues)
    integer(settings.timeoutMs, `${field}.timeoutMs`, 1, issues)
    integer(settings.idleTimeoutMs, `${field}.idleTimeoutMs`, 1, issues)
  }
  return { ...(value as Record<string, McpToolConfig>) }
}

function environment(config: Record<string, unknown>, issues: string[]): Record<string, string> {
  const env: Record<string, string> = {}
  const names = config.inheritEnv
  if (names !== undefined && (!Array.isArray(names) || !names.every((name) => typeof name === 'string'))) issues.push('inheritEnv: must be an array of variable names')
  for (const name of [...DEFAULT_INHERITED_ENV, ...(Array.isArray(names) ? (names as string[]) : [])]) {
    const value = process.env[name]
    if (value !== undefined && !value.startsWith('()')) env[name] = value // exported shell functions never pass
  }
  return { ...env, ...stringRecord(config.env, 'env', issues) }
}

/** Validates an {@link McpServerConfig} and fills in the defaults. Throws {@link McpConfigError} listing every problem. */
export function resolveMcpServerConfig(input: unknown): ResolvedMcpServerConfig {
  if (!isRecord(input)) throw new McpConfigError(['config: must be an object with an id and a command or url'])
  const issues: string[] = []
  for (const key of Object.keys(input)) if (!known.has(key)) issues.push(`${key}: unknown option`)
  const idProblem = serverIdProblem(input.id)
  if (idProblem !== undefined) issues.push(`id: ${idProblem}`)
  const id = typeof input.id === 'string' ? input.id : ''
  let transport: ResolvedMcpServerConfig['transport'] = { kind: 'stdio', command: '', args: [], cwd: undefined, env: {} }
  if (input.auth !== undefined && input.url === undefined) issues.push('auth: only for a Streamable HTTP server (url)')
  if ((input.command === undefined) === (input.url === undefined)) {
    issues.push('command/url: give exactly one: command (a stdio server) or url (a Streamable HTTP server)')
  } else if (input.command !== undefined) {
    if (typeof input.command !== 'string' || input.command === '') issues.push('command: must be a non-empty string')
    const args = input.args ?? []
    if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string')) issues.push('args: must be an array of strings')
    if (input.cwd !== undefined && typeof input.cwd !== 'string') issues.push('cwd: must be a string')
    transport = { kind: 'stdio', command: String(input.command), args: Array.isArray(args) ? [...(args as string[])] : [], cwd: input.cwd as string | undefined, env: environment(input, issues) }
  } else {
    let valid = false
    try {
      const url = new URL(String(input.url))
      valid = url.protocol === 'http:' || url.protocol === 'https:'
    } catch {}
    if (!valid) issues.push(`url: must be an http(s) URL, got ${JSON.stringify(input.url)}`)
    const headers = stringRecord(input.headers, 'headers', issues)
    const authProblems = input.auth === undefined ? [] : httpAuthProblems(input.auth)
    issues.push(...authProblems)
    if (input.auth !== undefined && Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) issues.push('auth: give either auth or an Authorization header, not both')
    transport = { kind: 'http', url: String(input.url), headers, auth: input.auth === undefined || authProblems.length > 0 ? undefined : (input.auth as McpHttpAuth) }
  }
  if (input.trust !== undefined && typeof input.trust !== 'boolean') issues.push('trust: must be a boolean')
  if (input.checkSchema !== undefined && typeof input.checkSchema !== 'function') issues.push('checkSchema: must be a function')
  const toolPrefix = input.toolPrefix ?? `mcp__${id}__`
  if (typeof toolPrefix !== 'string' || !/^[A-Za-z_][A-Za-z0-9_-]{0,39}$/.test(toolPrefix)) issues.push('toolPrefix: must be at most 40 characters of [A-Za-z0-9_-], starting with a letter or _')
  const bounds = isRecord(input.schemaBounds) ? input.schemaBounds : {}
  const timeouts = isRecord(input.timeouts) ? input.timeouts : {}
  const output = isRecord(input.output) ? input.output : {}
  const restart = isRecord(input.restart) ? input.restart : {}
  if (input.tasks !== undefined && !isRecord(input.tasks)) issues.push('tasks: must be an object ({ foregroundMs?, taskOnly? })')
  const tasks = isRecord(input.tasks) ? input.tasks : {}
  for (const key of Object.keys(tasks)) if (key !== 'foregroundMs' && key !== 'taskOnly') issues.push(`tasks.${key}: unknown option`)
  const resolved: ResolvedMcpServerConfig = {
    id,
    transport,
    protocol: oneOf(input.protocol, 'protocol', ['legacy', 'auto', 'modern'], transport.kind === 'http' ? 'auto' : 'legacy', issues),
    trust: input.trust === true,
    tools: toolConfigs(input.tools, issues),
    toolPrefix: String(toolPrefix),
    schemaPolicy: oneOf(input.schemaPolicy, 'schemaPolicy', ['reject', 'transform', 'pass'], 'transform', issues),
    schemaBounds: { maxDepth: integer(bounds.maxDepth, 'schemaBounds.maxDepth', 64, issues), maxNodes: integer(bounds.maxNodes, 'schemaBounds.maxNodes', 10_000, issues) },
    checkSchema: input.checkSchema as McpSchemaCheck | undefined,
    pinned: stringRecord(input.pinned, 'pinned', issues),
    timeouts: {
      connect: integer(timeouts.connect, 'timeouts.connect', 30_000, issues),
      list: integer(timeouts.list, 'timeouts.list', 30_000, issues),
      call: integer(timeouts.call, 'timeouts.call', 60_000, issues),
      callTotal: integer(timeouts.callTotal, 'timeouts.callTotal', 600_000, issues),
    },
    output: {
      maxTextBytes: integer(output.maxTextBytes, 'output.maxTextBytes', DEFAULT_RESULT_BOUNDS.maxTextBytes, issues),
      maxBlocks: integer(output.maxBlocks, 'output.maxBlocks', DEFAULT_RESULT_BOUNDS.maxBlocks, issues),
      maxBinaryBytes: integer(output.maxBinaryBytes, 'output.maxBinaryBytes', DEFAULT_RESULT_BOUNDS.maxBinaryBytes, issues),
      maxStructuredBytes: integer(output.maxStructuredBytes, 'output.maxStructuredBytes', DEFAULT_RESULT_BOUNDS.maxStructuredBytes, issues),
      maxStructuredDepth: integer(output.maxStructuredDepth, 'output.maxStructuredDepth', DEFAULT_RESULT_BOUNDS.maxStructuredDepth, issues),
      maxCheckCost: integer(output.maxCheckCost, 'output.maxCheckCost', DEFAULT_RESULT_BOUNDS.maxCheckCost, issues, 1, Number.MAX_SAFE_INTEGER),
    },
    tasks: {
      foregroundMs: integer(tasks.foregroundMs, 'tasks.foregroundMs', 10_000, issues),
      taskOnly: oneOf(tasks.taskOnly, 'tasks.taskOnly', ['optional', 'required'], 'optional', issues),
    },
    maxMessageBytes: integer(input.maxMessageBytes, 'maxMessageBytes', 10 * 1024 * 1024, issues, 1024),
    restart: {
      maxRestarts: integer(restart.maxRestarts, 'restart.maxRestarts', 5, issues, 0),
      windowMs: integer(restart.windowMs, 'restart.windowMs', 60_000, issues),
      initialDelayMs: integer(restart.initialDelayMs, 'restart.initialDelayMs', 500, issues, 0),
      maxDelayMs: integer(restart.maxDelayMs, 'restart.maxDelayMs', 30_000, issues, 0),
    },
    listChangedDebounceMs: integer(input.listChangedDebounceMs, 'listChangedDebounceMs', 200, issues, 0),
    minListTtlMs: integer(input.minListTtlMs, 'minListTtlMs', 1_000, issues),
    maxListPages: integer(input.maxListPages, 'maxListPages', 100, issues),
    maxTools: integer(input.maxTools, 'maxTools', 1_000, issues),
    stderrTailBytes: integer(input.stderrTailBytes, 'stderrTailBytes', 16 * 1024, issues, 0),
    killGraceMs: integer(input.killGraceMs, 'killGraceMs', 2_000, issues, 0),
  }
  if (issues.length > 0) throw new McpConfigError(issues)
  return resolved
}

import type { JsonObject } from '@dsh/tools-core'
import { fingerprintTool } from './fingerprint.js'
import { gateInputSchema, gateOutputSchema, quoteBounded, type SchemaFinding } from './schema-gate.js'
import type { ResolvedMcpServerConfig } from './server-config.js'
import type { McpSession, McpToolAnnotations, McpToolDefinition } from './session-types.js'
import { toolPolicy, type ToolPolicy } from './tool-policy.js'
import { registryToolName } from './tool-names.js'
import { isRecord } from './is-record.js'

/** The longest wire name accepted (the MCP spec asks for at most 128 characters). */
export const MAX_WIRE_NAME_LENGTH = 256

/**
 * Walks every page of `tools/list`: at most `maxPages`, and a cursor seen twice is an error (a server looping).
 * At most `maxTools` tools are kept; see {@link listToolCatalog}.
 */
export async function listAllTools(session: McpSession, maxPages: number, pageTimeoutMs: number, maxTools?: number): Promise<McpToolDefinition[]> {
  return (await listToolCatalog(session, maxPages, pageTimeoutMs, maxTools)).tools
}

/** Tools a listing held past `maxTools`, which were left out. */
export interface OmittedTools {
  /** How many of the pages read were left out. */
  readonly count: number
  /** True when further pages were not read at all (so there may be more). */
  readonly more: boolean
}

/** A whole listing and how long it stays fresh: the shortest `ttlMs` of its pages (2026-07-28), if any gave one. */
export interface ToolCatalog {
  /** The tools as the server listed them, in its order (each still unchecked: {@link planTools} checks them one by one). */
  readonly tools: McpToolDefinition[]
  readonly ttlMs: number | undefined
  /** Set when the listing held more than `maxTools` tools. */
  readonly omitted?: OmittedTools | undefined
}

/**
 * {@link listAllTools}, keeping the pages' `ttlMs` (internal: the connection re-lists by it when it cannot listen).
 * Reading stops once more than `maxTools` tools were seen: the first `maxTools` in the server's order are kept, the
 * rest counted in `omitted`, and no further page is read.
 */
export async function listToolCatalog(session: McpSession, maxPages: number, pageTimeoutMs: number, maxTools = Number.POSITIVE_INFINITY): Promise<ToolCatalog> {
  const tools: McpToolDefinition[] = []
  const seen = new Set<string>()
  let ttlMs: number | undefined
  let cursor: string | undefined
  for (let page = 0; ; page += 1) {
    if (page >= maxPages) throw new Error(`tools/list returned more than ${maxPages} pages (maxListPages); the listing was abandoned`)
    const result = await session.listToolsPage(cursor, pageTimeoutMs)
    if (!Array.isArray(result.tools)) throw new Error('tools/list returned a page without a tools array; the listing was abandoned')
    if (result.ttlMs !== undefined) ttlMs = Math.min(ttlMs ?? result.ttlMs, result.ttlMs)
    const next = result.nextCursor === undefined || result.nextCursor === '' ? undefined : result.nextCursor
    const room = maxTools - tools.length
    // One by one: spreading a page of a hundred thousand tools into push() overflows the stack.
    for (let index = 0; index < Math.min(room, result.tools.length); index += 1) tools.push(result.tools[index] as McpToolDefinition)
    if (result.tools.length > room) return { tools, ttlMs, omitted: { count: result.tools.length - room, more: next !== undefined } }
    if (next === undefined) return { tools, ttlMs }
    if (seen.has(next)) throw new Error(`tools/list repeated the cursor ${quoteBounded(next)}; the listing was abandoned`)
    seen.add(next)
    cursor = next
  }
}

/** Where one listed tool stands. */
export type ToolState = 'registered' | 'quarantined' | 'rejected' | 'disabled' | 'unsupported'

/** One listed tool after the gates: its registry name, the schema to register, its policy, its fingerprint. */
export interface PlannedTool {
  /** The tool's name on the wire (`''` for an entry without a usable name, which is always `rejected`). */
  readonly wireName: string
  /** Its registry name (`''` when it has none). */
  readonly name: string
  readonly definition: McpToolDefinition
  readonly parameters: JsonObject | undefined
  /** The gated `outputSchema` to register (transformed under `transform`), when the tool has one. */
  readonly outputSchema: JsonObject | undefined
  /** The form of the `outputSchema` results are checked against (`gateOutputSchema(…).check`). */
  readonly outputCheck: JsonObject | undefined
  readonly policy: ToolPolicy
  readonly fingerprint: string
  readonly state: ToolState
  /** What the gates found: in the input schema, the output schema (`source: 'outputSchema'`) and the definition (`source: 'tool'`). */
  readonly findings: readonly SchemaFinding[]
  /** Why the tool is not registered (quarantine, rejection, tasks, a name clash). */
  readonly note: string | undefined
  /**
   * How calls of the tool may run as MCP tasks: its `execution.taskSupport` (`optional` or `required`) when the
   * server supports tasks on `tools/call`; absent for a tool whose calls are plain calls (`forbidden`, no
   * `taskSupport`, or a server that does not support tasks there).
   */
  readonly taskSupport?: 'optional' | 'required' | undefined
}

/** What {@link planTools} knows of the server beyond its listing. */
export interface PlanToolsOptions {
  /**
   * True when the server supports tasks on `tools/call` (2025-11-25: it advertises `tasks.requests.tools.call`;
   * 2026-07-28: it declared the `io.modelcontextprotocol/tasks` extension). Without it a tool that requires tasks is
   * `unsupported`, and `taskSupport: 'optional'` is ignored. Default `false`.
   */
  readonly taskCalls?: boolean | undefined
}

/** Absent, as an optional field of a definition: `undefined` or JSON `null` (which some servers send for "none"). */
const absent = (value: unknown): value is undefined | null => value === undefined || value === null
/** An own property only: nothing a polluted prototype holds is read as part of a definition. */
const own = (record: Record<string, unknown>, key: string): unknown => (Object.hasOwn(record, key) ? record[key] : undefined)

function kind(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : typeof value
}

const hints = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const
/** The longest annotation title carried to the registry. */
const maxHintTitle = 200

/**
 * The MCP annotations a registry gets from a (trusted) server's tool: the four boolean hints and a title of at most
 * 200 characters; anything else the server put there (other keys, other types, nested values) is left behind.
 */
export function knownHints(annotations: object): McpToolAnnotations {
  const source = annotations as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const hint of hints) if (typeof own(source, hint) === 'boolean') out[hint] = own(source, hint)
  const title = own(source, 'title')
  if (typeof title === 'string') out.title = title.slice(0, maxHintTitle)
  return out as McpToolAnnotations
}
const untrusting: ToolPolicy = Object.freeze({ concurrencySafe: false, ask: true, replayable: false, reason: undefined })

/** What is malformed in a definition's fields other than its schemas (which the gates check). */
function definitionProblems(tool: Record<string, unknown>): SchemaFinding[] {
  const problems: SchemaFinding[] = []
  const problem = (path: string, message: string): void => void problems.push({ code: 'invalid-tool', path, message, repairable: false, source: 'tool' })
  for (const field of ['title', 'description'] as const) {
    const value = own(tool, field)
    if (!absent(value) && typeof value !== 'string') problem(`/${field}`, `${field} must be a string, got ${kind(value)}`)
  }
  const annotations = own(tool, 'annotations')
  if (!absent(annotations)) {
    if (!isRecord(annotations)) problem('/annotations', `annotations must be an object, got ${kind(annotations)}`)
    else {
      for (const hint of hints) {
        const value = own(annotations, hint)
        if (!absent(value) && typeof value !== 'boolean') problem(`/annotations/${hint}`, `annotations.${hint} must be a boolean, got ${kind(value)}`)
      }
      const title = own(annotations, 'title')
      if (!absent(title) && typeof title !== 'string') problem('/annotations/title', `annotations.title must be a string, got ${kind(title)}`)
    }
  }
  const execution = own(tool, 'execution')
  if (!absent(execution)) {
    if (!isRecord(execution)) problem('/execution', `execution must be an object, got ${kind(execution)}`)
    else if (!absent(own(execution, 'taskSupport')) && typeof own(execution, 'taskSupport') !== 'string') problem('/execution/taskSupport', `execution.taskSupport must be a string, got ${kind(own(execution, 'taskSupport'))}`)
  }
  return problems
}

/** A listed entry that cannot be planned at all (no usable name, not an object, or it could not be read). */
function unusable(entry: unknown, wireName: string, note: string, findings: readonly SchemaFinding[] = []): PlannedTool {
  let fingerprint = ''
  try {
    if (isRecord(entry)) fingerprint = fingerprintTool(entry as McpToolDefinition)
  } catch {
    // A definition that cannot even be hashed (a cycle, from a host's own call) keeps no fingerprint.
  }
  const definition = (isRecord(entry) ? entry : { name: wireName, inputSchema: {} }) as McpToolDefinition
  return { wireName, name: '', definition, parameters: undefined, outputSchema: undefined, outputCheck: undefined, policy: untrusting, fingerprint, state: 'rejected', findings, note }
}

/** Plans a listing tool by tool: nothing one definition holds can throw out of it or keep the others from being planned. */
class Planner {
  readonly planned: PlannedTool[] = []
  readonly #names = new Map<string, string>()
  readonly #wire = new Set<string>()
  readonly #config: ResolvedMcpServerConfig
  readonly #baseline: ReadonlyMap<string, string>
  readonly #taskCalls: boolean

  constructor(config: ResolvedMcpServerConfig, baseline: ReadonlyMap<string, string>, options: PlanToolsOptions = {}) {
    this.#config = config
    this.#baseline = baseline
    this.#taskCalls = options.taskCalls === true
  }

  add(entry: unknown, index: number): void {
    let plan: PlannedTool
    try {
      plan = this.#plan(entry, index)
    } catch (error) {
      const name = isRecord(entry) && typeof own(entry, 'name') === 'string' ? (own(entry, 'name') as string) : ''
      const message = error instanceof Error ? error.message : String(error)
      plan = unusable(entry, name.length <= MAX_WIRE_NAME_LENGTH ? name : '', `its definition could not be read: ${message.slice(0, 300)}`)
    }
    if (plan.state === 'registered') this.#names.set(plan.name, plan.wireName)
    this.planned.push(plan)
  }

  #plan(entry: unknown, index: number): PlannedTool {
    const position = `the tool at position ${index} of the listing`
    if (!isRecord(entry)) return unusable(entry, '', `${position} is not a tool definition (an object), got ${kind(entry)}`)
    const wireName = own(entry, 'name')
    if (typeof wireName !== 'string' || wireName === '') {
      return unusable(entry, '', `${position} has no name (name must be a non-empty string, got ${typeof wireName === 'string' ? 'an empty one' : kind(wireName)})`)
    }
    if (wireName.length > MAX_WIRE_NAME_LENGTH) {
      return unusable(entry, '', `${position} has a name of ${wireName.length} characters, over the limit of ${MAX_WIRE_NAME_LENGTH}: ${quoteBounded(wireName, 60)}`)
    }
    if (this.#wire.has(wireName)) return unusable(entry, wireName, `the listing holds a second tool named ${quoteBounded(wireName)}; only the first is used`)
    this.#wire.add(wireName)
    const config = this.#config
    const definition = entry as McpToolDefinition
    const settings = Object.hasOwn(config.tools, wireName) ? config.tools[wireName] : undefined
    const name = settings?.name ?? registryToolName(config.id, wireName, config.toolPrefix)
    const problems = definitionProblems(entry)
    const gate = gateInputSchema(own(entry, 'inputSchema'), config.schemaPolicy, config.schemaBounds)
    const rawOutput = own(entry, 'outputSchema')
    const output = absent(rawOutput) ? undefined : gateOutputSchema(rawOutput, config.schemaPolicy, config.schemaBounds)
    const findings: SchemaFinding[] = [...problems, ...gate.findings, ...(output?.findings ?? [])]
    let parameters = gate.schema
    if (parameters !== undefined && config.checkSchema !== undefined) {
      let checked: readonly string[]
      try {
        const result: unknown = config.checkSchema(parameters, definition)
        checked = Array.isArray(result) ? result.map(String) : []
      } catch (error) {
        checked = [`the schema check threw: ${error instanceof Error ? error.message : String(error)}`]
      }
      for (const message of checked) findings.push({ code: 'check', path: '', message, repairable: false })
      if (checked.length > 0 && config.schemaPolicy !== 'pass') parameters = undefined
    }
    const fingerprint = fingerprintTool(definition)
    const policy = toolPolicy(definition, config.trust, settings)
    const execution = own(entry, 'execution')
    const declared = isRecord(execution) ? own(execution, 'taskSupport') : undefined
    const taskSupport: PlannedTool['taskSupport'] = this.#taskCalls && (declared === 'optional' || declared === 'required') ? declared : undefined
    const base = { wireName, name, definition, policy, fingerprint, findings, parameters, outputSchema: output?.schema, outputCheck: output?.check, ...(taskSupport === undefined ? {} : { taskSupport }) }
    const approved = this.#baseline.get(wireName)
    const messages = (source: SchemaFinding['source']): string =>
      findings
        .filter((finding) => finding.source === source)
        .map((finding) => finding.message)
        .join('; ')
    let state: ToolState = 'registered'
    let note: string | undefined
    if (settings?.enabled === false) {
      state = 'disabled'
    } else if (problems.length > 0) {
      state = 'rejected'
      note = `its definition is malformed: ${messages('tool')}`
    } else if (declared === 'required' && taskSupport === undefined) {
      state = 'unsupported'
      note = 'the tool requires MCP tasks, which the server does not support on tools/call (2025-11-25: capabilities.tasks.requests.tools.call; 2026-07-28: the io.modelcontextprotocol/tasks extension)'
    } else if (parameters === undefined) {
      state = 'rejected'
      note = `its inputSchema was rejected: ${findings.filter((finding) => finding.source === undefined || finding.code === 'check').map((finding) => finding.message).join('; ')}`
    } else if (output !== undefined && output.check === undefined) {
      state = 'rejected'
      note = `its outputSchema was rejected: ${messages('outputSchema')}`
    } else if (approved !== undefined && approved !== fingerprint) {
      state = 'quarantined'
      note = `its definition changed since it was approved (${approved} → ${fingerprint}); approve it again to use it`
    } else if (this.#names.has(name)) {
      state = 'rejected'
      note = `its registry name ${name} is already taken by the tool ${quoteBounded(this.#names.get(name) as string)}`
    }
    return { ...base, state, note }
  }
}

/**
 * Plans the registrations for one listing: names, the definition check, the schema gates (input and output), the
 * trust policy and drift. `baseline` holds the fingerprints approved so far (from `pinned`, or first seen); a tool
 * whose fingerprint differs is quarantined. A tool that requires tasks is registered when the server supports tasks
 * on `tools/call` (`options.taskCalls`), and reported `unsupported` otherwise. Total: an entry that is not a usable tool (no name, a name listed twice, a malformed field,
 * a schema the gates refuse, anything that throws while it is read) is planned as `rejected` with a note saying
 * why, and every other tool is planned as usual.
 */
export function planTools(tools: readonly McpToolDefinition[], config: ResolvedMcpServerConfig, baseline: ReadonlyMap<string, string>, options?: PlanToolsOptions): PlannedTool[] {
  const planner = new Planner(config, baseline, options)
  const list: readonly unknown[] = Array.isArray(tools) ? tools : []
  for (let index = 0; index < list.length; index += 1) planner.add(list[index], index)
  return planner.planned
}

/** How long {@link planToolsInSlices} works before it lets the event loop run (ms). */
const sliceMs = 10

/**
 * {@link planTools} in slices of about 10 ms, yielding to the event loop between them (internal: the connection's
 * listing path), so that timers, aborts and other servers' traffic run while a large listing is checked. The
 * work is the same, linear in the listing's size.
 */
export async function planToolsInSlices(tools: readonly McpToolDefinition[], config: ResolvedMcpServerConfig, baseline: ReadonlyMap<string, string>, options?: PlanToolsOptions): Promise<PlannedTool[]> {
  const planner = new Planner(config, baseline, options)
  const list: readonly unknown[] = Array.isArray(tools) ? tools : []
  let start = performance.now()
  for (let index = 0; index < list.length; index += 1) {
    planner.add(list[index], index)
    if (performance.now() - start >= sliceMs) {
      await new Promise<void>((resolve) => setImmediate(resolve))
      start = performance.now()
    }
  }
  return planner.planned
}

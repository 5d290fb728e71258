import type { JsonObject } from '@dsh/tools-core'
import { fingerprintTool } from './fingerprint.js'
import { gateInputSchema, type SchemaFinding } from './schema-gate.js'
import type { ResolvedMcpServerConfig } from './server-config.js'
import type { McpSession, McpToolDefinition } from './session-types.js'
import { toolPolicy, type ToolPolicy } from './tool-policy.js'
import { registryToolName } from './tool-names.js'

/** Walks every page of `tools/list`: at most `maxPages`, and a cursor seen twice is an error (a server looping). */
export async function listAllTools(session: McpSession, maxPages: number, pageTimeoutMs: number): Promise<McpToolDefinition[]> {
  return (await listToolCatalog(session, maxPages, pageTimeoutMs)).tools
}

/** A whole listing and how long it stays fresh: the shortest `ttlMs` of its pages (2026-07-28), if any gave one. */
export interface ToolCatalog {
  readonly tools: McpToolDefinition[]
  readonly ttlMs: number | undefined
}

/** {@link listAllTools}, keeping the pages' `ttlMs` (internal: the connection re-lists by it when it cannot listen). */
export async function listToolCatalog(session: McpSession, maxPages: number, pageTimeoutMs: number): Promise<ToolCatalog> {
  const tools: McpToolDefinition[] = []
  const seen = new Set<string>()
  let ttlMs: number | undefined
  let cursor: string | undefined
  for (let page = 0; ; page += 1) {
    if (page >= maxPages) throw new Error(`tools/list returned more than ${maxPages} pages (maxListPages); the listing was abandoned`)
    const result = await session.listToolsPage(cursor, pageTimeoutMs)
    tools.push(...result.tools)
    if (result.ttlMs !== undefined) ttlMs = Math.min(ttlMs ?? result.ttlMs, result.ttlMs)
    if (result.nextCursor === undefined || result.nextCursor === '') return { tools, ttlMs }
    if (seen.has(result.nextCursor)) throw new Error(`tools/list repeated the cursor ${JSON.stringify(result.nextCursor)}; the listing was abandoned`)
    seen.add(result.nextCursor)
    cursor = result.nextCursor
  }
}

/** Where one listed tool stands. */
export type ToolState = 'registered' | 'quarantined' | 'rejected' | 'disabled' | 'unsupported'

/** One listed tool after the gates: its registry name, the schema to register, its policy, its fingerprint. */
export interface PlannedTool {
  readonly wireName: string
  readonly name: string
  readonly definition: McpToolDefinition
  readonly parameters: JsonObject | undefined
  readonly policy: ToolPolicy
  readonly fingerprint: string
  readonly state: ToolState
  readonly findings: readonly SchemaFinding[]
  /** Why the tool is not registered (quarantine, rejection, tasks, a name clash). */
  readonly note: string | undefined
}

/**
 * Plans the registrations for one listing: names, the schema gate, the trust policy and drift. `baseline` holds
 * the fingerprints approved so far (from `pinned`, or first seen); a tool whose fingerprint differs is
 * quarantined. Tools that require tasks are reported and not registered (this client does not run tasks).
 */
export function planTools(tools: readonly McpToolDefinition[], config: ResolvedMcpServerConfig, baseline: ReadonlyMap<string, string>): PlannedTool[] {
  const planned: PlannedTool[] = []
  const names = new Map<string, string>()
  const wire = new Set<string>()
  for (const definition of tools) {
    if (typeof definition !== 'object' || definition === null || typeof definition.name !== 'string' || wire.has(definition.name)) continue
    wire.add(definition.name)
    const settings = config.tools[definition.name]
    const name = settings?.name ?? registryToolName(config.id, definition.name, config.toolPrefix)
    const fingerprint = fingerprintTool(definition)
    const policy = toolPolicy(definition, config.trust, settings)
    const gate = gateInputSchema(definition.inputSchema, config.schemaPolicy, config.schemaBounds)
    const findings: SchemaFinding[] = [...gate.findings]
    let parameters = gate.schema
    if (parameters !== undefined && config.checkSchema !== undefined) {
      let problems: readonly string[]
      try {
        problems = config.checkSchema(parameters, definition)
      } catch (error) {
        problems = [`the schema check threw: ${error instanceof Error ? error.message : String(error)}`]
      }
      for (const message of problems) findings.push({ code: 'check', path: '', message, repairable: false })
      if (problems.length > 0 && config.schemaPolicy !== 'pass') parameters = undefined
    }
    const base = { wireName: definition.name, name, definition, policy, fingerprint, findings, parameters }
    const approved = baseline.get(definition.name)
    let state: ToolState = 'registered'
    let note: string | undefined
    if (settings?.enabled === false) {
      state = 'disabled'
    } else if (definition.execution?.taskSupport === 'required') {
      state = 'unsupported'
      note = 'the tool requires MCP tasks, which this client does not support yet'
    } else if (parameters === undefined) {
      state = 'rejected'
      note = `its inputSchema was rejected: ${findings.map((finding) => finding.message).join('; ')}`
    } else if (approved !== undefined && approved !== fingerprint) {
      state = 'quarantined'
      note = `its definition changed since it was approved (${approved} → ${fingerprint}); approve it again to use it`
    } else if (names.has(name)) {
      state = 'rejected'
      note = `its registry name ${name} is already taken by the tool ${JSON.stringify(names.get(name))}`
    }
    if (state === 'registered') names.set(name, definition.name)
    planned.push({ ...base, state, note })
  }
  return planned
}

// Start-up at scale (issue 34): three stdio MCP servers with 40 tools each, loaded through `mcpServer` into a
// ToolRegistry until every tool is registered, against the same three servers' bare `initialize` + `tools/list`
// with the official SDK client. Both cases time only the span from nothing to "all tools known"; the servers are
// shut down after each sample, outside the timed span (mitata's manual timing).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js'
import { mcpServer, whenMcpServerReady, type McpServerConfig } from '@dsh/tools-mcp'
import { ToolRegistry } from '@dsh/tools-registry'
import { Context } from 'cordis'
import { measure } from 'mitata'
import { defineSuite, formatNs, type BenchGroup, type MeasureOptions } from '../harness.js'

const SERVERS = 3
const TOOLS_PER_SERVER = 40
const TOTAL_TOOLS = SERVERS * TOOLS_PER_SERVER
const PAIRED_ROUNDS = 7
const target = { maxRatio: 1.2, label: '≤ 1.2× bare SDK' }

/** The stdio MCP server of tools-mcp's tests: serves the tools of the JSON file named by FIXTURE_TOOLS. */
const fixtureServer = fileURLToPath(new URL('../../packages/tools-mcp/src/test-support/fixture-server.mjs', import.meta.url))
const packageVersion = (name: string): string =>
  JSON.parse(readFileSync(fileURLToPath(new URL(`../../packages/${name}/package.json`, import.meta.url)), 'utf8')).version
const sdkVersion: string = JSON.parse(
  readFileSync(fileURLToPath(new URL('../node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url)), 'utf8'),
).version

const verbs = ['read', 'write', 'list', 'search', 'update', 'delete', 'create', 'move'] as const
const nouns = ['file', 'issue', 'ticket', 'record', 'note', 'event', 'page', 'branch', 'comment', 'user'] as const

/** Tool `index` of server `server`: an object schema with a few properties, a nested object and an array of objects. */
function toolDefinition(server: number, index: number): Record<string, unknown> {
  const verb = verbs[index % verbs.length]!
  const noun = nouns[Math.floor(index / verbs.length) % nouns.length]!
  const name = `${verb}_${noun}_${index}`
  const readOnly = verb === 'read' || verb === 'list' || verb === 'search'
  return {
    name,
    description: `Server ${server}: ${verb}s a ${noun} (${name}). Returns the ${noun} as JSON, or an error naming the field at fault.`,
    inputSchema: {
      type: 'object',
      properties: {
        id: { type: 'string', description: `The ${noun} id.`, minLength: 1, maxLength: 128, ...(index % 4 === 0 ? { pattern: '^[a-z0-9-]+$' } : {}) },
        limit: { type: 'integer', minimum: 1, maximum: 1000, default: 50, description: 'How many entries at most.' },
        mode: { type: 'string', enum: ['fast', 'full', 'dry-run'], description: 'How much work to do.' },
        filter: {
          type: 'object',
          description: 'Only entries that match.',
          properties: {
            tags: { type: 'array', items: { type: 'string' }, maxItems: 20 },
            since: { type: 'string', format: 'date-time' },
            owner: { type: 'object', properties: { login: { type: 'string' }, team: { type: 'string' } }, required: ['login'] },
          },
          additionalProperties: false,
        },
        changes: {
          type: 'array',
          description: 'Edits to apply, in order.',
          items: {
            type: 'object',
            properties: {
              field: { type: 'string' },
              value: { type: ['string', 'number', 'boolean', 'null'] },
              op: { type: 'string', enum: ['set', 'unset', 'append'] },
            },
            required: ['field', 'op'],
            additionalProperties: false,
          },
        },
        recursive: { type: 'boolean', default: false },
      },
      required: ['id'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: readOnly, destructiveHint: verb === 'delete' },
  }
}

interface ServerFixture {
  readonly id: string
  readonly toolsFile: string
}

let scratch: string | undefined
let servers: readonly ServerFixture[] = []

function removeFixtures(): void {
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true })
  scratch = undefined
}

function writeFixtures(): void {
  scratch = mkdtempSync(join(tmpdir(), 'dsh-mcp-startup-bench-'))
  // Also when a case throws (the harness then never calls dispose).
  process.once('exit', removeFixtures)
  const dir = scratch
  servers = Array.from({ length: SERVERS }, (_, server) => {
    const toolsFile = join(dir, `tools-${server}.json`)
    writeFileSync(toolsFile, JSON.stringify(Array.from({ length: TOOLS_PER_SERVER }, (_, index) => toolDefinition(server, index))))
    return { id: `srv${server}`, toolsFile }
  })
}

/** Bare: the official SDK client per server, `connect` (initialize) + `listTools()`, all three at once. Returns ns. */
async function bareStartup(): Promise<number> {
  const started = process.hrtime.bigint()
  const clients: Client[] = []
  let elapsed: number
  try {
    await Promise.all(
      servers.map(async (server) => {
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [fixtureServer],
          env: { ...getDefaultEnvironment(), FIXTURE_TOOLS: server.toolsFile },
          stderr: 'pipe',
        })
        // Drained, as tools-mcp drains it (the fixture writes a line on start).
        transport.stderr?.on('data', () => {})
        const client = new Client({ name: 'bench', version: '1.0.0' })
        clients.push(client)
        await client.connect(transport)
        const { tools } = await client.listTools()
        if (tools.length !== TOOLS_PER_SERVER) throw new Error(`bare: ${server.id} listed ${tools.length} tools`)
      }),
    )
    elapsed = Number(process.hrtime.bigint() - started)
  } finally {
    await Promise.all(clients.map((client) => client.close()))
  }
  return elapsed
}

/**
 * Ours: a fresh Context and ToolRegistry, three `mcpServer` plugins, until every server is `ready` and
 * `ctx.tools.schemas()` holds all 120 tools. Returns ns; the plugins and the registry are unloaded after (each
 * server's process group is gone when its fiber's dispose settles).
 */
async function oursStartup(): Promise<number> {
  const started = process.hrtime.bigint()
  const ctx = new Context()
  const registry = await ctx.plugin(ToolRegistry)
  const fibers: { dispose(): unknown }[] = []
  let elapsed: number
  try {
    for (const server of servers) {
      const config: McpServerConfig = { id: server.id, command: process.execPath, args: [fixtureServer], env: { FIXTURE_TOOLS: server.toolsFile } }
      fibers.push(await ctx.plugin(mcpServer, config))
    }
    const statuses = await Promise.all(servers.map((server) => whenMcpServerReady(ctx, server.id)))
    const listed = ctx.tools.schemas().length
    elapsed = Number(process.hrtime.bigint() - started)
    for (const status of statuses) {
      if (status.state !== 'ready') throw new Error(`ours: ${status.server} is ${status.state}: ${status.error?.message ?? ''}`)
      const registered = status.tools.filter((tool) => tool.state === 'registered').length
      if (registered !== TOOLS_PER_SERVER) throw new Error(`ours: ${status.server} registered ${registered} of ${status.tools.length} tools`)
    }
    if (listed !== TOTAL_TOOLS) throw new Error(`ours: ctx.tools.schemas() holds ${listed} tools, not ${TOTAL_TOOLS}`)
  } finally {
    await Promise.all(fibers.map((fiber) => fiber.dispose()))
    await registry.dispose()
  }
  return elapsed
}

/** A mitata case timed by its own clock (`manual`): only the start-up span counts, not the shutdown after it. */
function manualCase(run: () => Promise<number>): () => unknown {
  return function* () {
    yield { manual: run }
  }
}

const caseOptions: MeasureOptions = { min_samples: 5, max_samples: 5, min_cpu_time: 0, warmup_samples: 0 }
const BARE = 'bare SDK: initialize + tools/list ×3'
const OURS = 'ours: ToolRegistry + 3 mcpServer, ready'

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

export default defineSuite({
  name: 'mcp-startup',
  description:
    `Start-up at scale: ${SERVERS} stdio MCP servers (tools-mcp's test fixture server, \`node fixture-server.mjs\`) with ` +
    `${TOOLS_PER_SERVER} tools each (object input schemas of six properties: a string with bounds, a pattern on every ` +
    'fourth tool, an integer, an enum, a nested object with an array and an object, an array of objects, a boolean). ' +
    `**bare**: per server, the official SDK client (\`@modelcontextprotocol/sdk\` ${sdkVersion} \`Client\` + ` +
    '`StdioClientTransport`) spawns it, `connect` (initialize) and `listTools()`, the three in parallel; timed from the ' +
    'start to the third list received. **ours**: a fresh cordis `Context`, `ToolRegistry`, three `mcpServer` plugins ' +
    '(defaults, stdio), timed from creating the context to all three `whenMcpServerReady` resolved (`ready`) and ' +
    `\`ctx.tools.schemas()\` holding all ${TOTAL_TOOLS} tools. Shutting down (clients closed; fibers and registry disposed, ` +
    'each server process gone) follows every sample, untimed. Table: 3 rounds in alternating order, 5 samples (after ' +
    'one warm-up) per case and round, each row its best round; notes: 7 paired rounds, one sample of each in ' +
    'alternating order, the median of the per-round ratios. Target: ours ≤ 1.2× bare.',
  versions: {
    '@dsh/tools-mcp': packageVersion('tools-mcp'),
    '@dsh/tools-registry': packageVersion('tools-registry'),
    '@modelcontextprotocol/sdk': sdkVersion,
    cordis: '4.0.0-rc.10',
  },
  groups(): BenchGroup[] {
    writeFixtures()
    return [
      {
        title: `${SERVERS} stdio servers × ${TOOLS_PER_SERVER} tools, start-up until listed`,
        cases: { [BARE]: manualCase(bareStartup), [OURS]: manualCase(oursStartup) },
        baseline: BARE,
        target: { case: OURS, ...target },
        options: caseOptions,
        rounds: 3,
      },
    ]
  },
  async notes() {
    // Paired rounds: one sample of each case per round, in alternating order, so that both see the same load.
    const bare: number[] = []
    const ours: number[] = []
    const ratios: number[] = []
    for (let round = 0; round < PAIRED_ROUNDS; round++) {
      const order = round % 2 === 0 ? [bareStartup, oursStartup] : [oursStartup, bareStartup]
      const times = new Map<typeof bareStartup, number>()
      for (const run of order) times.set(run, await run())
      bare.push(times.get(bareStartup)!)
      ours.push(times.get(oursStartup)!)
      ratios.push(times.get(oursStartup)! / times.get(bareStartup)!)
      process.stdout.write(`  mcp-startup / paired round ${round + 1}: bare ${formatNs(bare.at(-1)!)}, ours ${formatNs(ours.at(-1)!)}\n`)
    }
    const ratio = median(ratios)
    const spread = `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×`
    // A plain mitata look at one server alone, to say what one spawn + handshake + listing costs here.
    const one = async (): Promise<number> => {
      const saved = servers
      servers = saved.slice(0, 1)
      try {
        return await bareStartup()
      } finally {
        servers = saved
      }
    }
    const single = await measure(manualCase(one), { ...caseOptions } as Parameters<typeof measure>[1])
    return [
      `- ${PAIRED_ROUNDS} paired rounds (one sample of each, alternating order): bare median **${formatNs(median(bare))}**, ` +
        `ours median **${formatNs(median(ours))}**; median per-round ratio **${ratio.toFixed(2)}×** (spread ${spread}; ` +
        `target ${target.label}: ${ratio <= target.maxRatio ? 'met' : '**missed**'}). Ours minus bare (medians): ` +
        `${formatNs(median(ours) - median(bare))} for ${TOTAL_TOOLS} tools.`,
      `- One server alone, bare SDK (spawn, initialize, ${TOOLS_PER_SERVER}-tool list): ${formatNs(single.p50)} median of 5.`,
    ].join('\n')
  },
  dispose() {
    removeFixtures()
  },
})

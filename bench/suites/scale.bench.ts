// The registry at the size of an MCP bridge: 1,000 global tools and 100 agent scopes (each with an allow and a deny
// restriction and three tools of its own), against the same registry with 10 global tools, in the same run. Every
// agent sees ten tools in both, so a figure that grows with the registry's size is the registry's cost, not the
// caller's. The 1,000-tool registration and the tools/change burst are also timed on their own, in the notes.
import type { Agent, ToolDefinition, ToolExecutionInput } from '@dsh/tools-core'
import { ToolRegistry } from '@dsh/tools-registry'
import { Context } from 'cordis'
import { measure } from 'mitata'
import { defineSuite, formatNs, type BenchGroup } from '../harness.js'

const SCOPES = 100
const OWN_TOOLS = 3
const BURST = 100
const scaleTarget = { maxRatio: 1.2, label: '≤ 1.2× the 10-tool figure' }
const registerBudgetMs = 50

const content = [{ type: 'text' as const, text: 'ok' }]

function trivialTool(name: string): ToolDefinition {
  return {
    name,
    description: `The ${name} tool: reads a page of notes.`,
    parameters: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } } },
    async execute() {
      return content
    },
  }
}

/** A registry of `size` global tools and {@link SCOPES} agents, each seeing 7 admitted globals and 3 tools of its own. */
interface ScaledRegistry {
  readonly ctx: Context
  readonly tools: ToolRegistry
  readonly agents: readonly Agent[]
  /** A global tool that `agents[0]` is allowed to call, and one of its own. */
  readonly allowedGlobal: string
  readonly ownTool: string
}

async function scaledRegistry(size: number): Promise<ScaledRegistry> {
  const ctx = new Context()
  await ctx.plugin(ToolRegistry)
  const tools = ctx.tools
  for (let index = 0; index < size; index++) tools.register(trivialTool(`tool_${index}`))
  const agents: Agent[] = []
  for (let index = 0; index < SCOPES; index++) {
    const agent: Agent = { id: `agent_${index}` }
    const scope = tools.scope(agent)
    // Eight globals allowed, one of them denied again: seven inherited, spread over the whole registry.
    const allow = Array.from({ length: 8 }, (_, offset) => `tool_${(index * 10 + offset) % size}`)
    scope.restrict({ allow })
    scope.restrict({ deny: [allow[7]!] })
    for (let own = 0; own < OWN_TOOLS; own++) scope.register(trivialTool(`agent_${index}_tool_${own}`))
    agents.push(agent)
  }
  return { ctx, tools, agents, allowedGlobal: 'tool_0', ownTool: 'agent_0_tool_0' }
}

const call = (name: string, agent?: Agent): ToolExecutionInput => ({
  callId: 'call_1',
  name,
  arguments: { path: '/tmp/notes.txt', limit: 20 },
  ...(agent === undefined ? {} : { agent }),
})

/** Registers `definitions`, then unregisters them: one registration churn. */
function churn(tools: ToolRegistry, definitions: readonly ToolDefinition[]): void {
  const disposers: Array<() => void> = []
  for (const definition of definitions) disposers.push(tools.register(definition))
  for (const dispose of disposers) dispose()
}

/**
 * A `tools/change` burst as a harness sees one: {@link BURST} tools appear (an MCP server reconnects), a listener
 * marks every agent's tool list stale on each change, and each agent's list is then rebuilt once, with
 * `schemas(agent)`, before its next model request; then the tools go away again.
 */
function burst(registry: ScaledRegistry, definitions: ToolDefinition[], stale: Set<Agent>): void {
  const disposers: Array<() => void> = []
  for (let index = 0; index < BURST; index++) disposers.push(registry.tools.register(definitions[index]!))
  for (const agent of stale) registry.tools.schemas(agent)
  stale.clear()
  for (const dispose of disposers) dispose()
}

function timeMs(run: () => void): number {
  const started = performance.now()
  run()
  return performance.now() - started
}

function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

let held: { small: ScaledRegistry; large: ScaledRegistry; groups: BenchGroup[] } | undefined

export default defineSuite({
  name: 'scale',
  description:
    `A registry of 1,000 global tools and ${SCOPES} agent scopes (each: an allow and a deny restriction, ${OWN_TOOLS} ` +
    'tools of its own, ten visible tools in all) against the same registry with 10 global tools, in the same run: ' +
    '`execute` of a trivial tool (agent-less, and by a scoped agent), `schemas(agent)`, `get`, `executionMode`, ' +
    `registering and unregistering tools, and a \`tools/change\` burst (${BURST} tools appear, every agent's list is ` +
    'rebuilt once, they go away). Churn cases do the same 1,000 registrations in both registries. Target: each ' +
    'figure within 1.2× of the 10-tool one; registering 1,000 tools under 50 ms (notes).',
  versions: { cordis: '4.0.0-rc.10' },
  async groups(): Promise<BenchGroup[]> {
    const small = await scaledRegistry(10)
    const large = await scaledRegistry(1_000)
    const agent = (registry: ScaledRegistry) => registry.agents[0]!
    const churnDefinitions = Array.from({ length: 1_000 }, (_, index) => trivialTool(`churn_${index}`))
    const churnRounds = Array.from({ length: 100 }, (_, round) => churnDefinitions.slice(round * 10, round * 10 + 10))
    const burstDefinitions = churnDefinitions.slice(0, BURST)
    const stale = new Map<ScaledRegistry, Set<Agent>>()
    for (const registry of [small, large]) {
      const agents = new Set<Agent>()
      stale.set(registry, agents)
      registry.tools.on('tools/change', () => {
        for (const each of registry.agents) agents.add(each)
      })
    }

    const pair = (title: string, run: (registry: ScaledRegistry) => unknown): BenchGroup => ({
      title,
      cases: { '10 tools': () => run(small), '1,000 tools': () => run(large) },
      baseline: '10 tools',
      target: { case: '1,000 tools', ...scaleTarget },
    })
    // Execute through the held bound function, as a loop does.
    const executeOf = new Map([small, large].map((registry) => [registry, registry.tools.execute] as const))
    const largeCall = call(large.allowedGlobal)
    const smallCall = call(small.allowedGlobal)
    const scopedCall = new Map([small, large].map((registry) => [registry, call(registry.allowedGlobal, agent(registry))] as const))
    const ownCall = new Map([small, large].map((registry) => [registry, call(registry.ownTool, agent(registry))] as const))

    const groups: BenchGroup[] = [
      pair('execute, agent-less', (registry) => executeOf.get(registry)!(registry === large ? largeCall : smallCall)),
      pair('execute, scoped agent, inherited tool', (registry) => executeOf.get(registry)!(scopedCall.get(registry)!)),
      pair('execute, scoped agent, own tool', (registry) => executeOf.get(registry)!(ownCall.get(registry)!)),
      pair('schemas(agent), 10 visible', (registry) => registry.tools.schemas(agent(registry))),
      pair('get(name, agent)', (registry) => registry.tools.get(registry.allowedGlobal, agent(registry))),
      pair('executionMode({ name, agent })', (registry) =>
        registry.tools.executionMode({ name: registry.ownTool, agent: agent(registry) }),
      ),
      {
        title: 'register + unregister 1,000 tools',
        cases: {
          '10 at a time, 100 rounds (10-tool registry)': () => {
            for (const round of churnRounds) churn(small.tools, round)
          },
          'all 1,000 at once (1,000-tool registry)': () => churn(large.tools, churnDefinitions),
        },
        baseline: '10 at a time, 100 rounds (10-tool registry)',
        target: { case: 'all 1,000 at once (1,000-tool registry)', ...scaleTarget },
        options: { min_samples: 12, max_samples: 60 },
      },
      {
        title: `tools/change burst (${BURST} tools, ${SCOPES} lists rebuilt)`,
        cases: {
          '10 tools': () => burst(small, burstDefinitions, stale.get(small)!),
          '1,000 tools': () => burst(large, burstDefinitions, stale.get(large)!),
        },
        baseline: '10 tools',
        target: { case: '1,000 tools', ...scaleTarget },
        options: { min_samples: 12, max_samples: 200 },
      },
    ]
    held = { small, large, groups }
    return groups
  },
  async notes() {
    if (held === undefined) return ''
    // Registering 1,000 tools into a registry that already holds 1,000 and 100 scopes, timed alone (the
    // unregistration is not counted), median of 15 rounds.
    const { large } = held
    const definitions = Array.from({ length: 1_000 }, (_, index) => trivialTool(`timed_${index}`))
    const registerMs: number[] = []
    const unregisterMs: number[] = []
    for (let round = 0; round < 15; round++) {
      const disposers: Array<() => void> = []
      registerMs.push(timeMs(() => {
        for (const definition of definitions) disposers.push(large.tools.register(definition))
      }))
      unregisterMs.push(timeMs(() => {
        for (const dispose of disposers) dispose()
      }))
    }
    // The table's cases run one after the other; on a shared machine the load can change between them. Here
    // each pair is measured again in alternating order, and the median of the per-round ratios is reported.
    // The fastest sample of each case is reported beside it: on a loaded machine it moves least with the load.
    const interleaved: string[] = [
      '| figure | median ratio, 1,000 : 10 tools (7 interleaved rounds) | spread | ratio of the fastest samples | target |',
      '| --- | ---: | --- | ---: | --- |',
    ]
    for (const group of held.groups) {
      const target = group.target
      if (target === undefined) continue
      const ratios: number[] = []
      const fastest = new Map<string, number>()
      for (let round = 0; round < 7; round++) {
        const order = round % 2 === 0 ? [group.baseline, target.case] : [target.case, group.baseline]
        const medians = new Map<string, number>()
        for (const name of order) {
          const stats = await measure(group.cases[name]!, { ...group.options, min_cpu_time: 100e6 } as Parameters<typeof measure>[1])
          medians.set(name, stats.p50)
          fastest.set(name, Math.min(fastest.get(name) ?? Infinity, stats.min))
        }
        ratios.push(medians.get(target.case)! / medians.get(group.baseline)!)
      }
      const ratio = medianOf(ratios)
      const spread = `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×`
      const fastestRatio = fastest.get(target.case)! / fastest.get(group.baseline)!
      const verdict = ratio <= target.maxRatio ? 'met' : '**missed**'
      interleaved.push(`| ${group.title} | ${ratio.toFixed(2)}× | ${spread} | ${fastestRatio.toFixed(2)}× | ${verdict} |`)
    }
    const register = medianOf(registerMs)
    const unregister = medianOf(unregisterMs)
    const globalSchemas = medianOf(Array.from({ length: 15 }, () => timeMs(() => large.tools.schemas())))
    return [
      `- Registering 1,000 tools (into the 1,000-tool registry with ${SCOPES} scopes): **${register.toFixed(1)} ms** (target < ${registerBudgetMs} ms: ${register < registerBudgetMs ? 'met' : '**missed**'}); unregistering them: ${unregister.toFixed(1)} ms.`,
      `- \`schemas()\` of all 1,000 global tools (what an agent without restrictions gets): ${globalSchemas.toFixed(2)} ms, ${formatNs((globalSchemas * 1e6) / 1_000)} per tool.`,
      '',
      ...interleaved,
    ].join('\n')
  },
  async dispose() {
    if (held === undefined) return
    await held.small.ctx.registry.delete(ToolRegistry)
    await held.large.ctx.registry.delete(ToolRegistry)
  },
})

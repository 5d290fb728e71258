import type { PlannedTool } from './discovery.js'
import type { ResolvedMcpServerConfig } from './server-config.js'
import { registryToolName } from './tool-names.js'

const isNamed = (tool: unknown): tool is { readonly name: string } =>
  typeof tool === 'object' && tool !== null && typeof (tool as { name?: unknown }).name === 'string'

/**
 * Which wire name owns each registry name of one server, for the life of its plugin. A registry name is what a model,
 * a person approving a call and a harness's stored approvals know a tool by, but it is not an identity: a mapped name
 * ends in a digest of the wire name, and two wire names a server makes up together can be brought to share it (as
 * can two `tools[…].name` overrides). So the first wire name registered under a name (or the `pinned` one) keeps it:
 * another wire name that maps to it never inherits its registration, its approval or its quarantine slot; it is
 * quarantined until a person approves it by its wire name, which hands the name over. Drift itself is decided on
 * the full fingerprint of the definition, keyed by the exact wire name (the connection's baseline).
 */
export class ToolNameBindings {
  readonly #owners = new Map<string, string>()
  readonly #config: ResolvedMcpServerConfig
  /** The last {@link ownersFirst} reordering: for each reordered position, the tool's position in `source`. */
  #order: { readonly source: readonly unknown[]; readonly positions: readonly number[] } | undefined

  constructor(config: ResolvedMcpServerConfig) {
    this.#config = config
    for (const wireName of Object.keys(config.pinned)) this.bind(this.nameOf(wireName), wireName)
  }

  /** The registry name a wire name gets under this config (a `tools[…].name` override, else the mapped name). */
  nameOf(wireName: string): string {
    const settings = Object.hasOwn(this.#config.tools, wireName) ? this.#config.tools[wireName] : undefined
    return settings?.name ?? registryToolName(this.#config.id, wireName, this.#config.toolPrefix)
  }

  /** The wire name that owns `name`, if one does. */
  ownerOf(name: string): string | undefined {
    return this.#owners.get(name)
  }

  /** Makes `wireName` the owner of `name` unless another wire name owns it already. */
  bind(name: string, wireName: string): void {
    if (!this.#owners.has(name)) this.#owners.set(name, wireName)
  }

  /** Hands `name` to `wireName` (a person approved that tool by its wire name). */
  transfer(name: string, wireName: string): void {
    this.#owners.set(name, wireName)
  }

  /**
   * The listing with the tools that own their registry name first (otherwise in the server's order), so that a
   * first-come name check while planning can never let a newcomer take an owner's name before the owner is seen.
   */
  ownersFirst<T>(tools: readonly T[]): T[] {
    const owners = new Set(this.#owners.values())
    const first: number[] = []
    const rest: number[] = []
    tools.forEach((tool, index) => (isNamed(tool) && owners.has(tool.name) ? first : rest).push(index))
    const positions = [...first, ...rest]
    this.#order = { source: tools, positions }
    return positions.map((index) => tools[index] as T)
  }

  /**
   * Plans in the listing's order again (after {@link ownersFirst}), where every plan that would register under a
   * name another wire name owns is quarantined instead, with a note saying whose name it is and how to hand it over.
   */
  arbitrate(plans: readonly PlannedTool[], listing: readonly unknown[]): PlannedTool[] {
    const order = this.#order
    this.#order = undefined
    let sorted: readonly PlannedTool[] = plans
    if (order !== undefined && order.source === listing && order.positions.length === plans.length) {
      // One plan per listed entry, in the reordered order: put each back at its entry's place.
      const back = new Map(order.positions.map((position, index) => [position, plans[index] as PlannedTool]))
      sorted = plans.map((_, position) => back.get(position) as PlannedTool)
    }
    return sorted.map((plan) => {
      const owner = this.#owners.get(plan.name)
      if (plan.state !== 'registered' || owner === undefined || owner === plan.wireName) return plan
      return {
        ...plan,
        state: 'quarantined',
        note:
          `its registry name ${plan.name} belongs to the tool ${JSON.stringify(owner)}, which held it first; ` +
          `${JSON.stringify(plan.wireName)} is a different tool that maps to the same name, so it inherits neither its registration nor its approval. ` +
          `Approve it by its wire name (approveMcpTools(ctx, ${JSON.stringify(this.#config.id)}, [${JSON.stringify(plan.wireName)}])) to give it the name, or name it yourself (tools[…].name)`,
      }
    })
  }

  /** True when `plan` is quarantined because another wire name owns its registry name (not for drift). */
  heldByAnother(plan: PlannedTool): boolean {
    const owner = this.#owners.get(plan.name)
    return owner !== undefined && owner !== plan.wireName
  }
}

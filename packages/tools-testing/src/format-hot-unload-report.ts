import type { HotUnloadReport, PluginFootprint } from './check-hot-unload.js'

function counted(items: readonly string[]): string {
  const counts = new Map<string, number>()
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1)
  return [...counts].map(([item, count]) => (count === 1 ? item : `${item} ×${count}`)).join(', ')
}

/** A one-paragraph summary of what a plugin set up: `global tools echo; guards 1; listeners tools/result (by "p")`. */
export function describeFootprint(footprint: PluginFootprint): string {
  const parts: string[] = []
  const add = (label: string, items: readonly string[]): void => {
    if (items.length > 0) parts.push(`${label} ${counted(items)}`)
  }
  add('global tools', footprint.tools)
  add(
    'scope entries',
    footprint.scopes.map((entry) => (entry.type === 'tool' ? `tool "${entry.name}" of agent "${entry.agent}"` : `a restriction of agent "${entry.agent}"`)),
  )
  if (footprint.guards > 0) parts.push(`guards ${footprint.guards}`)
  add('listeners', footprint.listeners.map((entry) => `${entry.event} (through "${entry.owner}")`))
  add('effects', footprint.effects.map((entry) => `${entry.label} (on "${entry.owner}")`))
  add('plugins', footprint.plugins)
  add('services', footprint.services)
  add('emitter listeners', footprint.emitterListeners.map((entry) => `${entry.emitter} ${entry.event}`))
  return parts.length === 0 ? 'nothing' : parts.join('; ')
}

/**
 * Renders a {@link HotUnloadReport} as text: a verdict line, one line per leak (`- [effect] effect
 * tools.register("echo") is still active on "root"`), and what the plugin had set up.
 */
export function formatHotUnloadReport(report: HotUnloadReport): string {
  const cycles = `${report.cycles} load/dispose cycle${report.cycles === 1 ? '' : 's'}`
  const setUp = `It had set up: ${describeFootprint(report.footprint)}.`
  if (report.clean) return `plugin "${report.plugin}" unloaded cleanly (${cycles}). ${setUp}`
  const count = report.leaks.length
  const lines = [
    `plugin "${report.plugin}" left ${count} thing${count === 1 ? '' : 's'} behind after its fiber was disposed (${cycles}):`,
    ...report.leaks.map((leak) => `  - [${leak.kind}] ${leak.message}${report.cycles > 1 ? ` (cycle ${leak.cycle})` : ''}`),
    setUp,
  ]
  return lines.join('\n')
}

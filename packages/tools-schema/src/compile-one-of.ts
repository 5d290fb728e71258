// The closure backend's oneOf: dispatch on a discriminator, or exactly one matching branch; when none matches, the
// closest branch is named and its problems listed.
import { describeValue, literal } from './describe-value.js'
import type { OneOfNode } from './schema-node.js'
import { compileNode } from './compile-validator.js'
import { Sink, type Check } from './validation-sink.js'
import { describeShape, discriminatorOf, hasOwnProperty, type Discriminator } from './value-rules.js'
import { firstOf } from './violation.js'

/** How far a failed branch is from matching: lower is closer. */
function distance(sink: Sink): number {
  let rank = 0
  for (const violation of sink.list) {
    if (violation.reversed.length === 0 && violation.keyword === 'type') rank = Math.max(rank, 2)
    else if (violation.reversed.length === 1 && (violation.keyword === 'const' || violation.keyword === 'enum')) {
      rank = Math.max(rank, 1)
    }
  }
  return rank * 1e9 + sink.count
}

const branchProbeLimit = 64

export function compileOneOf(node: OneOfNode): Check {
  const branches = node.branches.map(compileNode)
  const shapes = node.branches.map(describeShape)
  const total = branches.length
  const discriminator = discriminatorOf(node.branches)

  /**
   * Checks branch `index` into a sink of its own; when it fails, reports that no branch matches, naming it as the
   * closest and listing its problems (as room allows). One walk of the branch.
   */
  function checkClosest(value: unknown, sink: Sink, index: number): boolean {
    const room = Math.min(sink.keep - sink.list.length, sink.stopAt - sink.count) - 1
    const details = new Sink(Math.max(room, 1), Math.max(sink.stopAt - sink.count - 1, 1))
    if ((branches[index] as Check)(value, details)) return true
    const shape = `shape ${index + 1} (${shapes[index] as string})`
    if (room <= 0) {
      // No room for the branch's problems: name the first one in the summary itself.
      const first = firstOf(details.violations())
      const inline = first === undefined ? '' : `: ${first.path === '' ? '' : `${first.path}: `}${first.message}`
      sink.add('oneOf', `matches none of the ${total} allowed shapes; the closest is ${shape}${inline}`)
      return false
    }
    sink.add('oneOf', `matches none of the ${total} allowed shapes; the closest is ${shape}`)
    for (const violation of details.list) sink.add(violation.keyword, violation.message, violation.reversed.slice(), violation.text)
    sink.count += details.count - details.list.length
    return false
  }

  /** The discriminator's value in `value`, or `undefined` (not an object, no such property, a throwing getter). */
  function tagOf(value: unknown): unknown {
    if (discriminator === undefined || typeof value !== 'object' || value === null) return undefined
    try {
      const record = value as Record<string, unknown>
      const { name } = discriminator
      // Own properties only: a tag inherited from a polluted prototype must not select a branch.
      return hasOwnProperty.call(record, name) ? record[name] : undefined
    } catch {
      return undefined // the branches report the throw
    }
  }

  return (value, sink) => {
    const tag = tagOf(value)
    if (tag !== undefined) {
      // Only the selected branch can match: every other one requires a different literal here.
      const chosen = (discriminator as Discriminator).branches.get(tag)
      if (sink === null) return chosen !== undefined && (branches[chosen] as Check)(value, null)
      if (chosen !== undefined) return checkClosest(value, sink, chosen)
      const { name, literals } = discriminator as Discriminator
      const got = typeof tag === 'string' || typeof tag === 'boolean' || (typeof tag === 'number' && Number.isFinite(tag)) ? literal(tag) : describeValue(tag)
      sink.add('oneOf', `matches none of the ${total} allowed shapes: ${name} must be one of ${literals}, got ${got}`)
      return false
    }
    let matches = 0
    for (let index = 0; index < total; index++) {
      if ((branches[index] as Check)(value, null)) {
        matches++
        if (matches > 1 && sink === null) return false
      }
    }
    if (matches === 1) return true
    if (sink === null) return false
    if (matches > 1) {
      const matching = branches.flatMap((branch, index) => (branch(value, null) ? [index + 1] : []))
      sink.add('oneOf', `matches ${matches} of the ${total} allowed shapes (${matching.join(', ')}); it must match exactly one`)
      return false
    }
    let best: Sink | undefined
    let bestIndex = 0
    for (let index = 0; index < total; index++) {
      const probe = new Sink(branchProbeLimit, branchProbeLimit)
      ;(branches[index] as Check)(value, probe)
      if (best === undefined || distance(probe) < distance(best)) {
        best = probe
        bestIndex = index
      }
    }
    return checkClosest(value, sink, bestIndex)
  }
}

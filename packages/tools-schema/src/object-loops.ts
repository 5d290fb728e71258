import { SNAPSHOT_PROTOTYPE } from '@dsh/tools-core'
// The closure backend's accept-only object loops (see fastObject).
import { isPlainPrototype } from './plain-object.js'
import type { Check } from './validation-sink.js'
import { CALL, isJson, leafMatches, ObjectPrototype, type Proto } from './value-rules.js'

/** An accept-only check: the answer of `check(value, null)`, without the sink argument. */
export type Fast = (value: unknown) => boolean

/** One declared property, as the object loop reads it. */
export interface Slot {
  readonly name: string
  /** Its position among the declared properties. */
  readonly index: number
  /** The property's path piece (`.name`, `["odd key"]`). */
  readonly piece: string
  /** Its leaf code, or CONST for a string `const` (compared with {@link wanted}). */
  readonly leaf: number
  readonly wanted: unknown
  readonly check: Check
  /** The accept-only check (no sink, no allocation). */
  readonly fast: Fast
  /** 1 when required, so that the loop can add it up. */
  readonly required: number
}

/** What the fast loops know of a property: enough to check it inline or call its accept-only check. */
export type FastSlot = Pick<Slot, 'name' | 'index' | 'fast' | 'leaf' | 'wanted' | 'required'>

/**
 * The accept-only loops of object nodes. V8 shares inline caches among all closures made from one function literal,
 * so a single loop for every object node sees every shape in the process and its loads (`__proto__` above all) go
 * megamorphic. The same loop is therefore written three times, chosen by the node's structure (open; closed with
 * only scalar properties; other closed), so that each copy sees fewer shapes. Each answers exactly like the sink-less walk of
 * the full check: keys in `for…in` order, inherited ones skipped unless declared, every throw a `false`.
 */
export function fastObject(slots: readonly FastSlot[], byName: ReadonlyMap<string, FastSlot>, requiredCount: number, open: boolean, scalar: boolean): Fast {
  const count = slots.length
  if (!open && !scalar)
    return (value) => {
      try {
        if (typeof value !== 'object' || value === null || Array.isArray(value) || ((value as Proto).__proto__ !== ObjectPrototype && Object.getPrototypeOf(value) !== SNAPSHOT_PROTOTYPE && !isPlainPrototype(Object.getPrototypeOf(value)))) return false
        const record = value as Record<string, unknown>
        let position = 0
        let seen = 0
        for (const key in record) {
          // for…in also walks keys inherited from a polluted prototype: they are not part of the value.
          if (!Object.prototype.hasOwnProperty.call(record, key)) continue
          const item = record[key]
          let slot = position < count ? slots[position] : undefined
          position++
          if (slot === undefined || slot.name !== key) {
            slot = byName.get(key)
            if (slot === undefined) return false
            position = slot.index + 1
          }
          if (!(slot.leaf === CALL ? slot.fast(item) : leafMatches(slot.leaf, item, slot.wanted))) return false
          seen += slot.required
        }
        return seen === requiredCount
      } catch {
        return false
      }
    }
  if (!open)
    return (value) => {
      try {
        if (typeof value !== 'object' || value === null || Array.isArray(value) || ((value as Proto).__proto__ !== ObjectPrototype && Object.getPrototypeOf(value) !== SNAPSHOT_PROTOTYPE && !isPlainPrototype(Object.getPrototypeOf(value)))) return false
        const record = value as Record<string, unknown>
        let position = 0
        let seen = 0
        for (const key in record) {
          // for…in also walks keys inherited from a polluted prototype: they are not part of the value.
          if (!Object.prototype.hasOwnProperty.call(record, key)) continue
          const item = record[key]
          let slot = position < count ? slots[position] : undefined
          position++
          if (slot === undefined || slot.name !== key) {
            slot = byName.get(key)
            if (slot === undefined) return false
            position = slot.index + 1
          }
          if (!leafMatches(slot.leaf, item, slot.wanted)) return false
          seen += slot.required
        }
        return seen === requiredCount
      } catch {
        return false
      }
    }
  return (value) => {
    try {
      if (typeof value !== 'object' || value === null || Array.isArray(value) || ((value as Proto).__proto__ !== ObjectPrototype && Object.getPrototypeOf(value) !== SNAPSHOT_PROTOTYPE && !isPlainPrototype(Object.getPrototypeOf(value)))) return false
      const record = value as Record<string, unknown>
      let position = 0
      let seen = 0
      for (const key in record) {
        if (!Object.prototype.hasOwnProperty.call(record, key)) continue
        const item = record[key]
        let slot = position < count ? slots[position] : undefined
        position++
        if (slot === undefined || slot.name !== key) {
          slot = byName.get(key)
          if (slot === undefined) {
            if (!isJson(item)) return false
            continue
          }
          position = slot.index + 1
        }
        if (!(slot.leaf === CALL ? slot.fast(item) : leafMatches(slot.leaf, item, slot.wanted))) return false
        seen += slot.required
      }
      return seen === requiredCount
    } catch {
      return false
    }
  }
}

/**
 * Marks on objects the registry built itself (a materialized result, a checked wrapper result), kept as private class
 * fields rather than in a `WeakSet`: stamping one is an ordinary property store and asking is one lookup, where a
 * `WeakSet.add` per call cost ~170 ns and added ephemeron work to every garbage collection (measured in
 * bench/results.md, speed-v3). A private field is invisible to `Reflect.ownKeys`, `JSON.stringify` and
 * `structuredClone`, cannot be forged from outside this module, and a proxy of a marked object is not marked.
 */

/** A base class whose constructor returns the object it is given, so a subclass's private field lands on that object. */
class Stamped {
  constructor(target: object) {
    return target
  }
}

/** One kind of mark: `mark` stamps an object (idempotent; before it is frozen), `has` asks. */
export interface Brand {
  mark<T extends object>(value: T): T
  has(value: unknown): boolean
}

/** A new, distinct kind of mark. */
export function createBrand(): Brand {
  class Mark extends Stamped {
    readonly #marked = true // oxlint-disable-line no-unused-private-class-members (read by the `in` check below)
    static has(value: unknown): boolean {
      return typeof value === 'object' && value !== null && #marked in value
    }
  }
  return {
    mark(value) {
      if (!Mark.has(value)) new Mark(value)
      return value
    },
    has: Mark.has,
  }
}

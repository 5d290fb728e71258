/**
 * The mark `snapshotJson` leaves on each copy it returns: its expanded size and its height, kept in private class
 * fields. A marked value is a finished snapshot (detached, deep-frozen, of `SNAPSHOT_PROTOTYPE` objects and plain
 * arrays), so a later walk that meets it (`snapshotJson` of it again, or of a value holding it) reuses it as it is,
 * checking only its recorded size and height against that walk's limits. Private fields cannot be forged or copied
 * from outside this module, are invisible to `Reflect.ownKeys`, `JSON.stringify` and `structuredClone`, and a proxy
 * of a marked value is not marked. Stamped before the copy is frozen.
 */

/** A base class whose constructor returns the object it is given, so a subclass's private fields land on that object. */
class Stamped {
  constructor(target: object) {
    return target
  }
}

export class SnapshotMark extends Stamped {
  readonly #size: number
  readonly #height: number

  private constructor(target: object, size: number, height: number) {
    super(target)
    this.#size = size
    this.#height = height
  }

  /** Marks `copy` (not yet frozen) as a finished snapshot of `size` units of JSON text (its contents) and `height` levels. */
  static stamp(copy: object, size: number, height: number): void {
    new SnapshotMark(copy, size, height)
  }

  /** True for a value {@link stamp} marked. */
  static has(value: object): boolean {
    return #size in value
  }

  /** The expanded size of a marked value's contents (the unit its parent counts for it excluded). */
  static sizeOf(value: SnapshotMark): number {
    return value.#size
  }

  /** How many levels of containers a marked value holds, itself included. */
  static heightOf(value: SnapshotMark): number {
    return value.#height
  }
}

import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

/** The card kinds this package knows, in the order they are listed in messages. */
const KNOWN_CARDS = ['generic', 'terminal', 'diff'] as const

/**
 * A value handed to a card consumer (the ACP mapping, the terminal renderer, the presenter fallback) is not a card
 * of the vocabulary (code `UNKNOWN_CARD`): its `card` discriminant is not `generic`, `terminal` or `diff`, or a
 * known card has a field of the wrong shape. `path` says where (`''` for the card itself, `diffs[0].newText`).
 */
export class UnknownCardError extends DshError {
  static override readonly brand: symbol = errorBrand('UnknownCardError')

  /** True when `value` is an {@link UnknownCardError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is UnknownCardError {
    return DshError.hasBrand(value, UnknownCardError.brand)
  }

  override readonly name: string = 'UnknownCardError'
  /** The `card` discriminant that was received (`undefined` when the value had none). */
  readonly card: unknown
  /** Where in the card the problem is, formatted like `diffs[0].newText`; `''` is the card itself. */
  readonly path: string
  /** What is wrong at `path`, in words. */
  readonly reason: string

  /**
   * @param details - the received discriminant, the path of the offending field, and what is wrong with it
   * @param options - `cause`
   */
  constructor(details: { card: unknown; path: string; reason: string }, options?: DshErrorOptions) {
    super('UNKNOWN_CARD', UnknownCardError.describe(details), options)
    this.card = details.card
    this.path = details.path
    this.reason = details.reason
  }

  private static describe(details: { card: unknown; path: string; reason: string }): string {
    const known = KNOWN_CARDS.join(', ')
    if (details.path === 'card') {
      return `Not a known tool card: ${details.reason} (known cards: ${known}).`
    }
    const where = details.path === '' ? '' : ` at "${details.path}"`
    return `Malformed ${String(details.card)} card${where}: ${details.reason}.`
  }
}

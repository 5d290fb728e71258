import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

/** The card kinds this package knows, in the order they are listed in messages. */
const KNOWN_CARDS = ['generic', 'terminal', 'diff', 'task', 'code'] as const

const unknownCardErrorBrand: symbol = errorBrand('UnknownCardError')

/**
 * A value handed to a card consumer (the ACP mapping, the terminal renderer, the presenter fallback) is not a card
 * of the vocabulary (code `UNKNOWN_CARD`): not an object, or its `card` discriminant is not `generic`, `terminal`,
 * `diff`, `task` or `code` (or is `task`, a result card, where a call card is expected). (A known card with a
 * malformed field is an `InvalidCardError`, code `INVALID_CARD`.)
 */
export class UnknownCardError extends DshError {
  static override readonly brand: symbol = unknownCardErrorBrand

  /** True when `value` is an {@link UnknownCardError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is UnknownCardError {
    return DshError.hasBrand(value, unknownCardErrorBrand)
  }

  override readonly name: string = 'UnknownCardError'
  /** The `card` discriminant that was received (`undefined` when the value had none). */
  readonly card: unknown
  /** Always `card`: the discriminant is what is wrong. */
  readonly path: string
  /** What is wrong at `path`, in words. */
  readonly reason: string

  /**
   * @param details - the received discriminant, the path of the offending field, and what is wrong with it
   * @param options - `cause`
   */
  constructor(details: { card: unknown; path: string; reason: string }, options?: DshErrorOptions) {
    super('UNKNOWN_CARD', describeUnknownCard(details), options)
    this.card = details.card
    this.path = details.path
    this.reason = details.reason
  }
}

function describeUnknownCard(details: { card: unknown; path: string; reason: string }): string {
  return `Not a known tool card: ${details.reason} (known cards: ${KNOWN_CARDS.join(', ')}).`
}

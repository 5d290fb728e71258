import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const invalidCardErrorBrand: symbol = errorBrand('InvalidCardError')

/**
 * A card of a known kind (`generic`, `terminal`, `diff`, `task`, `code`) has a field of the wrong shape (code `INVALID_CARD`):
 * a `line` that is not a positive integer, content that is not content blocks, a `diffs` entry without `newText`, …
 * `path` says where (`diffs[0].newText`). A value that is not a card at all is an `UnknownCardError` instead.
 */
export class InvalidCardError extends DshError {
  static override readonly brand: symbol = invalidCardErrorBrand

  /** True when `value` is an {@link InvalidCardError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is InvalidCardError {
    return DshError.hasBrand(value, invalidCardErrorBrand)
  }

  override readonly name: string = 'InvalidCardError'
  /** The card's kind. */
  readonly card: string
  /** Where in the card the problem is, formatted like `diffs[0].newText`. */
  readonly path: string
  /** What is wrong at `path`, in words. */
  readonly reason: string

  /**
   * @param details - the card's kind, the path of the offending field, and what is wrong with it
   * @param options - `cause`
   */
  constructor(details: { card: string; path: string; reason: string }, options?: DshErrorOptions) {
    const where = details.path === '' ? '' : ` at "${details.path}"`
    super('INVALID_CARD', `Malformed ${details.card} card${where}: ${details.reason}.`, options)
    this.card = details.card
    this.path = details.path
    this.reason = details.reason
  }
}

/** What the card checks report: a value that is not a card, or a card with a malformed field. */
export type CardError = import('./unknown-card-error.js').UnknownCardError | InvalidCardError

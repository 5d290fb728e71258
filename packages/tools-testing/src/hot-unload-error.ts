import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import type { HotUnloadReport } from './check-hot-unload.js'
import { formatHotUnloadReport } from './format-hot-unload-report.js'

const hotUnloadErrorBrand: symbol = errorBrand('HotUnloadError')

/**
 * Thrown by {@link expectCleanUnload} when a plugin left something behind after its fiber was disposed, or set up
 * something different when it was loaded again. The message lists every leak; `report` holds them as data.
 *
 * Its code is `HOT_UNLOAD_LEAK`.
 */
export class HotUnloadError extends DshError {
  static override readonly brand: symbol = hotUnloadErrorBrand

  /** True when `value` is a {@link HotUnloadError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is HotUnloadError {
    return DshError.hasBrand(value, hotUnloadErrorBrand)
  }

  override readonly name: string = 'HotUnloadError'
  /** What the plugin registered and what it left behind. */
  readonly report: HotUnloadReport

  /**
   * @param report - the failed check's report
   * @param options - `cause`
   */
  constructor(report: HotUnloadReport, options?: DshErrorOptions) {
    super('HOT_UNLOAD_LEAK', formatHotUnloadReport(report), options)
    this.report = report
  }
}

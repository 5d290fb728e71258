import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const cordisHostErrorBrand: symbol = errorBrand('CordisHostError')

/**
 * A dsh plugin or service was loaded into a cordis it cannot run on (code `HOST_MISMATCH`): the host's cordis is
 * not 4.x. Thrown before anything else the plugin does, with a message that names the package, the cordis version
 * found and the one needed, so a `npm install cordis` that picked cordis 3 does not end as
 * `TypeError: schema is not a function`.
 */
export class CordisHostError extends DshError {
  static override readonly brand: symbol = cordisHostErrorBrand

  /** True when `value` is a {@link CordisHostError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is CordisHostError {
    return DshError.hasBrand(value, cordisHostErrorBrand)
  }

  override readonly name: string = 'CordisHostError'
  declare readonly code: 'HOST_MISMATCH'
  /** The npm package whose plugin or service refused to load, for example `@dsh/tool-bash`. */
  readonly packageName: string
  /** The version of cordis found (its `package.json`), or `undefined` when it could not be read. */
  readonly found: string | undefined
  /** The range of cordis versions the package needs. */
  readonly needed: string

  /**
   * @param details - the package, the version found and the range needed
   * @param options - `cause`
   */
  constructor(details: { readonly packageName: string; readonly found: string | undefined; readonly needed: string; readonly install: string }, options?: DshErrorOptions) {
    const { packageName, found, needed, install } = details
    const host = found === undefined ? 'a cordis without fibers (cordis 3 or older; its version could not be read)' : `cordis ${found}`
    super('HOST_MISMATCH', `${packageName} needs cordis 4 (${needed}); the host has ${host}. Install ${install}.`, options)
    this.packageName = packageName
    this.found = found
    this.needed = needed
  }
}

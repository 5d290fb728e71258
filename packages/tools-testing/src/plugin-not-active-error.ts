import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'

const pluginNotActiveErrorBrand: symbol = errorBrand('PluginNotActiveError')

/**
 * A plugin loaded by a tools-testing helper did not become active (code `INVALID_CONFIG`): it injects services the
 * test context does not provide, so cordis keeps it pending and its `apply` never runs. Testing it anyway would
 * pass vacuously, so the helper disposes it and throws. Provide the services (for example with the `plugins`
 * option of {@link createToolContext}) and try again.
 */
export class PluginNotActiveError extends DshError {
  static override readonly brand: symbol = pluginNotActiveErrorBrand

  /** True when `value` is a {@link PluginNotActiveError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is PluginNotActiveError {
    return DshError.hasBrand(value, pluginNotActiveErrorBrand)
  }

  override readonly name: string = 'PluginNotActiveError'
  /** The plugin's name, as cordis reports it. */
  readonly plugin: string
  /** The injected services that are missing. */
  readonly missing: readonly string[]

  /**
   * @param plugin - the plugin's name
   * @param missing - the injected services that are not provided
   * @param options - `cause`
   */
  constructor(plugin: string, missing: readonly string[], options?: DshErrorOptions) {
    const waiting = missing.length === 0 ? 'it did not start' : `it waits for the services ${missing.map((name) => `"${name}"`).join(', ')}`
    super('INVALID_CONFIG', `plugin "${plugin}" did not become active: ${waiting}. Load the plugins that provide them first.`, options)
    this.plugin = plugin
    this.missing = Object.freeze([...missing])
  }
}

import { checkCordisHost, ToolRegistry } from '@dsh/tools-registry'
import { Context, Logger, type Exporter, type Fiber, type LoggerType, type Plugin } from 'cordis'
import { InvalidTestOptionError } from './invalid-test-option-error.js'
import { PluginNotActiveError } from './plugin-not-active-error.js'

/**
 * The configuration a cordis plugin takes: the second parameter of its function, constructor or `apply` (or the
 * input of a transforming `Config`), as cordis's own `ctx.plugin` typing reads it.
 */
export type PluginConfig<P> = P extends { schema?: true; Config: (config: infer S) => unknown }
  ? S
  : P extends (ctx: Context, ...args: infer R) => unknown
    ? R[0]
    : P extends new (ctx: Context, ...args: infer R) => unknown
      ? R[0]
      : P extends { apply(ctx: Context, ...args: infer R): unknown }
        ? R[0]
        : never

/** The arguments after a plugin: its config, optional when the plugin accepts `undefined`. */
export type PluginArgs<P> = undefined extends PluginConfig<P> ? [config?: PluginConfig<P>] : [config: PluginConfig<P>]

/**
 * A plugin to load into a test context: the plugin alone, or `[plugin, config]`. The config is checked by the
 * plugin (cordis validates it against the plugin's `Config` schema, if it has one), not by the type of this
 * tuple; use {@link ToolTestContext.load} for a typed config.
 */
export type ToolContextPlugin = Plugin | readonly [plugin: Plugin, config?: unknown]

/** Options of {@link createToolContext}. */
export interface ToolContextOptions {
  /**
   * Plugins to load after the registry, in order, each awaited and required to become active: the opt-ins a tool
   * needs, for example `[TimeoutPolicy]` or `[[LocalBashExecutor, { maxTimeoutMs: 10_000 }]]`.
   */
  readonly plugins?: readonly ToolContextPlugin[] | undefined
}

/** One message logged through cordis's logger while the test context was alive, as plain text. */
export interface LogRecord {
  /** The logger's name (`tools` for the registry). */
  readonly name: string
  /** `error`, `warn`, `info` or `debug`. */
  readonly type: LoggerType
  /** The message, formatted without colours. */
  readonly text: string
}

/** A plugin loaded by {@link ToolTestContext.load}. */
export interface LoadedPlugin {
  /** The plugin's fiber (active). */
  readonly fiber: Fiber
  /** The plugin's own context. */
  readonly ctx: Context
  /** Disposes the plugin's fiber (a hot unload), resolving when everything it set up is undone. */
  dispose(): Promise<void>
}

/**
 * A real cordis `Context` with the `ToolRegistry` loaded and active. Dispose it when the test ends
 * (`await using t = await createToolContext()`, or `await t.dispose()` in an `afterEach`).
 */
export interface ToolTestContext extends AsyncDisposable {
  /** The root context. Plugins loaded and listeners added through it are undone by {@link dispose}. */
  readonly ctx: Context
  /** The registry (`ctx.tools`), held once: calling through it costs no cordis property lookup. */
  readonly tools: ToolRegistry
  /** Every message logged in the app since the context was created, in order (registry warnings included). */
  readonly logs: readonly LogRecord[]
  /** True once {@link dispose} has run. */
  readonly disposed: boolean
  /**
   * Loads a plugin into the root context and waits until it is active. Throws the plugin's own error when its
   * `apply` fails, and {@link PluginNotActiveError} when it waits for services nobody provides.
   */
  load<P extends Plugin>(plugin: P, ...args: PluginArgs<P>): Promise<LoadedPlugin>
  /**
   * Disposes everything: every plugin (the registry included, so `tools` is unusable afterwards) and every effect
   * of the root context, in reverse order. Calling it again does nothing.
   */
  dispose(): Promise<void>
}

/** cordis's fiber state `ACTIVE` (a `const enum` in its typings, which isolated modules cannot read). */
const FIBER_ACTIVE = 2

const plainExporter: Exporter = { colors: false, export() {} }

/**
 * A fiber's name for reports: `root`, the plugin's own name, or `(anonymous plugin)` (cordis's `fiber.name` would
 * give a nameless plugin its parent's name).
 */
export function pluginName(fiber: Fiber): string {
  if (fiber.runtime === null) return 'root'
  return fiber.runtime.name ?? '(anonymous plugin)'
}

/**
 * Loads `plugin` through the root context and requires it to become active. On a plugin that waits for missing
 * services, disposes it and throws {@link PluginNotActiveError}.
 */
export async function loadActivePlugin(ctx: Context, plugin: Plugin, config: unknown): Promise<LoadedPlugin> {
  const fiber = await ctx.root.registry.plugin(plugin, config)
  if ((fiber.state as number) !== FIBER_ACTIVE) {
    const missing = Object.keys(fiber.inject).filter((name) => ctx.root.get(name) === undefined)
    const name = pluginName(fiber)
    await fiber.dispose()
    throw new PluginNotActiveError(name, missing)
  }
  return { fiber, ctx: fiber.ctx, dispose: () => fiber.dispose() }
}

function readEntry(entry: unknown, index: number): [Plugin, unknown] {
  const option = `plugins[${index}]`
  if (Array.isArray(entry)) {
    if (entry.length < 1 || entry.length > 2) {
      throw new InvalidTestOptionError(option, `expected a plugin or [plugin, config], got an array of ${entry.length} items`)
    }
    return [checkPlugin(entry[0], option), entry[1]]
  }
  return [checkPlugin(entry, option), undefined]
}

function checkPlugin(value: unknown, option: string): Plugin {
  const isPlugin =
    typeof value === 'function' ||
    (typeof value === 'object' && value !== null && typeof (value as { apply?: unknown }).apply === 'function')
  if (!isPlugin) throw new InvalidTestOptionError(option, 'expected a cordis plugin (a function, a class or an object with apply)')
  return value as Plugin
}

/**
 * Creates a fresh cordis `Context`, loads `ToolRegistry` and the given plugins, waits until all are active, and
 * starts collecting log messages.
 *
 * ```ts
 * await using t = await createToolContext({ plugins: [[LocalBashExecutor, { maxTimeoutMs: 10_000 }]] })
 * t.tools.register(myTool)
 * ```
 */
export async function createToolContext(options: ToolContextOptions = {}): Promise<ToolTestContext> {
  const plugins = options.plugins ?? []
  if (!Array.isArray(plugins)) throw new InvalidTestOptionError('plugins', 'expected an array')
  const entries = plugins.map((entry, index) => readEntry(entry, index))

  const ctx = new Context()
  checkCordisHost(ctx, '@dsh/tools-testing')
  const logs: LogRecord[] = []
  ctx.logger.exporter({
    colors: false,
    export(message) {
      logs.push(Object.freeze({ name: message.name, type: message.type, text: Logger.format(plainExporter, message) }))
    },
  })

  let disposed = false
  const dispose = async (): Promise<void> => {
    if (disposed) return
    disposed = true
    // The root fiber's dispose restarts it: every effect of the root context (each loaded plugin's fiber, each
    // listener and registration made through the root) is undone in reverse order, and the root stays usable.
    await ctx.root.fiber.dispose()
  }

  try {
    await ctx.plugin(ToolRegistry)
    for (const [plugin, config] of entries) await loadActivePlugin(ctx, plugin, config)
  } catch (error) {
    await dispose()
    throw error
  }

  const tools = ctx.tools
  return {
    ctx,
    tools,
    logs,
    get disposed() {
      return disposed
    },
    load(plugin, ...args) {
      if (disposed) return Promise.reject(new InvalidTestOptionError('context', 'the test context is disposed'))
      return loadActivePlugin(ctx, plugin, args[0])
    },
    dispose,
    [Symbol.asyncDispose]: dispose,
  }
}

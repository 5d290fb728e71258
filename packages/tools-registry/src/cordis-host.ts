import { CordisHostError } from './cordis-host-error.js'

/** The cordis versions the dsh cordis packages run on. */
export const CORDIS_RANGE = '>=4.0.0-rc.10 <5'

/** What to install when the host's cordis does not fit {@link CORDIS_RANGE}. */
export const CORDIS_INSTALL = 'cordis@4.0.0-rc.10'

interface ModuleBuiltin {
  createRequire(from: string): (id: string) => unknown
}

/**
 * The version in the `package.json` of the cordis this package resolves (as a peer, normally the host's), or
 * `undefined` where it cannot be read (no Node.js module loader, a bundle). Used for the message only: the
 * verdict comes from the context itself.
 */
export function resolvedCordisVersion(): string | undefined {
  try {
    const getBuiltin = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule
    const builtin = typeof getBuiltin === 'function' ? (getBuiltin('node:module') as ModuleBuiltin | undefined) : undefined
    if (builtin === undefined) return undefined
    const manifest = builtin.createRequire(import.meta.url)('cordis/package.json') as { version?: unknown }
    return typeof manifest.version === 'string' ? manifest.version : undefined
  } catch {
    return undefined
  }
}

/** True when `ctx` is a cordis 4 context: it has a fiber (cordis 3 has scopes) and `waterfall` (cordis 3 has none). */
export function isCordis4Context(ctx: unknown): boolean {
  try {
    if (typeof ctx !== 'object' || ctx === null) return false
    // `in` first: reading a property cordis 3 does not know makes it log a warning of its own.
    if (!('fiber' in ctx) || !('waterfall' in ctx)) return false
    const fields = ctx as { fiber?: unknown; waterfall?: unknown }
    return typeof fields.fiber === 'object' && fields.fiber !== null && typeof fields.waterfall === 'function'
  } catch {
    return false
  }
}

function mismatch(packageName: string): CordisHostError {
  return new CordisHostError({ packageName, found: resolvedCordisVersion(), needed: CORDIS_RANGE, install: CORDIS_INSTALL })
}

/** Options of {@link checkCordisHost}. */
export interface CordisHostCheckOptions {
  /**
   * The service the caller provides (`'tools'` for `ToolRegistry`, `'bash'` for an executor). On a host that is not
   * cordis 4, reading `ctx.<service>` afterwards, on the host's root context and on every context made from it,
   * throws the same {@link CordisHostError} instead of giving `undefined`: cordis 3 only logs a plugin that throws
   * while it starts, and its `ctx.plugin(…)` returns normally, awaited or not, so the host's next line would
   * otherwise meet an `undefined` service. Nothing is changed where a property or service of that name exists.
   */
  readonly service?: string | undefined
}

/**
 * Defines `service` on the root of a context that is not cordis 4 as a getter that throws the host error. cordis 3's
 * context proxy reads a plain property before its own service table, and contexts made from the root inherit it.
 */
function fenceService(ctx: unknown, service: string, packageName: string): void {
  try {
    if (typeof ctx !== 'object' || ctx === null) return
    const root = 'root' in ctx ? (ctx as { root?: unknown }).root : undefined
    const target = typeof root === 'object' && root !== null ? root : ctx
    if (service in target) return
    Object.defineProperty(target, service, {
      configurable: true,
      enumerable: false,
      get(): never {
        throw mismatch(packageName)
      },
    })
  } catch {
    // A context that takes no new property (frozen, a revoked proxy): the thrown error is all the host gets.
  }
}

/**
 * Checks that `ctx` comes from cordis 4 and throws {@link CordisHostError} (`HOST_MISMATCH`) naming
 * `packageName`, the cordis version found and the one needed when it does not. Every dsh cordis plugin and service
 * calls it first thing when it starts; a plugin of your own that uses `ctx.tools` needs no check of its own (the
 * registry's runs when it starts). A service passes its name as `options.service`, so that on such a host
 * `ctx.<service>` throws the same error instead of being `undefined` (see {@link CordisHostCheckOptions.service}).
 */
export function checkCordisHost(ctx: unknown, packageName: string, options?: CordisHostCheckOptions): void {
  if (isCordis4Context(ctx)) return
  const service = options?.service
  if (typeof service === 'string' && service !== '') fenceService(ctx, service, packageName)
  throw mismatch(packageName)
}

/**
 * A plugin's Standard Schema `Config`, made callable so that cordis 3 fails with a {@link CordisHostError} instead of
 * `TypeError: schema is not a function`: cordis 3 calls a plugin's `Config(config)` before the plugin starts, which
 * cordis 4 never does (it calls `Config['~standard'].validate`). The result behaves exactly like `schema` on
 * cordis 4.
 */
export function withCordisHostCheck<Schema extends { readonly '~standard': object }>(schema: Schema, packageName: string): Schema {
  const guarded = function cordis3Config(): never {
    throw mismatch(packageName)
  }
  for (const key of Reflect.ownKeys(schema)) {
    Object.defineProperty(guarded, key, { value: (schema as Record<PropertyKey, unknown>)[key], enumerable: true })
  }
  return Object.freeze(guarded) as unknown as Schema
}

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

/**
 * Checks that `ctx` comes from cordis 4 and throws {@link CordisHostError} (`HOST_MISMATCH`) naming
 * `packageName`, the cordis version found and the one needed when it does not. Every dsh cordis plugin and service
 * calls it first thing when it starts; a plugin of your own that uses `ctx.tools` needs no check of its own (the
 * registry's runs when it starts).
 */
export function checkCordisHost(ctx: unknown, packageName: string): void {
  if (!isCordis4Context(ctx)) throw mismatch(packageName)
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

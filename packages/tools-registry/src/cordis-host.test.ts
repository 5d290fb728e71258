import { Context } from 'cordis'
import { describe, expect, it, vi } from 'vitest'
import {
  CORDIS_INSTALL,
  CORDIS_RANGE,
  checkCordisHost,
  CordisHostError,
  isCordis4Context,
  toolRegistryMissingText,
  ToolRegistry,
  warnIfToolRegistryMissing,
  withCordisHostCheck,
} from './index.js'

/** What a cordis 3 context looks like to the check: scopes, no fiber, no waterfall. */
function cordis3LikeContext(): object {
  return { scope: {}, on: () => () => {}, emit: () => {} }
}

function thrownBy(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error('it did not throw')
}

describe('checkCordisHost', () => {
  it('accepts a cordis 4 context, at the root and in a plugin', async () => {
    const ctx = new Context()
    expect(isCordis4Context(ctx)).toBe(true)
    expect(() => checkCordisHost(ctx, '@dsh/example')).not.toThrow()
    let inPlugin: boolean | undefined
    await ctx.plugin({ name: 'probe', apply: (pluginCtx: Context) => void (inPlugin = isCordis4Context(pluginCtx)) })
    expect(inPlugin).toBe(true)
  })

  it('rejects anything else with HOST_MISMATCH naming the package, the version found and the one needed', () => {
    for (const ctx of [cordis3LikeContext(), undefined, null, {}, { fiber: null, waterfall: () => {} }, { fiber: {} }]) {
      expect(isCordis4Context(ctx)).toBe(false)
      const error = thrownBy(() => checkCordisHost(ctx, '@dsh/example'))
      expect(CordisHostError.isInstance(error)).toBe(true)
      const hostError = error as CordisHostError
      expect(hostError.code).toBe('HOST_MISMATCH')
      expect(hostError.packageName).toBe('@dsh/example')
      expect(hostError.needed).toBe(CORDIS_RANGE)
      // Here the resolved cordis is the workspace's own 4.0.0-rc.10: the verdict comes from the context, the version
      // in the message from the package.json this package resolves.
      expect(hostError.found).toBe('4.0.0-rc.10')
      expect(hostError.message).toBe(
        '@dsh/example needs cordis 4 (>=4.0.0-rc.10 <5); the host has cordis 4.0.0-rc.10. Install cordis@4.0.0-rc.10.',
      )
    }
    expect(CORDIS_INSTALL).toBe('cordis@4.0.0-rc.10')
  })

  it('says so when the version cannot be read', () => {
    const error = new CordisHostError({ packageName: '@dsh/x', found: undefined, needed: CORDIS_RANGE, install: CORDIS_INSTALL })
    expect(error.message).toBe(
      '@dsh/x needs cordis 4 (>=4.0.0-rc.10 <5); the host has a cordis without fibers (cordis 3 or older; its version ' +
        'could not be read). Install cordis@4.0.0-rc.10.',
    )
  })

  it('regression: the registry refuses a cordis 3 context before it touches it (no TypeError later)', () => {
    let touched = false
    const ctx = new Proxy(cordis3LikeContext(), {
      get(target, key) {
        if (key !== 'fiber' && key !== 'waterfall') touched = true
        return Reflect.get(target, key)
      },
    })
    const error = thrownBy(() => new ToolRegistry(ctx as unknown as Context))
    expect(CordisHostError.isInstance(error)).toBe(true)
    expect((error as Error).message).toMatch(/^@dsh\/tools-registry needs cordis 4 /)
    expect(touched).toBe(false)
  })
})

/**
 * What cordis 3's contexts look like from outside: the root is a proxy that answers a property it holds itself and
 * otherwise looks the name up in its service table (`undefined` for a service nobody provides); a plugin's context
 * is an object whose prototype is its parent's.
 */
function cordis3LikeHost(services: Record<string, unknown> = {}): { root: Record<string, unknown>; plugin: Record<string, unknown> } {
  const target: Record<string, unknown> = { scope: {}, on: () => () => {}, emit: () => {} }
  const root = new Proxy(target, {
    get: (held, key, receiver) => (typeof key !== 'string' || Reflect.has(held, key) ? Reflect.get(held, key, receiver) : services[key]),
    has: (held, key) => Reflect.has(held, key) || (typeof key === 'string' && key in services),
  })
  target.root = root
  const plugin = Object.create(Object.create(root) as object) as Record<string, unknown>
  return { root, plugin }
}

const mismatchText = '@dsh/tools-registry needs cordis 4 (>=4.0.0-rc.10 <5); the host has cordis 4.0.0-rc.10. Install cordis@4.0.0-rc.10.'

describe('a service on a host that is not cordis 4', () => {
  it('regression: after ToolRegistry failed to start, ctx.tools throws HOST_MISMATCH (cordis 3 left it undefined)', () => {
    const { root, plugin } = cordis3LikeHost()
    expect(root.tools).toBeUndefined()
    const failed = thrownBy(() => new ToolRegistry(plugin as unknown as Context))
    expect(CordisHostError.isInstance(failed)).toBe(true)
    for (const ctx of [root, plugin, Object.create(root) as Record<string, unknown>]) {
      const error = thrownBy(() => ctx.tools)
      expect(CordisHostError.isInstance(error)).toBe(true)
      expect((error as CordisHostError).code).toBe('HOST_MISMATCH')
      expect((error as CordisHostError).packageName).toBe('@dsh/tools-registry')
      expect((error as Error).message).toBe(mismatchText)
      expect((error as Error).message).toBe((failed as Error).message)
    }
    // Each read throws a fresh error (its stack points at the read); the property stays out of enumerations.
    expect(thrownBy(() => root.tools)).not.toBe(thrownBy(() => root.tools))
    expect(Object.keys(root)).not.toContain('tools')
    expect('tools' in root).toBe(true)
  })

  it('a second failed start keeps the first guard, and other names stay as they were', () => {
    const { root, plugin } = cordis3LikeHost()
    thrownBy(() => checkCordisHost(plugin, '@dsh/example', { service: 'example' }))
    thrownBy(() => checkCordisHost(plugin, '@dsh/other', { service: 'example' }))
    expect((thrownBy(() => root.example) as CordisHostError).packageName).toBe('@dsh/example')
    expect(root.tools).toBeUndefined()
    expect(root.other).toBeUndefined()
  })

  it('leaves alone a service of that name the host already has', () => {
    const theirs = { mine: false }
    const { root, plugin } = cordis3LikeHost({ tools: theirs })
    expect(CordisHostError.isInstance(thrownBy(() => new ToolRegistry(plugin as unknown as Context)))).toBe(true)
    expect(root.tools).toBe(theirs)
  })

  it('without a service name, or on a context that takes no property, it only throws', () => {
    const { root, plugin } = cordis3LikeHost()
    expect(CordisHostError.isInstance(thrownBy(() => checkCordisHost(plugin, '@dsh/example')))).toBe(true)
    expect(root.tools).toBeUndefined()
    const frozen = Object.freeze({ scope: {} })
    const error = thrownBy(() => checkCordisHost(frozen, '@dsh/example', { service: 'tools' }))
    expect(CordisHostError.isInstance(error)).toBe(true)
    expect('tools' in frozen).toBe(false)
    for (const ctx of [undefined, null, 'ctx']) {
      expect(CordisHostError.isInstance(thrownBy(() => checkCordisHost(ctx, '@dsh/example', { service: 'tools' })))).toBe(true)
    }
  })

  it('changes nothing on cordis 4: the registry loads and ctx.tools is the service', async () => {
    const ctx = new Context()
    expect(() => checkCordisHost(ctx, '@dsh/example', { service: 'tools' })).not.toThrow()
    expect(Object.getOwnPropertyDescriptor(ctx, 'tools')).toBeUndefined()
    await ctx.plugin(ToolRegistry)
    expect(ctx.tools).toBeInstanceOf(ToolRegistry)
  })
})

describe('withCordisHostCheck', () => {
  const schema = Object.freeze({
    '~standard': Object.freeze({ version: 1 as const, vendor: 'test', validate: (value: unknown) => ({ value: { got: value } }) }),
  })

  it('keeps the Standard Schema cordis 4 reads, and is frozen', () => {
    const guarded = withCordisHostCheck(schema, '@dsh/example')
    expect(guarded['~standard']).toBe(schema['~standard'])
    expect(guarded['~standard'].validate(1)).toEqual({ value: { got: 1 } })
    expect(Object.isFrozen(guarded)).toBe(true)
  })

  it('regression: cordis 3 calls Config(config) and gets HOST_MISMATCH, not "schema is not a function"', () => {
    const guarded = withCordisHostCheck(schema, '@dsh/example') as unknown as (config: unknown) => unknown
    expect(typeof guarded).toBe('function')
    const error = thrownBy(() => guarded({}))
    expect(CordisHostError.isInstance(error)).toBe(true)
    expect((error as Error).message).toMatch(/^@dsh\/example needs cordis 4 \(>=4\.0\.0-rc\.10 <5\); the host has cordis /)
  })

  it('cordis 4 validates a plugin config through it', async () => {
    const ctx = new Context()
    const seen: unknown[] = []
    const plugin = { name: 'guarded', Config: withCordisHostCheck(schema, '@dsh/example'), apply: (_ctx: Context, config: unknown) => void seen.push(config) }
    await ctx.plugin(plugin, 7 as never)
    expect(seen).toEqual([{ got: 7 }])
  })
})

describe('warnIfToolRegistryMissing', () => {
  it('warns on the console and the logger, naming ToolRegistry, when no registry is loaded', async () => {
    const ctx = new Context()
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      let result: boolean | undefined
      await ctx.plugin({ name: 'needs-tools', apply: (pluginCtx: Context) => void (result = warnIfToolRegistryMissing(pluginCtx, 'The example tools')) })
      expect(result).toBe(true)
      expect(warned).toHaveBeenCalledTimes(1)
      expect(warned.mock.calls[0]?.[0]).toBe(`Warning: ${toolRegistryMissingText('The example tools')}`)
      expect(toolRegistryMissingText('The example tools')).toBe(
        'The example tools wait for ctx.tools, which no plugin provides: load ToolRegistry from @dsh/tools-registry ' +
          "(import { ToolRegistry } from '@dsh/tools-registry'; await ctx.plugin(ToolRegistry)). Until then nothing is " +
          'registered, and ctx.tools is undefined outside plugins that inject it.',
      )
    } finally {
      warned.mockRestore()
    }
  })

  it('says nothing when the registry is loaded', async () => {
    const ctx = new Context()
    await ctx.plugin(ToolRegistry)
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      let result: boolean | undefined
      await ctx.plugin({ name: 'needs-tools', apply: (pluginCtx: Context) => void (result = warnIfToolRegistryMissing(pluginCtx, 'The example tools')) })
      expect(result).toBe(false)
      expect(warned).not.toHaveBeenCalled()
    } finally {
      warned.mockRestore()
    }
  })
})

import { Context } from 'cordis'
import { CordisHostError, ToolRegistry } from '@dsh/tools-registry'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Config, TIMEOUT_POLICY_DEFAULTS, resolveTimeoutBudget, resolveTimeoutPolicyConfig } from './config.js'
import { TimeoutPolicyConfigError } from './timeout-policy-config-error.js'
import { TimeoutPolicy } from './timeout-policy.js'

function issuesOf(input: unknown): readonly string[] {
  try {
    resolveTimeoutPolicyConfig(input)
  } catch (error) {
    if (TimeoutPolicyConfigError.isInstance(error)) return error.issues
    throw error
  }
  return []
}

describe('resolveTimeoutPolicyConfig', () => {
  it('defaults: no default budget, no maximum, a 5 s grace', () => {
    const expected = { defaultTimeoutMs: undefined, maxTimeoutMs: undefined, graceMs: 5000 }
    expect(resolveTimeoutPolicyConfig(undefined)).toEqual(expected)
    expect(resolveTimeoutPolicyConfig(null)).toEqual(expected)
    expect(resolveTimeoutPolicyConfig({})).toEqual(expected)
    expect(TIMEOUT_POLICY_DEFAULTS).toEqual({ graceMs: 5000 })
  })

  it('keeps valid values, including the bounds, and freezes the result', () => {
    const resolved = resolveTimeoutPolicyConfig({ defaultTimeoutMs: 1, maxTimeoutMs: 2_147_483_647, graceMs: 0 })
    expect(resolved).toEqual({ defaultTimeoutMs: 1, maxTimeoutMs: 2_147_483_647, graceMs: 0 })
    expect(Object.isFrozen(resolved)).toBe(true)
    expect(resolveTimeoutPolicyConfig({ defaultTimeoutMs: undefined, graceMs: 2_147_483_647 }).graceMs).toBe(2_147_483_647)
  })

  it('accepts its own output (re-resolving is the identity)', () => {
    const resolved = resolveTimeoutPolicyConfig({ defaultTimeoutMs: 30_000, maxTimeoutMs: 60_000, graceMs: 100 })
    expect(resolveTimeoutPolicyConfig(resolved)).toEqual(resolved)
  })

  it.each([
    ['defaultTimeoutMs', 0, 'defaultTimeoutMs: must be an integer from 1 to 2147483647, got 0'],
    ['defaultTimeoutMs', -1, 'defaultTimeoutMs: must be an integer from 1 to 2147483647, got -1'],
    ['defaultTimeoutMs', 1.5, 'defaultTimeoutMs: must be an integer from 1 to 2147483647, got 1.5'],
    ['defaultTimeoutMs', 2_147_483_648, 'defaultTimeoutMs: must be an integer from 1 to 2147483647, got 2147483648'],
    ['maxTimeoutMs', Number.POSITIVE_INFINITY, 'maxTimeoutMs: must be an integer from 1 to 2147483647, got Infinity'],
    ['maxTimeoutMs', Number.NaN, 'maxTimeoutMs: must be an integer from 1 to 2147483647, got NaN'],
    ['maxTimeoutMs', '1000', 'maxTimeoutMs: must be an integer from 1 to 2147483647, got "1000"'],
    ['graceMs', -1, 'graceMs: must be an integer from 0 to 2147483647, got -1'],
    ['graceMs', null, 'graceMs: must be an integer from 0 to 2147483647, got null'],
    ['graceMs', 10n, 'graceMs: must be an integer from 0 to 2147483647, got 10'],
    ['graceMs', [5], 'graceMs: must be an integer from 0 to 2147483647, got an array'],
  ])('rejects %s = %s', (key, value, issue) => {
    expect(issuesOf({ [key]: value })).toEqual([issue])
  })

  it('rejects unknown keys (a typo must not silently disable a limit)', () => {
    expect(issuesOf({ timeoutMs: 1000 })).toEqual(['timeoutMs: unknown key (known keys: defaultTimeoutMs, maxTimeoutMs, graceMs)'])
    expect(issuesOf({ [Symbol('x')]: 1 })).toEqual(['Symbol(x): unknown key (known keys: defaultTimeoutMs, maxTimeoutMs, graceMs)'])
  })

  it('rejects a default above the maximum', () => {
    expect(issuesOf({ defaultTimeoutMs: 2000, maxTimeoutMs: 1000 })).toEqual(['defaultTimeoutMs: must be at most maxTimeoutMs (1000), got 2000'])
  })

  it('lists every problem at once, in one INVALID_CONFIG error', () => {
    let thrown: unknown
    try {
      resolveTimeoutPolicyConfig({ defaultTimeoutMs: 0, graceMs: -5, grace: 1 })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(TimeoutPolicyConfigError)
    expect(thrown).toMatchObject({ code: 'INVALID_CONFIG', name: 'TimeoutPolicyConfigError' })
    const error = thrown as TimeoutPolicyConfigError
    expect(error.issues).toEqual([
      'grace: unknown key (known keys: defaultTimeoutMs, maxTimeoutMs, graceMs)',
      'defaultTimeoutMs: must be an integer from 1 to 2147483647, got 0',
      'graceMs: must be an integer from 0 to 2147483647, got -5',
    ])
    expect(error.message).toBe(`invalid timeout policy config:\n${error.issues.map((issue) => `  - ${issue}`).join('\n')}`)
    expect(Object.isFrozen(error.issues)).toBe(true)
  })

  it.each([
    ['a number', 5, 'config: must be a plain object, got 5'],
    ['an array', [], 'config: must be a plain object, got an array'],
    ['a class instance', new Map(), 'config: must be a plain object, got an object'],
    ['a string', 'fast', 'config: must be a plain object, got "fast"'],
  ])('rejects %s as the configuration', (_label, input, issue) => {
    expect(issuesOf(input)).toEqual([issue])
  })

  it('a getter that throws is an issue, not a crash', () => {
    const input = Object.defineProperty({}, 'graceMs', {
      enumerable: true,
      get() {
        throw new Error('no')
      },
    })
    expect(issuesOf(input)).toEqual(['graceMs: reading it threw (no)'])
  })

  it('accepts a null-prototype object', () => {
    const input = Object.assign(Object.create(null) as Record<string, unknown>, { graceMs: 7 })
    expect(resolveTimeoutPolicyConfig(input).graceMs).toBe(7)
  })
})

describe('Config, the schema cordis validates with', () => {
  it('regression: called as cordis 3 calls it, it fails with HOST_MISMATCH naming the package, not "schema is not a function"', () => {
    let thrown: unknown
    try {
      ;(Config as unknown as (config: unknown) => unknown)({})
    } catch (error) {
      thrown = error
    }
    expect(CordisHostError.isInstance(thrown)).toBe(true)
    expect((thrown as Error).message).toMatch(/^@dsh\/timeout-policy needs cordis 4 \(>=4\.0\.0-rc\.10 <5\); the host has cordis \S+\. Install cordis@4\.0\.0-rc\.10\.$/)
  })

  it('refuses to start on a context that is not cordis 4', () => {
    expect(() => TimeoutPolicy.apply({ scope: {} } as unknown as Context)).toThrow(/^@dsh\/timeout-policy needs cordis 4 /)
  })

  it('is a Standard Schema (version 1) whose validate returns the resolved configuration', () => {
    expect(Config['~standard'].version).toBe(1)
    expect(Config['~standard'].vendor).toBe('dsh')
    expect(Config['~standard'].validate({ graceMs: 3 })).toEqual({ value: { defaultTimeoutMs: undefined, maxTimeoutMs: undefined, graceMs: 3 } })
    expect(() => Config['~standard'].validate({ graceMs: -3 })).toThrow(TimeoutPolicyConfigError)
  })

  it('a bad configuration fails the load with the typed error, and nothing is registered', async () => {
    const ctx = new Context()
    await ctx.plugin(ToolRegistry)
    ctx.logger.exporter({ export: () => undefined })
    const before = ctx.events._hooks['tools/execute']?.length ?? 0
    let thrown: unknown
    try {
      await ctx.plugin(TimeoutPolicy, { maxTimeoutMs: 0 })
    } catch (error) {
      thrown = error
    }
    expect(TimeoutPolicyConfigError.isInstance(thrown)).toBe(true)
    expect((thrown as TimeoutPolicyConfigError).issues).toEqual(['maxTimeoutMs: must be an integer from 1 to 2147483647, got 0'])
    expect(ctx.events._hooks['tools/execute']?.length ?? 0).toBe(before)
  })

  it('apply validates too, when it is called without cordis having run the schema', async () => {
    const ctx = new Context()
    await ctx.plugin(ToolRegistry)
    ctx.logger.exporter({ export: () => undefined })
    let thrown: unknown
    try {
      await ctx.plugin({ name: 'wrapper', inject: ['tools'], apply: (inner: Context) => TimeoutPolicy.apply(inner, { graceMs: -1 }) })
    } catch (error) {
      thrown = error
    }
    expect(TimeoutPolicyConfigError.isInstance(thrown)).toBe(true)
  })
})

describe('resolveTimeoutBudget', () => {
  const config = (defaultTimeoutMs?: number, maxTimeoutMs?: number) =>
    resolveTimeoutPolicyConfig({ defaultTimeoutMs, maxTimeoutMs, graceMs: 0 })

  it.each([
    [undefined, undefined, undefined, undefined],
    [500, undefined, undefined, 500],
    [undefined, 300, undefined, 300],
    [500, 300, undefined, 500],
    [500, undefined, 200, 200],
    [100, undefined, 200, 100],
    [undefined, undefined, 200, undefined],
    [undefined, 150, 200, 150],
  ])('declared %s, default %s, max %s → %s', (declared, defaultTimeoutMs, maxTimeoutMs, budget) => {
    expect(resolveTimeoutBudget(declared, config(defaultTimeoutMs, maxTimeoutMs))).toBe(budget)
  })

  it('is the declared budget, else the default, never above the maximum', () => {
    const ms = fc.integer({ min: 1, max: 2_147_483_647 })
    fc.assert(
      fc.property(fc.option(ms, { nil: undefined }), fc.option(ms, { nil: undefined }), fc.option(ms, { nil: undefined }), (declared, fallback, max) => {
        const defaultTimeoutMs = fallback !== undefined && max !== undefined ? Math.min(fallback, max) : fallback
        const budget = resolveTimeoutBudget(declared, config(defaultTimeoutMs, max))
        const wanted = declared ?? defaultTimeoutMs
        if (wanted === undefined) return budget === undefined
        return budget === (max === undefined ? wanted : Math.min(wanted, max)) && budget >= 1
      }),
    )
  })
})

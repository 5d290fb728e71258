import { withCordisHostCheck } from '@dsh/tools-registry'
import { TimeoutPolicyConfigError } from './timeout-policy-config-error.js'

/**
 * The configuration of the timeout policy plugin. Every key is optional; with none, the policy enforces exactly the
 * budgets tools declare (`timeoutMs`) with a {@link TIMEOUT_POLICY_DEFAULTS | 5 s} grace. Validated when the plugin
 * loads (and when its configuration is updated): a bad value fails the load with a
 * {@link TimeoutPolicyConfigError} (code `INVALID_CONFIG`) listing every problem.
 */
export interface Config {
  /**
   * The budget of tools that declare no `timeoutMs`, in milliseconds: an integer from 1 to 2147483647, at most
   * `maxTimeoutMs`. Default: none (such tools run without a deadline).
   */
  defaultTimeoutMs?: number | undefined
  /**
   * The largest budget any call gets, in milliseconds: an integer from 1 to 2147483647. A tool that declares more is
   * held to this. It only clamps: a tool that declares nothing gets `defaultTimeoutMs`, or no deadline. Default: none.
   */
  maxTimeoutMs?: number | undefined
  /**
   * How long to wait, after the deadline fired, for a call whose tool has not settled before abandoning it
   * (`TOOL_TIMEOUT_ABANDONED`), in milliseconds: an integer from 0 to 2147483647. Default: 5000.
   */
  graceMs?: number | undefined
}

/** The configuration after validation: every key present. */
export interface ResolvedTimeoutPolicyConfig {
  /** The budget of tools that declare none, or `undefined` for no deadline. */
  readonly defaultTimeoutMs: number | undefined
  /** The largest budget, or `undefined` for no limit. */
  readonly maxTimeoutMs: number | undefined
  /** The grace after the deadline before a call is abandoned. */
  readonly graceMs: number
}

/**
 * The schema cordis validates the plugin's configuration with (a Standard Schema, which is what cordis
 * 4.0.0-rc.10 reads from a plugin's `Config`). Its `validate` returns the resolved configuration, and throws a
 * {@link TimeoutPolicyConfigError} for an invalid one instead of returning issues: cordis would wrap returned issues
 * in its own untyped `ValidationError`, while it passes a thrown error through unchanged, so `await ctx.plugin(…)`
 * rejects with the typed error and `fiber.update(…)` throws it and keeps the running configuration.
 */
export interface TimeoutPolicyConfigSchema {
  /** The Standard Schema interface (version 1). */
  readonly '~standard': {
    /** Standard Schema version. */
    readonly version: 1
    /** Who made the schema. */
    readonly vendor: string
    /** Resolves a configuration; throws {@link TimeoutPolicyConfigError} when it is invalid. */
    readonly validate: (value: unknown) => { readonly value: ResolvedTimeoutPolicyConfig }
    /** The input and output types (types only). */
    readonly types?: { readonly input: Config | undefined; readonly output: ResolvedTimeoutPolicyConfig } | undefined
  }
}

/** The default values of the {@link Config} keys that have one. */
export const TIMEOUT_POLICY_DEFAULTS: { readonly graceMs: number } = Object.freeze({ graceMs: 5_000 })

/** The largest delay a timer honours, and the largest budget a tool may declare. */
const MAX_DELAY_MS = 2_147_483_647

const KNOWN_KEYS: readonly string[] = ['defaultTimeoutMs', 'maxTimeoutMs', 'graceMs']

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' || value === null) return String(value)
  if (value === undefined) return 'undefined'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype: unknown = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

/**
 * Validates a {@link Config} and fills in the defaults. `undefined` and `null` mean `{}`. Throws a
 * {@link TimeoutPolicyConfigError} listing every problem: a configuration that is not a plain object, unknown keys,
 * values that are not integers in range, a `defaultTimeoutMs` above `maxTimeoutMs`.
 */
export function resolveTimeoutPolicyConfig(input: unknown): ResolvedTimeoutPolicyConfig {
  if (input === undefined || input === null) input = {}
  if (!isPlainObject(input)) throw new TimeoutPolicyConfigError([`config: must be a plain object, got ${describe(input)}`])
  const config = input
  const issues: string[] = []
  for (const key of Reflect.ownKeys(config)) {
    if (typeof key !== 'string' || !KNOWN_KEYS.includes(key)) {
      issues.push(`${String(key)}: unknown key (known keys: ${KNOWN_KEYS.join(', ')})`)
    }
  }
  const integer = (key: string, min: number): number | undefined => {
    let value: unknown
    try {
      value = config[key]
    } catch (error) {
      issues.push(`${key}: reading it threw (${error instanceof Error ? error.message : describe(error)})`)
      return undefined
    }
    if (value === undefined) return undefined
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > MAX_DELAY_MS) {
      issues.push(`${key}: must be an integer from ${min} to ${MAX_DELAY_MS}, got ${describe(value)}`)
      return undefined
    }
    return value
  }
  const defaultTimeoutMs = integer('defaultTimeoutMs', 1)
  const maxTimeoutMs = integer('maxTimeoutMs', 1)
  const graceMs = integer('graceMs', 0) ?? TIMEOUT_POLICY_DEFAULTS.graceMs
  if (defaultTimeoutMs !== undefined && maxTimeoutMs !== undefined && defaultTimeoutMs > maxTimeoutMs) {
    issues.push(`defaultTimeoutMs: must be at most maxTimeoutMs (${maxTimeoutMs}), got ${defaultTimeoutMs}`)
  }
  if (issues.length > 0) throw new TimeoutPolicyConfigError(issues)
  return Object.freeze({ defaultTimeoutMs, maxTimeoutMs, graceMs })
}

/**
 * The plugin's configuration schema: cordis runs it before the plugin starts (see {@link TimeoutPolicyConfigSchema}).
 * `Config['~standard'].validate(value).value` is {@link resolveTimeoutPolicyConfig}`(value)`.
 */
export const Config: TimeoutPolicyConfigSchema = withCordisHostCheck(
  {
    '~standard': Object.freeze({
      version: 1 as const,
      vendor: 'dsh',
      validate: (value: unknown) => ({ value: resolveTimeoutPolicyConfig(value) }),
    }),
  },
  '@dsh/timeout-policy',
)

/**
 * The budget a call gets: what its tool declares, else the default, held to the maximum; `undefined` for no
 * deadline.
 */
export function resolveTimeoutBudget(declaredTimeoutMs: number | undefined, config: ResolvedTimeoutPolicyConfig): number | undefined {
  const budget = declaredTimeoutMs ?? config.defaultTimeoutMs
  if (budget === undefined || config.maxTimeoutMs === undefined) return budget
  return Math.min(budget, config.maxTimeoutMs)
}

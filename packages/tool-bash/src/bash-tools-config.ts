import { withCordisHostCheck } from '@dsh/tools-registry'
import { BashToolsConfigError } from './bash-tools-config-error.js'
import { describeConfigValue, isPlainObject, ownValue } from './config-values.js'

/**
 * The configuration of the bash tools plugin ({@link BashTools}). Every key is optional; the defaults are in
 * {@link BASH_TOOLS_DEFAULTS}. Validated when the plugin loads: a bad value fails the load with a
 * {@link BashToolsConfigError} (code `INVALID_CONFIG`) listing every problem. The executor has its own
 * configuration ({@link LocalBashConfig}).
 */
export interface BashToolsConfig {
  /**
   * Background tasks one agent may have running at once; starting one more is a `BASH_TASK_LIMIT` error. An integer
   * from 1 to 1024. Default: 8.
   */
  maxBackgroundTasks?: number | undefined
  /**
   * Finished background tasks kept per agent until their final output is read (with `bash_output` or `bash_kill`);
   * past it the oldest finished task is forgotten. An integer from 1 to 1024. Default: 16.
   */
  maxFinishedTasks?: number | undefined
  /**
   * How long a finished background task stays readable, in ms, counted from when it ended: its output is dropped
   * when no `bash_output` (or `bash_kill`) read it by then, and a later read answers `BASH_UNKNOWN_TASK` saying it
   * expired. An integer from 1 to 2147483647. Default: 1800000 (30 minutes). An agent object that is gone takes its
   * finished tasks with it earlier (they are held by the agent weakly).
   */
  finishedTaskRetentionMs?: number | undefined
  /**
   * Tell the agent that started a background task when it finishes on its own (`agent.inject`, when the agent has
   * one). Default: true.
   */
  notifyOnCompletion?: boolean | undefined
}

/** The configuration after validation: every key present. */
export interface ResolvedBashToolsConfig {
  /** Background tasks one agent may have running at once. */
  readonly maxBackgroundTasks: number
  /** Finished, unread background tasks kept per agent. */
  readonly maxFinishedTasks: number
  /** How long a finished, unread background task stays readable, in ms. */
  readonly finishedTaskRetentionMs: number
  /** Whether completion notices are injected. */
  readonly notifyOnCompletion: boolean
}

/** The defaults of every {@link BashToolsConfig} key. */
export const BASH_TOOLS_DEFAULTS: ResolvedBashToolsConfig = Object.freeze({
  maxBackgroundTasks: 8,
  maxFinishedTasks: 16,
  finishedTaskRetentionMs: 1_800_000,
  notifyOnCompletion: true,
})

const MAX_TASKS = 1024
/** The largest delay `setTimeout` honours. */
const MAX_TIMER_MS = 2_147_483_647
const KNOWN_KEYS: readonly string[] = Object.keys(BASH_TOOLS_DEFAULTS)

/**
 * Validates a {@link BashToolsConfig} and fills in the defaults. `undefined` and `null` mean `{}`. Throws a
 * {@link BashToolsConfigError} listing every problem: a configuration that is not a plain object, unknown keys,
 * values of the wrong type or out of range.
 */
export function resolveBashToolsConfig(input: unknown): ResolvedBashToolsConfig {
  return resolveWithIssues(input, '', (issues) => new BashToolsConfigError(issues))
}

/** {@link resolveBashToolsConfig} with every issue prefixed (`tools.`), for the combined plugin. */
export function resolveWithIssues(
  input: unknown,
  prefix: string,
  fail: (issues: string[]) => Error,
): ResolvedBashToolsConfig {
  if (input === undefined || input === null) input = {}
  if (!isPlainObject(input)) {
    const label = prefix === '' ? 'config' : prefix.slice(0, -1)
    throw fail([`${label}: must be a plain object, got ${describeConfigValue(input)}`])
  }
  const config = input
  const issues: string[] = []
  for (const key of Reflect.ownKeys(config)) {
    if (typeof key !== 'string' || !KNOWN_KEYS.includes(key)) {
      issues.push(`${prefix}${String(key)}: unknown key (known keys: ${KNOWN_KEYS.join(', ')})`)
    }
  }
  const integer = (key: 'maxBackgroundTasks' | 'maxFinishedTasks', min: number): number => {
    const value = ownValue(config, key)
    if (value === undefined) return BASH_TOOLS_DEFAULTS[key]
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > MAX_TASKS) {
      issues.push(`${prefix}${key}: must be an integer from ${min} to ${MAX_TASKS}, got ${describeConfigValue(value)}`)
      return BASH_TOOLS_DEFAULTS[key]
    }
    return value
  }
  const maxBackgroundTasks = integer('maxBackgroundTasks', 1)
  const maxFinishedTasks = integer('maxFinishedTasks', 1)
  let finishedTaskRetentionMs = BASH_TOOLS_DEFAULTS.finishedTaskRetentionMs
  const retention = ownValue(config, 'finishedTaskRetentionMs')
  if (retention !== undefined) {
    if (typeof retention === 'number' && Number.isInteger(retention) && retention >= 1 && retention <= MAX_TIMER_MS) {
      finishedTaskRetentionMs = retention
    } else {
      issues.push(
        `${prefix}finishedTaskRetentionMs: must be an integer from 1 to ${MAX_TIMER_MS}, got ${describeConfigValue(retention)}`,
      )
    }
  }
  let notifyOnCompletion = BASH_TOOLS_DEFAULTS.notifyOnCompletion
  const notify = ownValue(config, 'notifyOnCompletion')
  if (notify !== undefined) {
    if (typeof notify === 'boolean') notifyOnCompletion = notify
    else issues.push(`${prefix}notifyOnCompletion: must be a boolean, got ${describeConfigValue(notify)}`)
  }
  if (issues.length > 0) throw fail(issues)
  return Object.freeze({ maxBackgroundTasks, maxFinishedTasks, finishedTaskRetentionMs, notifyOnCompletion })
}

/**
 * A configuration schema in the form cordis 4.0.0-rc.10 reads from a plugin's `Config` (a Standard Schema). Its
 * `validate` returns the resolved configuration and throws the typed error for an invalid one instead of returning
 * issues: cordis would wrap returned issues in its own untyped `ValidationError`, while it passes a thrown error
 * through unchanged, so `await ctx.plugin(…)` rejects with the typed error.
 */
export interface BashConfigSchema<Input, Output> {
  /** The Standard Schema interface (version 1). */
  readonly '~standard': {
    /** Standard Schema version. */
    readonly version: 1
    /** Who made the schema. */
    readonly vendor: string
    /** Resolves a configuration; throws the plugin's config error when it is invalid. */
    readonly validate: (value: unknown) => { readonly value: Output }
    /** The input and output types (types only). */
    readonly types?: { readonly input: Input | undefined; readonly output: Output } | undefined
  }
}

/** Builds a {@link BashConfigSchema} around a resolver. */
export function configSchema<Input, Output>(resolve: (value: unknown) => Output): BashConfigSchema<Input, Output> {
  return withCordisHostCheck(
    {
      '~standard': Object.freeze({
        version: 1 as const,
        vendor: 'dsh',
        validate: (value: unknown) => ({ value: resolve(value) }),
      }),
    },
    '@dsh/tool-bash',
  )
}

import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import type { CodeLimits, CodeRuntime } from './code-runtime.js'

/** The limits of a run unless the configuration says otherwise. */
export const CODE_LIMIT_DEFAULTS: CodeLimits = Object.freeze({
  memoryBytes: 64 * 1_048_576,
  cpuMs: 10_000,
  wallMs: 600_000,
  stackBytes: 256 * 1_024,
  maxArgBytes: 1_048_576,
  maxLogBytes: 65_536,
  maxValueBytes: 1_048_576,
})

/** The rest of the configuration's defaults. */
export const CODE_MODE_DEFAULTS = Object.freeze({
  maxSubCalls: 200,
  maxParallelSubCalls: 4,
  maxOutputBytes: 16_000,
  compactAfter: 40,
  autoBackgroundAfterMs: 10_000,
})

/** The configuration of {@link CodeMode} (`ctx.plugin(CodeMode, config)`). */
export interface CodeModeConfig {
  /** What runs programs. Default: a `QuickJsRuntime` the plugin makes and closes. */
  readonly runtime?: CodeRuntime | undefined
  /** Limits of each run (memory, CPU, wall time, stack, argument, log and value sizes); the rest keep their defaults. */
  readonly limits?: Partial<CodeLimits> | undefined
  /** Tool calls one program may make (200). */
  readonly maxSubCalls?: number | undefined
  /** Parallel-safe tool calls of one program in flight at once (4). */
  readonly maxParallelSubCalls?: number | undefined
  /** What the model reads of the returned value and the logs, in bytes each (16,000); head and tail are kept. */
  readonly maxOutputBytes?: number | undefined
  /** Past this many tools, the SDK lists names only and programs use `tools.$search` / `tools.$describe` (40). */
  readonly compactAfter?: number | undefined
  /** With `@dsh/tool-tasks` loaded, a run still going after this many ms becomes a task (10,000). */
  readonly autoBackgroundAfterMs?: number | undefined
}

/** The configuration with every default filled in. */
export interface ResolvedCodeModeConfig {
  readonly runtime: CodeRuntime | undefined
  readonly limits: CodeLimits
  readonly maxSubCalls: number
  readonly maxParallelSubCalls: number
  readonly maxOutputBytes: number
  readonly compactAfter: number
  readonly autoBackgroundAfterMs: number
}

const configErrorBrand: symbol = errorBrand('CodeModeConfigError')

/** A configuration of {@link CodeMode} that cannot work: every problem, each starting with its key. `INVALID_CONFIG`. */
export class CodeModeConfigError extends DshError {
  static override readonly brand: symbol = configErrorBrand

  /** True when `value` is a {@link CodeModeConfigError} from any installed copy of this package. */
  static override isInstance(value: unknown): value is CodeModeConfigError {
    return DshError.hasBrand(value, configErrorBrand)
  }

  override readonly name: string = 'CodeModeConfigError'
  /** Each problem, starting with its key (`limits.cpuMs: …`). */
  readonly problems: readonly string[]

  constructor(problems: readonly string[], options?: DshErrorOptions) {
    super('INVALID_CONFIG', `Invalid Code Mode configuration: ${problems.join('; ')}`, options)
    this.problems = Object.freeze([...problems])
  }
}

const topKeys = new Set(['runtime', 'limits', ...Object.keys(CODE_MODE_DEFAULTS)])
const MAX = 2_147_483_647

/** Checks `config` (own properties only) and fills in the defaults. Throws {@link CodeModeConfigError} listing every problem. */
export function resolveCodeModeConfig(config: CodeModeConfig = {}): ResolvedCodeModeConfig {
  const problems: string[] = []
  if (typeof config !== 'object' || config === null) throw new CodeModeConfigError([`the configuration must be an object, got ${typeof config}`])
  for (const key of Object.keys(config)) if (!topKeys.has(key)) problems.push(`${key}: unknown option (known: ${[...topKeys].join(', ')})`)
  const own = <T>(object: object, key: string): T | undefined => (Object.hasOwn(object, key) ? ((object as Record<string, unknown>)[key] as T) : undefined)
  const integer = (key: string, value: unknown, fallback: number, min: number): number => {
    if (value === undefined) return fallback
    if (!Number.isInteger(value) || (value as number) < min || (value as number) > MAX) {
      problems.push(`${key}: must be an integer from ${min} to ${MAX}, got ${JSON.stringify(value) ?? typeof value}`)
      return fallback
    }
    return value as number
  }
  const runtime = own<CodeRuntime>(config, 'runtime')
  if (runtime !== undefined && (typeof runtime !== 'object' || runtime === null || typeof runtime.run !== 'function' || typeof runtime.close !== 'function')) {
    problems.push('runtime: must be a CodeRuntime (an object with run() and close())')
  }
  const limitsIn = own<Partial<CodeLimits>>(config, 'limits') ?? {}
  if (typeof limitsIn !== 'object' || limitsIn === null) problems.push('limits: must be an object')
  const limits: Record<string, number> = {}
  for (const [key, fallback] of Object.entries(CODE_LIMIT_DEFAULTS)) limits[key] = integer(`limits.${key}`, own(limitsIn ?? {}, key), fallback, 1)
  for (const key of Object.keys(limitsIn ?? {})) if (!Object.hasOwn(CODE_LIMIT_DEFAULTS, key)) problems.push(`limits.${key}: unknown limit (known: ${Object.keys(CODE_LIMIT_DEFAULTS).join(', ')})`)
  const resolved: ResolvedCodeModeConfig = {
    runtime,
    limits: Object.freeze(limits as unknown as CodeLimits),
    maxSubCalls: integer('maxSubCalls', own(config, 'maxSubCalls'), CODE_MODE_DEFAULTS.maxSubCalls, 0),
    maxParallelSubCalls: integer('maxParallelSubCalls', own(config, 'maxParallelSubCalls'), CODE_MODE_DEFAULTS.maxParallelSubCalls, 1),
    maxOutputBytes: integer('maxOutputBytes', own(config, 'maxOutputBytes'), CODE_MODE_DEFAULTS.maxOutputBytes, 200),
    compactAfter: integer('compactAfter', own(config, 'compactAfter'), CODE_MODE_DEFAULTS.compactAfter, 0),
    autoBackgroundAfterMs: integer('autoBackgroundAfterMs', own(config, 'autoBackgroundAfterMs'), CODE_MODE_DEFAULTS.autoBackgroundAfterMs, 1),
  }
  if (problems.length > 0) throw new CodeModeConfigError(problems)
  return Object.freeze(resolved)
}

import { tmpdir } from 'node:os'
import { TaskLayerConfigError } from './task-layer-config-error.js'
import type { TaskStore } from './task-store.js'

/** The task layer's options (`ctx.plugin(TaskService, config)`). Every limit applies per agent unless it says otherwise. */
export interface TaskLayerConfig {
  /** Running tasks one agent may have. Default 8 (tool-bash's). */
  maxRunningPerAgent?: number | undefined
  /** Running tasks of every agent together. Default 64. */
  maxRunningTotal?: number | undefined
  /** Finished tasks whose result one agent has not read yet; past it, the oldest is dropped. Default 16. */
  maxFinishedPerAgent?: number | undefined
  /** How long a finished task stays readable after it ended, in ms. Default 30 minutes. */
  retentionMs?: number | undefined
  /** A task's maximum run time when its tool declares none, in ms. Default 30 minutes. */
  defaultMaxRuntimeMs?: number | undefined
  /** The most any task may run, whatever its tool declares, in ms. Default 2 hours. */
  maxRuntimeCapMs?: number | undefined
  /** How long `task_kill` (and unload) waits for a body to stop after its signal fired, in ms. Default 2,000. */
  killGraceMs?: number | undefined
  /** Output bytes of one task kept in memory (the newest). Default 65,536. */
  outputWindowBytes?: number | undefined
  /** Output bytes of one task kept in a spill file beyond the window; older ones are dropped. 0: none. Default 64 MiB. */
  spillCapBytes?: number | undefined
  /** Output bytes one `task_output` returns at most (read again from its cursor for more). Default 30,000. */
  readLimitBytes?: number | undefined
  /** Where spill files go (a private directory is made inside it). Default: the OS temp directory. */
  tempDir?: string | undefined
  /** Tell the owner (`agent.inject`) when a task ends on its own. Default true. */
  notify?: boolean | undefined
  /** Where tasks outlive a host restart (`JsonlTaskStore`, or your own). Default: none (in memory only). */
  store?: TaskStore | undefined
}

/** {@link TaskLayerConfig} with every default applied. */
export interface ResolvedTaskLayerConfig {
  readonly maxRunningPerAgent: number
  readonly maxRunningTotal: number
  readonly maxFinishedPerAgent: number
  readonly retentionMs: number
  readonly defaultMaxRuntimeMs: number
  readonly maxRuntimeCapMs: number
  readonly killGraceMs: number
  readonly outputWindowBytes: number
  readonly spillCapBytes: number
  readonly readLimitBytes: number
  readonly tempDir: string
  readonly notify: boolean
  readonly store: TaskStore | undefined
}

/** The defaults of {@link TaskLayerConfig}. */
export const TASK_LAYER_DEFAULTS = Object.freeze({
  maxRunningPerAgent: 8,
  maxRunningTotal: 64,
  maxFinishedPerAgent: 16,
  retentionMs: 30 * 60_000,
  defaultMaxRuntimeMs: 30 * 60_000,
  maxRuntimeCapMs: 2 * 60 * 60_000,
  killGraceMs: 2_000,
  outputWindowBytes: 65_536,
  spillCapBytes: 64 * 1_048_576,
  readLimitBytes: 30_000,
  notify: true,
})

const MAX_MS = 2_147_483_647

/** Checks `config` and applies the defaults. Throws {@link TaskLayerConfigError} listing every problem. */
export function resolveTaskLayerConfig(config: TaskLayerConfig = {}): ResolvedTaskLayerConfig {
  const issues: string[] = []
  const integer = (key: keyof typeof TASK_LAYER_DEFAULTS, min: number, max: number): number => {
    const value = config[key as keyof TaskLayerConfig]
    const fallback = TASK_LAYER_DEFAULTS[key] as number
    if (value === undefined) return fallback
    if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
      issues.push(`${key}: must be an integer from ${min} to ${max}, got ${JSON.stringify(value) ?? String(value)}`)
      return fallback
    }
    return value as number
  }
  const resolved = {
    maxRunningPerAgent: integer('maxRunningPerAgent', 1, 10_000),
    maxRunningTotal: integer('maxRunningTotal', 1, 100_000),
    maxFinishedPerAgent: integer('maxFinishedPerAgent', 0, 10_000),
    retentionMs: integer('retentionMs', 0, MAX_MS),
    defaultMaxRuntimeMs: integer('defaultMaxRuntimeMs', 1, MAX_MS),
    maxRuntimeCapMs: integer('maxRuntimeCapMs', 1, MAX_MS),
    killGraceMs: integer('killGraceMs', 0, 600_000),
    outputWindowBytes: integer('outputWindowBytes', 1_024, 1_073_741_824),
    spillCapBytes: integer('spillCapBytes', 0, 68_719_476_736),
    readLimitBytes: integer('readLimitBytes', 256, 10_485_760),
    tempDir: config.tempDir ?? tmpdir(),
    notify: config.notify ?? TASK_LAYER_DEFAULTS.notify,
    store: config.store,
  }
  if (typeof resolved.tempDir !== 'string' || resolved.tempDir === '') issues.push('tempDir: must be a non-empty path')
  if (typeof resolved.notify !== 'boolean') issues.push('notify: must be a boolean')
  const store = config.store as unknown
  if (store !== undefined && (typeof store !== 'object' || store === null || ['load', 'save', 'drop', 'close'].some((key) => typeof (store as Record<string, unknown>)[key] !== 'function'))) {
    issues.push('store: must be a TaskStore (load, save, drop, close)')
  }
  if (resolved.defaultMaxRuntimeMs > resolved.maxRuntimeCapMs) issues.push('defaultMaxRuntimeMs: must not exceed maxRuntimeCapMs')
  if (issues.length > 0) throw new TaskLayerConfigError(issues)
  return Object.freeze(resolved)
}

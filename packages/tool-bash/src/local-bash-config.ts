import { accessSync, constants, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, isAbsolute, join, resolve } from 'node:path'
import { BashConfigError } from './bash-config-error.js'
import { ownValue } from './config-values.js'
import { FIXED_ENV, isShellHookEnvName } from './command-environment.js'

/**
 * The configuration of the local executor plugin ({@link LocalBashExecutor}). Every key is optional; the
 * defaults are in {@link LOCAL_BASH_DEFAULTS}. It is validated when the plugin loads; a bad value makes the load
 * fail with a {@link BashConfigError} (code `INVALID_CONFIG`) listing every problem.
 */
export interface LocalBashConfig {
  /** The directory commands run in when a request names none, and the base of relative request `cwd`s. Must exist. Default: `process.cwd()` at load. */
  cwd?: string | undefined
  /** The bash binary: an absolute path, or a name looked up on `PATH` at load. Default: `bash`. */
  shell?: string | undefined
  /** Timeout of a foreground command whose request names none, in ms: an integer from 1 to `maxTimeoutMs`. Default: 120000 (or `maxTimeoutMs` when smaller). */
  defaultTimeoutMs?: number | undefined
  /** The largest timeout a request may ask for, in ms: an integer from 1 to 2147483647. Default: 600000. */
  maxTimeoutMs?: number | undefined
  /** Timeout of a background command whose request names none, in ms: an integer from 1 to `maxTimeoutMs`. Default: `maxTimeoutMs`. */
  backgroundTimeoutMs?: number | undefined
  /** Time between SIGTERM and SIGKILL when a command is stopped, in ms: an integer from 0 to 60000. Default: 2000. */
  killGraceMs?: number | undefined
  /**
   * How long the output pipes may stay open once the shell has exited and every process of the command is gone,
   * in ms: an integer from 0 to 60000. Default: 500. A pipe still open then is held by a process that left the
   * command (`setsid … &`): it is closed however much that process writes (an absolute bound, not an idle rule),
   * and the result says the output was cut off (`outputCutOff: 'drain'`). Such a writer gets `EPIPE`/`SIGPIPE`.
   */
  drainTimeoutMs?: number | undefined
  /** Bytes kept in memory per stream (stdout, stderr): half for the head, half for the tail. An integer from 8 to 67108864. Default: 32768. */
  outputWindowBytes?: number | undefined
  /** The most bytes all spill files together may hold; past it spilling stops and the output says so. 0 disables spilling. Default: 268435456 (256 MiB). */
  spillCapBytes?: number | undefined
  /** Where the executor's private temp directory is created. Must exist. Default: `os.tmpdir()`. */
  tempDir?: string | undefined
  /**
   * Host variable names or `*` globs (case-sensitive) passed to commands besides the core allow list
   * (`DEFAULT_ALLOWED_ENV`: `PATH`, `HOME`, `USER`, `LOGNAME`, `SHELL`, `LANG`, `LANGUAGE`, `LC_*`, `TZ`, `TMPDIR`).
   * Every other host variable is withheld. A secret-looking name passes only when named exactly, not through a glob.
   * Shell start-up hooks never pass. Default: none.
   */
  allowEnv?: readonly string[] | undefined
  /** Variable names or `*` globs (case-insensitive) never passed from the host, whatever the allow lists say. Default: none. */
  denyEnv?: readonly string[] | undefined
  /** Variables set for every command (explicit values, not taken from the host); may not name shell hooks or `NO_COLOR`/`TERM`/`PAGER`/`GIT_PAGER`. Default: none. */
  env?: Readonly<Record<string, string>> | undefined
}

/** The configuration after validation: every key present, paths absolute. */
export interface ResolvedLocalBashConfig {
  /** The default working directory (absolute, existed at load). */
  readonly cwd: string
  /** The bash binary (absolute). */
  readonly shell: string
  /** Foreground default timeout, in ms. */
  readonly defaultTimeoutMs: number
  /** The largest timeout a request may ask for, in ms. */
  readonly maxTimeoutMs: number
  /** Background default timeout, in ms. */
  readonly backgroundTimeoutMs: number
  /** SIGTERM → SIGKILL delay, in ms. */
  readonly killGraceMs: number
  /** How long output pipes may stay open after the command's processes are gone, in ms. */
  readonly drainTimeoutMs: number
  /** Bytes kept in memory per stream. */
  readonly outputWindowBytes: number
  /** Total bytes all spill files may hold. */
  readonly spillCapBytes: number
  /** Where the private spill directory is made (absolute). */
  readonly tempDir: string
  /** Host variable names or globs passed besides the core allow list. */
  readonly allowEnv: readonly string[]
  /** Variable names or globs never passed from the host. */
  readonly denyEnv: readonly string[]
  /** Variables set for every command. */
  readonly env: Readonly<Record<string, string>>
}

/** The default values of the numeric {@link LocalBashConfig} keys. */
export const LOCAL_BASH_DEFAULTS = Object.freeze({
  defaultTimeoutMs: 120_000,
  maxTimeoutMs: 600_000,
  killGraceMs: 2_000,
  drainTimeoutMs: 500,
  outputWindowBytes: 32_768,
  spillCapBytes: 268_435_456,
})

/** The largest delay `setTimeout` honours. */
const MAX_TIMER_MS = 2_147_483_647
const MAX_GRACE_MS = 60_000
const MAX_DRAIN_MS = 60_000
const MIN_WINDOW_BYTES = 8
const MAX_WINDOW_BYTES = 67_108_864

const knownKeys: ReadonlySet<string> = new Set([
  'cwd',
  'shell',
  'defaultTimeoutMs',
  'maxTimeoutMs',
  'backgroundTimeoutMs',
  'killGraceMs',
  'drainTimeoutMs',
  'outputWindowBytes',
  'spillCapBytes',
  'tempDir',
  'allowEnv',
  'denyEnv',
  'env',
])

const envNamePattern = /^[A-Za-z_][A-Za-z0-9_]*$/

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype: unknown = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

function findOnPath(name: string): string | undefined {
  for (const directory of (process.env['PATH'] ?? '').split(delimiter)) {
    if (directory === '' || !isAbsolute(directory)) continue
    const candidate = join(directory, name)
    if (isExecutableFile(candidate)) return candidate
  }
  return undefined
}

function directoryProblem(path: string): string | undefined {
  try {
    return statSync(path).isDirectory() ? undefined : `${path} is not a directory`
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return code === 'ENOENT' ? `${path} does not exist` : `${path} cannot be read (${code ?? String(error)})`
  }
}

/**
 * Validates a {@link LocalBashConfig} and fills in the defaults. Throws a {@link BashConfigError} listing every
 * problem: unknown keys, values of the wrong type or out of range, a `cwd` or `tempDir` that is not an existing
 * directory, a `shell` that cannot be found or executed, `env` entries that are not plain string variables.
 */
export function resolveLocalBashConfig(input: unknown = {}): ResolvedLocalBashConfig {
  const issues: string[] = []
  if (input === undefined || input === null) input = {}
  if (!isPlainRecord(input)) throw new BashConfigError(['config: must be a plain object'])
  const config = input

  for (const key of Object.keys(config)) {
    if (!knownKeys.has(key)) issues.push(`${key}: unknown key (known keys: ${[...knownKeys].join(', ')})`)
  }

  const integer = (key: string, min: number, max: number, fallback: number): number => {
    const value = ownValue(config, key)
    if (value === undefined) return fallback
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      issues.push(`${key}: must be an integer from ${min} to ${max}, got ${describe(value)}`)
      return fallback
    }
    return value
  }
  const path = (key: string, fallback: string): string => {
    const value = ownValue(config, key)
    if (value === undefined) return fallback
    if (typeof value !== 'string' || value === '' || value.includes('\0')) {
      issues.push(`${key}: must be a non-empty path, got ${describe(value)}`)
      return fallback
    }
    return resolve(value)
  }
  const patterns = (key: string): readonly string[] => {
    const value = ownValue(config, key)
    if (value === undefined) return []
    if (!Array.isArray(value)) {
      issues.push(`${key}: must be an array of variable names or * globs, got ${describe(value)}`)
      return []
    }
    const result: string[] = []
    for (let index = 0; index < value.length; index++) {
      // A hole reads as undefined, never as an inherited index.
      const entry = ownValue(value, index)
      if (typeof entry !== 'string' || entry === '' || entry.includes('=') || entry.includes('\0')) {
        issues.push(`${key}[${index}]: must be a variable name or * glob, got ${describe(entry)}`)
      } else {
        result.push(entry)
      }
    }
    return Object.freeze(result)
  }

  const cwd = path('cwd', process.cwd())
  const cwdProblem = directoryProblem(cwd)
  if (cwdProblem !== undefined) issues.push(`cwd: ${cwdProblem}`)

  const tempDir = path('tempDir', tmpdir())
  const tempProblem = directoryProblem(tempDir)
  if (tempProblem !== undefined) issues.push(`tempDir: ${tempProblem}`)

  let shell = ''
  const shellInput = ownValue(config, 'shell') ?? 'bash'
  if (typeof shellInput !== 'string' || shellInput === '' || shellInput.includes('\0')) {
    issues.push(`shell: must be a path or a command name, got ${describe(shellInput)}`)
  } else if (shellInput.includes('/')) {
    shell = resolve(shellInput)
    if (!isExecutableFile(shell)) issues.push(`shell: ${shell} is not an executable file`)
  } else {
    shell = findOnPath(shellInput) ?? ''
    if (shell === '') issues.push(`shell: ${shellInput} was not found on PATH`)
  }

  const maxTimeoutMs = integer('maxTimeoutMs', 1, MAX_TIMER_MS, LOCAL_BASH_DEFAULTS.maxTimeoutMs)
  const defaultTimeoutMs = integer(
    'defaultTimeoutMs',
    1,
    maxTimeoutMs,
    Math.min(LOCAL_BASH_DEFAULTS.defaultTimeoutMs, maxTimeoutMs),
  )
  const backgroundTimeoutMs = integer('backgroundTimeoutMs', 1, maxTimeoutMs, maxTimeoutMs)
  const killGraceMs = integer('killGraceMs', 0, MAX_GRACE_MS, LOCAL_BASH_DEFAULTS.killGraceMs)
  const drainTimeoutMs = integer('drainTimeoutMs', 0, MAX_DRAIN_MS, LOCAL_BASH_DEFAULTS.drainTimeoutMs)
  const outputWindowBytes = integer(
    'outputWindowBytes',
    MIN_WINDOW_BYTES,
    MAX_WINDOW_BYTES,
    LOCAL_BASH_DEFAULTS.outputWindowBytes,
  )
  const spillCapBytes = integer('spillCapBytes', 0, Number.MAX_SAFE_INTEGER, LOCAL_BASH_DEFAULTS.spillCapBytes)
  const allowEnv = patterns('allowEnv')
  const denyEnv = patterns('denyEnv')

  const env: Record<string, string> = Object.create(null) as Record<string, string>
  const envInput = ownValue(config, 'env')
  if (envInput !== undefined) {
    if (!isPlainRecord(envInput)) {
      issues.push(`env: must be an object of string variables, got ${describe(envInput)}`)
    } else {
      for (const [name, value] of Object.entries(envInput)) {
        if (!envNamePattern.test(name)) {
          issues.push(`env.${name}: not a valid variable name`)
        } else if (isShellHookEnvName(name) || Object.hasOwn(FIXED_ENV, name)) {
          issues.push(`env.${name}: may not be set (the executor controls it)`)
        } else if (typeof value !== 'string' || value.includes('\0')) {
          issues.push(`env.${name}: must be a string without NUL bytes, got ${describe(value)}`)
        } else {
          env[name] = value
        }
      }
    }
  }

  if (issues.length > 0) throw new BashConfigError(issues)
  return Object.freeze({
    cwd,
    shell,
    defaultTimeoutMs,
    maxTimeoutMs,
    backgroundTimeoutMs,
    killGraceMs,
    drainTimeoutMs,
    outputWindowBytes,
    spillCapBytes,
    tempDir,
    allowEnv,
    denyEnv,
    env: Object.freeze(env),
  })
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value)
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : typeof value
}

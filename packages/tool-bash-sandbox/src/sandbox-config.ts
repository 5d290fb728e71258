import { realpathSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import { BashConfigError, resolveLocalBashConfig, type LocalBashConfig, type ResolvedLocalBashConfig } from '@dsh/tool-bash'
import { isWithin, type SandboxPolicy } from './sandbox-profile.js'

/**
 * The configuration of {@link SandboxedBashExecutor}: every key of the local executor's `LocalBashConfig` (timeouts,
 * output window, spills, environment allow list, …) plus the sandbox's own. Validated on load; a bad value fails
 * the load with `BashConfigError` (`INVALID_CONFIG`) listing every problem. Nothing here can be set by a model.
 */
export interface SandboxedBashConfig extends LocalBashConfig {
  /** The bubblewrap binary: an absolute path, or a name looked up on `PATH` at load. Default: `bwrap`. */
  bwrap?: string | undefined
  /**
   * More directories the command may write, besides `cwd` (absolute, or relative to `cwd`; they must exist).
   * Default: none.
   */
  writableRoots?: readonly string[] | undefined
  /**
   * More paths hidden from commands (absolute, `~/`-relative, or relative to `cwd`): a directory shows empty, a
   * file empty. Added to {@link DEFAULT_HIDDEN_HOME_PATHS} (under the host user's home) unless
   * `hideDefaultSecrets` is false. Missing ones are skipped. Default: none.
   */
  hiddenPaths?: readonly string[] | undefined
  /** Hide {@link DEFAULT_HIDDEN_HOME_PATHS}. Default: true. */
  hideDefaultSecrets?: boolean | undefined
  /** Paths kept read-only inside the writable roots: absolute, or relative to each writable root. Default: none. */
  readOnlyPaths?: readonly string[] | undefined
  /**
   * Keep git metadata that runs code later out of the command's reach: `.git/hooks` and `.git/config` read-only,
   * and no new `.git` in a writable root (so `git init` there fails inside the sandbox). Default: true.
   */
  protectGit?: boolean | undefined
  /** Size of the private `/tmp` (a tmpfs, fresh for each command), in bytes: 1 MiB to 64 GiB. Default: 268435456 (256 MiB). */
  tmpSizeBytes?: number | undefined
  /**
   * Network access. Only `'off'` for now: the command has a loopback interface of its own and nothing else (no
   * TCP, UDP, DNS, or host abstract sockets). Default: `'off'`.
   */
  network?: 'off' | undefined
  /** Address-space limit of each process of a command (`RLIMIT_AS`), in bytes: 16 MiB to 1 TiB. Default: none. */
  memoryBytes?: number | undefined
  /**
   * Processes the sandbox user may run (`RLIMIT_NPROC`), an integer from 8 to 1048576. Not enforced for root
   * callers (the kernel exempts uid 0); the time limit still ends a fork bomb there. Default: none.
   */
  maxProcesses?: number | undefined
  /**
   * What loading does when the sandbox cannot start: `'fail'` (the load rejects with `SandboxUnavailableError`)
   * or `'run-unsandboxed'` (an explicit deployment choice: commands run like the local executor's, the policy in
   * the tool description says so, and a warning is logged). Default: `'fail'`.
   */
  onUnavailable?: 'fail' | 'run-unsandboxed' | undefined
}

/** The sandbox's part of the configuration after validation. */
export interface ResolvedSandboxConfig {
  /** The local executor's part, resolved. */
  readonly local: ResolvedLocalBashConfig
  /** The local executor's part as given (passed on to it). */
  readonly localInput: LocalBashConfig
  /** The bubblewrap binary as configured (resolved on `PATH` by the preflight). */
  readonly bwrap: string
  /** What the profile enforces. */
  readonly policy: SandboxPolicy
  /** `RLIMIT_AS` in bytes, or null. */
  readonly memoryBytes: number | null
  /** `RLIMIT_NPROC`, or null. */
  readonly maxProcesses: number | null
  /** `'fail'` or `'run-unsandboxed'`. */
  readonly onUnavailable: 'fail' | 'run-unsandboxed'
}

/**
 * Credentials under the host user's home that commands never see (relative to the home directory): SSH and GPG
 * keys, cloud and container credentials, package-manager tokens, shell and REPL histories.
 */
export const DEFAULT_HIDDEN_HOME_PATHS: readonly string[] = Object.freeze([
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.kube',
  '.docker',
  '.config/gh',
  '.config/hub',
  '.config/op',
  '.password-store',
  '.local/share/keyrings',
  '.terraform.d',
  '.vault-token',
  '.npmrc',
  '.yarnrc',
  '.netrc',
  '.git-credentials',
  '.pypirc',
  '.gem/credentials',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.pgpass',
  '.my.cnf',
  '.bash_history',
  '.zsh_history',
  '.python_history',
  '.node_repl_history',
])

/** The defaults of the sandbox's own keys. */
export const SANDBOX_DEFAULTS = Object.freeze({
  bwrap: 'bwrap',
  hideDefaultSecrets: true,
  protectGit: true,
  tmpSizeBytes: 268_435_456,
  network: 'off',
  onUnavailable: 'fail',
} as const)

const SANDBOX_KEYS = new Set([
  'bwrap',
  'writableRoots',
  'hiddenPaths',
  'hideDefaultSecrets',
  'readOnlyPaths',
  'protectGit',
  'tmpSizeBytes',
  'network',
  'memoryBytes',
  'maxProcesses',
  'onUnavailable',
])

function own(config: object, key: string): unknown {
  return Object.hasOwn(config, key) ? (config as Record<string, unknown>)[key] : undefined
}

function canonical(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

/**
 * Validates a {@link SandboxedBashConfig}: the local keys by the local executor's rules, the sandbox's here. Paths
 * are made absolute and canonical (symlinks resolved), so the profile mounts what a path really names.
 */
export function resolveSandboxedBashConfig(input: unknown = {}): ResolvedSandboxConfig {
  if (input === undefined || input === null) input = {}
  if (typeof input !== 'object' || Array.isArray(input)) throw new BashConfigError(['config: must be a plain object'])
  const config = input as Record<string, unknown>
  const localInput: Record<string, unknown> = {}
  for (const key of Object.keys(config)) if (!SANDBOX_KEYS.has(key)) localInput[key] = config[key]
  const issues: string[] = []
  let local: ResolvedLocalBashConfig
  try {
    local = resolveLocalBashConfig(localInput)
  } catch (error) {
    if (!BashConfigError.isInstance(error)) throw error
    // Go on with the defaults, so that one error lists the sandbox's problems too.
    issues.push(...error.issues)
    local = resolveLocalBashConfig({})
  }
  const cwd = canonical(local.cwd)
  const home = homedir()

  const text = (key: string, fallback: string): string => {
    const value = own(config, key)
    if (value === undefined) return fallback
    if (typeof value !== 'string' || value === '' || value.includes('\0')) {
      issues.push(`${key}: must be a non-empty string without NUL bytes`)
      return fallback
    }
    return value
  }
  const flag = (key: string, fallback: boolean): boolean => {
    const value = own(config, key)
    if (value === undefined) return fallback
    if (typeof value !== 'boolean') issues.push(`${key}: must be true or false`)
    return typeof value === 'boolean' ? value : fallback
  }
  const integer = (key: string, min: number, max: number): number | null => {
    const value = own(config, key)
    if (value === undefined) return null
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      issues.push(`${key}: must be an integer from ${min} to ${max}, got ${JSON.stringify(value) ?? String(value)}`)
      return null
    }
    return value
  }
  const paths = (key: string, base: (path: string) => string): string[] => {
    const value = own(config, key)
    if (value === undefined) return []
    if (!Array.isArray(value) || value.some((path) => typeof path !== 'string' || path === '' || path.includes('\0'))) {
      issues.push(`${key}: must be an array of non-empty paths`)
      return []
    }
    return (value as string[]).map(base)
  }
  const fromCwd = (path: string): string =>
    path.startsWith('~/') ? join(home, path.slice(2)) : isAbsolute(path) ? path : resolve(cwd, path)

  const writableRoots = [cwd]
  for (const root of paths('writableRoots', fromCwd)) {
    const real = canonical(root)
    if (real === '/') issues.push('writableRoots: / cannot be writable (that is no sandbox)')
    else if (!writableRoots.includes(real)) writableRoots.push(real)
  }
  if (cwd === '/') issues.push('cwd: / cannot be the writable working directory of a sandbox')

  const hideDefaults = flag('hideDefaultSecrets', SANDBOX_DEFAULTS.hideDefaultSecrets)
  const hidden = [
    ...(hideDefaults ? DEFAULT_HIDDEN_HOME_PATHS.map((path) => join(home, path)) : []),
    ...paths('hiddenPaths', fromCwd),
  ].map(canonical)
  for (const path of hidden) {
    for (const root of writableRoots) {
      if (isWithin(root, path)) issues.push(`hiddenPaths: ${path} holds the writable root ${root}, which would be hidden`)
    }
  }
  const readOnlyPaths = paths('readOnlyPaths', (path) => path)

  const network = own(config, 'network')
  if (network !== undefined && network !== 'off') {
    issues.push(`network: only 'off' is supported (an allow-list proxy is not available yet), got ${JSON.stringify(network)}`)
  }
  const onUnavailable = own(config, 'onUnavailable') ?? SANDBOX_DEFAULTS.onUnavailable
  if (onUnavailable !== 'fail' && onUnavailable !== 'run-unsandboxed') {
    issues.push(`onUnavailable: must be 'fail' or 'run-unsandboxed', got ${JSON.stringify(onUnavailable)}`)
  }

  const policy: SandboxPolicy = Object.freeze({
    writableRoots: Object.freeze(writableRoots),
    hiddenPaths: Object.freeze([...new Set(hidden)]),
    readOnlyPaths: Object.freeze(readOnlyPaths),
    protectGit: flag('protectGit', SANDBOX_DEFAULTS.protectGit),
    tmpSizeBytes: integer('tmpSizeBytes', 1_048_576, 68_719_476_736) ?? SANDBOX_DEFAULTS.tmpSizeBytes,
  })
  const resolved: ResolvedSandboxConfig = Object.freeze({
    local,
    localInput: localInput as LocalBashConfig,
    bwrap: text('bwrap', SANDBOX_DEFAULTS.bwrap),
    policy,
    memoryBytes: integer('memoryBytes', 16_777_216, 1_099_511_627_776),
    maxProcesses: integer('maxProcesses', 8, 1_048_576),
    onUnavailable: onUnavailable === 'run-unsandboxed' ? 'run-unsandboxed' : 'fail',
  })
  if (issues.length > 0) throw new BashConfigError(issues)
  return resolved
}

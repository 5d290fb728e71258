import { realpathSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import { BashConfigError, resolveLocalBashConfig, type LocalBashConfig, type ResolvedLocalBashConfig } from '@dsh/tool-bash'
import { parseNetworkAllowEntry, type NetworkAllowRule, type NetworkResolver } from './network-proxy.js'
import { isWithin, type SandboxPolicy } from './sandbox-profile.js'

/** Network access through the executor's allow-list proxy. */
export interface SandboxNetworkAllowList {
  /**
   * Hosts commands may reach, through an HTTP proxy the executor runs on the host (`HTTP_PROXY`/`HTTPS_PROXY` point
   * at it inside): `example.com`, `*.example.com`, with an optional `:port`, or IP literals (`[::1]:8080`).
   * Loopback, link-local (cloud metadata) and unspecified addresses are refused even for an allowed name unless
   * that address itself is listed. Every refusal is recorded in the result's `meta.executor.network.denials`.
   */
  readonly allow: readonly string[]
  /** How names are resolved (default: the system resolver). Tests map names to 127.0.0.1 with it. */
  readonly resolve?: NetworkResolver | undefined
}

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
   * Network access: `'off'` (the command has a loopback interface of its own and nothing else: no TCP, UDP, DNS,
   * or host abstract sockets), or an allow list reached through the executor's proxy (on the host; a helper run with
   * this process's Node binary bridges the command's `127.0.0.1:3128` to it, so no unix socket is involved).
   * Default: `'off'`.
   */
  network?: 'off' | SandboxNetworkAllowList | undefined
  /**
   * Let commands create unix sockets. By default the seccomp filter refuses `socket(AF_UNIX, …)` of every type and
   * `socketpair(AF_UNIX, SOCK_DGRAM)`, so no host unix socket can be reached wherever it lies (a read-only mount does
   * not stop `connect()`); connected socket pairs (pipes of node, python, libuv) still work. Set it true, as a
   * deployment decision, for commands that need their own sockets (a database or a language server listening in the
   * workdir). The cost: every host unix socket the sandbox can see becomes reachable again — only `/run`, `/var/run`,
   * `/tmp` and the hidden paths are out of sight, so a docker, ssh-agent, dbus or IDE socket anywhere else (under
   * `/var/lib`, `/srv`, the home directory, the workdir or its parents) can be connected to. Never a model parameter.
   * Default: false.
   */
  allowUnixSockets?: boolean | undefined
  /**
   * The memory of each command, in bytes: 16 MiB to 1 TiB. In a cgroup (see `resourceLimits`) it bounds the whole
   * command (every process, its page cache and its `/tmp` files, no swap): beyond it the kernel's OOM killer ends
   * the largest process and the result says so. With the rlimit fallback it is the address space of each process
   * (`RLIMIT_AS`; Node reserves a lot of it: give it GiBs). Default: none.
   */
  memoryBytes?: number | undefined
  /**
   * Processes (and threads) a command may have at once, an integer from 8 to 1048576. In a cgroup (`pids.max`) it
   * holds for every caller, root included; a fork past it fails with EAGAIN. With the rlimit fallback it is
   * `RLIMIT_NPROC` of the sandbox user, which the kernel does not enforce for uid 0. Default: none.
   */
  maxProcesses?: number | undefined
  /**
   * How `memoryBytes` and `maxProcesses` are enforced: `'auto'` (a cgroup of each command when this process may
   * create cgroups, v2 when the unified hierarchy has the controller, else v1; rlimits for what it cannot place),
   * `'cgroup'` (cgroups or the load fails with `SandboxUnavailableError`, reason `cgroups-unavailable`) or
   * `'rlimit'` (rlimits only, through `prlimit`). The mechanism in use is in `resourceLimits` of the executor, in
   * each result's `meta.executor.limits` and in the policy text. Default: `'auto'`.
   */
  resourceLimits?: 'auto' | 'cgroup' | 'rlimit' | undefined
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
  /** Whether commands may create unix sockets (see `allowUnixSockets`). */
  readonly allowUnixSockets: boolean
  /** The network allow list, or `null` when the network is off. */
  readonly network: { readonly rules: readonly NetworkAllowRule[]; readonly resolve: NetworkResolver | undefined } | null
  /** The memory limit of a command in bytes, or null. */
  readonly memoryBytes: number | null
  /** The process limit of a command, or null. */
  readonly maxProcesses: number | null
  /** How the limits are enforced: `'auto'`, `'cgroup'` or `'rlimit'`. */
  readonly resourceLimits: 'auto' | 'cgroup' | 'rlimit'
  /** `'fail'` or `'run-unsandboxed'`. */
  readonly onUnavailable: 'fail' | 'run-unsandboxed'
}

/**
 * Credentials under the host user's home that commands never see (relative to the home directory): SSH and GPG
 * keys, cloud and container credentials, package-manager tokens, shell and REPL histories.
 */
export const DEFAULT_HIDDEN_HOME_PATHS: readonly string[] = Object.freeze([
  // keys and password stores
  '.ssh',
  '.gnupg',
  '.password-store',
  '.local/share/keyrings',
  // cloud, cluster and container credentials
  '.aws',
  '.azure',
  '.config/gcloud',
  '.oci',
  '.config/doctl',
  '.config/hcloud',
  '.s3cfg',
  '.boto',
  '.config/rclone',
  '.kube',
  '.docker',
  '.config/containers/auth.json',
  '.terraform.d',
  '.terraformrc',
  '.vault-token',
  '.pulumi/credentials.json',
  '.fly',
  '.config/op',
  // forges and git
  '.config/gh',
  '.config/hub',
  '.config/glab-cli',
  '.git-credentials',
  '.config/git/credentials',
  '.netrc',
  // package managers and registries
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.config/pip/pip.conf',
  '.pip/pip.conf',
  '.pypirc',
  '.config/pypoetry/auth.toml',
  '.m2/settings.xml',
  '.m2/settings-security.xml',
  '.gradle/gradle.properties',
  '.ivy2/.credentials',
  '.sbt/credentials',
  '.composer/auth.json',
  '.config/composer/auth.json',
  '.nuget/NuGet/NuGet.Config',
  '.config/NuGet/NuGet.Config',
  '.bundle/config',
  '.gem/credentials',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.huggingface/token',
  '.cache/huggingface/token',
  // databases
  '.pgpass',
  '.my.cnf',
  // histories
  '.bash_history',
  '.zsh_history',
  '.python_history',
  '.node_repl_history',
  '.psql_history',
  '.mysql_history',
])

/** The defaults of the sandbox's own keys. */
export const SANDBOX_DEFAULTS = Object.freeze({
  bwrap: 'bwrap',
  hideDefaultSecrets: true,
  protectGit: true,
  tmpSizeBytes: 268_435_456,
  network: 'off',
  allowUnixSockets: false,
  resourceLimits: 'auto',
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
  'allowUnixSockets',
  'memoryBytes',
  'maxProcesses',
  'resourceLimits',
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

  const networkValue = own(config, 'network')
  let network: ResolvedSandboxConfig['network'] = null
  if (typeof networkValue === 'object' && networkValue !== null && !Array.isArray(networkValue)) {
    const allow = own(networkValue, 'allow')
    const resolveHost = own(networkValue, 'resolve')
    const rules: NetworkAllowRule[] = []
    if (!Array.isArray(allow) || allow.length === 0) issues.push('network.allow: must be a non-empty array of host names')
    else {
      for (const entry of allow) {
        try {
          if (typeof entry !== 'string') throw new TypeError(`${JSON.stringify(entry) ?? String(entry)}: not a string`)
          rules.push(parseNetworkAllowEntry(entry))
        } catch (error) {
          issues.push(`network.allow: ${(error as Error).message}`)
        }
      }
    }
    if (resolveHost !== undefined && typeof resolveHost !== 'function') issues.push('network.resolve: must be a function')
    network = Object.freeze({ rules: Object.freeze(rules), resolve: resolveHost as NetworkResolver | undefined })
  } else if (networkValue !== undefined && networkValue !== 'off') {
    issues.push(`network: must be 'off' or { allow: [...] }, got ${JSON.stringify(networkValue) ?? String(networkValue)}`)
  }
  const resourceLimits = own(config, 'resourceLimits') ?? SANDBOX_DEFAULTS.resourceLimits
  if (resourceLimits !== 'auto' && resourceLimits !== 'cgroup' && resourceLimits !== 'rlimit') {
    issues.push(`resourceLimits: must be 'auto', 'cgroup' or 'rlimit', got ${JSON.stringify(resourceLimits) ?? String(resourceLimits)}`)
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
    network,
    allowUnixSockets: flag('allowUnixSockets', SANDBOX_DEFAULTS.allowUnixSockets),
    memoryBytes: integer('memoryBytes', 16_777_216, 1_099_511_627_776),
    maxProcesses: integer('maxProcesses', 8, 1_048_576),
    resourceLimits: resourceLimits === 'cgroup' || resourceLimits === 'rlimit' ? resourceLimits : 'auto',
    onUnavailable: onUnavailable === 'run-unsandboxed' ? 'run-unsandboxed' : 'fail',
  })
  if (issues.length > 0) throw new BashConfigError(issues)
  return resolved
}

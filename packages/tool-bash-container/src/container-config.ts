import { statSync } from 'node:fs'
import { isAbsolute } from 'node:path'
import { BashConfigError, resolveLocalBashConfig, type LocalBashConfig } from '@dsh/tool-bash'
import type { ContainerEngineEndpoint } from './engine-client.js'

/** A directory of the host shared with the session container. */
export interface ContainerMount {
  /** The host path. */
  readonly source: string
  /** The path inside the container. Default: `source`. */
  readonly target?: string | undefined
  /** Default: true. */
  readonly readOnly?: boolean | undefined
}

/** The hosts the container's commands may reach, through an allow-list HTTP proxy on the host. */
export interface ContainerNetworkAllowList {
  /**
   * `example.com`, `*.example.com`, with an optional `:port`, or IP literals (`10.0.0.5:8080`, `[::1]:8080`), as
   * `@dsh/tool-bash-sandbox`'s allow list (its proxy does the checking): loopback, link-local (cloud metadata) and
   * unspecified addresses are refused even for an allowed name unless that address itself is listed, and every
   * refusal is recorded in the result's `meta.executor.network.denials`.
   */
  readonly allow: readonly string[]
  /** How names are resolved on the host (default: the system resolver). */
  readonly resolve?: ((host: string) => Promise<readonly string[]>) | undefined
}

/**
 * The configuration of {@link ContainerBashExecutor}: the local executor's settings for the commands (timeouts,
 * window, spill cap, environment; the agent in the container applies them), and the container's.
 */
export interface ContainerBashConfig
  extends Pick<
    LocalBashConfig,
    | 'cwd'
    | 'defaultTimeoutMs'
    | 'maxTimeoutMs'
    | 'backgroundTimeoutMs'
    | 'killGraceMs'
    | 'drainTimeoutMs'
    | 'outputWindowBytes'
    | 'spillCapBytes'
    | 'allowEnv'
    | 'denyEnv'
    | 'env'
  > {
  /** Where the engine's API is. Default: `DOCKER_HOST` when it is `unix://…`, else `/run/podman/podman.sock` if it exists, else `/var/run/docker.sock`. */
  engine?: ContainerEngineEndpoint | undefined
  /** The image (it must hold bash; `node` too unless `agentNode` is `'host'`). Required. */
  image?: string | undefined
  /**
   * Which node runs the agent: `'host'` mounts this process's node binary read-only into the container (a local
   * engine and a glibc image, such as Debian or Ubuntu), `'image'` uses the image's `node` (≥ 20), or an absolute path
   * inside the image. Default: `'host'` for a unix-socket engine, `'image'` for a TCP one.
   */
  agentNode?: 'host' | 'image' | string | undefined
  /**
   * With `agentNode: 'host'`: mount an execute-only copy of this process's node binary (made once per process in the
   * temporary directory, mode 0111) rather than the binary itself. The kernel does not let a process started from a
   * file it cannot read be inspected (it is not dumpable), so no command, whatever its user, can open the agent's
   * `/proc` entries: not its pipes (to forge or inject protocol messages), its environment or its memory; the
   * preflight checks it. Costs one copy of the node binary (about 100 MB, in the temporary directory) while sessions
   * are open, shared by them. Default: true with `agentNode: 'host'`; not available with the image's node.
   */
  protectAgent?: boolean | undefined
  /** Memory limit in bytes (swap is set equal: no swap). Default: 1 GiB. */
  memoryBytes?: number | undefined
  /** The most processes at once. Default: 512. */
  pidsLimit?: number | undefined
  /**
   * CPU time as a number of CPUs (a CFS quota: `0.5` is half of one CPU's time, `2` two CPUs' worth, spread over any
   * CPUs). Default: no limit (the commands share the host's CPUs with everything else).
   */
  cpus?: number | undefined
  /** `RLIMIT_NOFILE` (soft = hard). Default: 4096. */
  nofile?: number | undefined
  /** `RLIMIT_NPROC` (soft = hard; per user on the host, so keep it high and rely on `pidsLimit`). Default: 32768. */
  nproc?: number | undefined
  /** Size of the writable `/tmp` (a tmpfs, counted in the memory limit; spill files go there). Default: 256 MiB. */
  tmpfsBytes?: number | undefined
  /** More host directories to share (read-only by default). The working directory `cwd` is always shared read-write at its own path. */
  mounts?: readonly ContainerMount[] | undefined
  /** `uid:gid` the agent and commands run as. Default: the owner of `cwd`. */
  user?: string | undefined
  /** How long creating, starting and preflighting the container may take, in ms. Default: 30000. */
  startTimeoutMs?: number | undefined
  /**
   * The network: `'off'` (the container has only `lo`), or an allow list: the agent listens on `127.0.0.1:3128` in the
   * container, the proxy variables (`HTTP_PROXY`, `HTTPS_PROXY`, …) point there, and each connection is carried over the
   * agent's attach connection to an allow-list HTTP proxy on the host (`@dsh/tool-bash-sandbox`'s `NetworkProxy`, an
   * optional peer dependency that must then be installed). The container still has no network device. Default: `'off'`.
   */
  network?: 'off' | ContainerNetworkAllowList | undefined
  /** For a remote podman: the seccomp profile's path on the engine's machine (podman reads a path, Docker takes the JSON). */
  seccompProfilePath?: string | undefined
}

/** The configuration after validation. */
export interface ResolvedContainerBashConfig {
  readonly engine: ContainerEngineEndpoint
  readonly image: string
  readonly agentNode: string
  /** Whether the agent runs from an execute-only copy of the host's node (see {@link ContainerBashConfig.protectAgent}). */
  readonly protectAgent: boolean
  readonly memoryBytes: number
  readonly pidsLimit: number
  /** `null`: no CPU limit. */
  readonly cpus: number | null
  readonly nofile: number
  readonly nproc: number
  readonly tmpfsBytes: number
  readonly mounts: readonly Required<ContainerMount>[]
  readonly user: string
  readonly startTimeoutMs: number
  readonly seccompProfilePath: string | null
  /** `null`: no network. */
  readonly network: ContainerNetworkAllowList | null
  /** The local executor's settings as the agent will apply them (paths resolved on the host). */
  readonly local: LocalBashConfig & { readonly cwd: string; readonly killGraceMs: number; readonly drainTimeoutMs: number; readonly maxTimeoutMs: number; readonly outputWindowBytes: number; readonly defaultTimeoutMs: number; readonly backgroundTimeoutMs: number }
}

/** The defaults of {@link ContainerBashConfig}. */
export const CONTAINER_DEFAULTS = Object.freeze({
  memoryBytes: 1_073_741_824,
  pidsLimit: 512,
  nofile: 4096,
  nproc: 32_768,
  tmpfsBytes: 268_435_456,
  startTimeoutMs: 30_000,
})

const LOCAL_KEYS = ['cwd', 'defaultTimeoutMs', 'maxTimeoutMs', 'backgroundTimeoutMs', 'killGraceMs', 'drainTimeoutMs', 'outputWindowBytes', 'spillCapBytes', 'allowEnv', 'denyEnv', 'env'] as const
const OWN_KEYS = ['engine', 'image', 'agentNode', 'protectAgent', 'memoryBytes', 'pidsLimit', 'cpus', 'nofile', 'nproc', 'tmpfsBytes', 'mounts', 'user', 'startTimeoutMs', 'seccompProfilePath', 'network'] as const

const own = (config: object, key: string): unknown => (Object.hasOwn(config, key) ? (config as Record<string, unknown>)[key] : undefined)

function defaultEngine(): ContainerEngineEndpoint {
  const host = process.env['DOCKER_HOST']
  if (host?.startsWith('unix://') === true) return { socketPath: host.slice('unix://'.length) }
  for (const socketPath of ['/run/podman/podman.sock', '/var/run/docker.sock']) {
    try {
      if (statSync(socketPath).isSocket()) return { socketPath }
    } catch {
      // not there
    }
  }
  return { socketPath: '/var/run/docker.sock' }
}

/** Validates a {@link ContainerBashConfig}; every problem at once in a `BashConfigError` (`INVALID_CONFIG`). */
export function resolveContainerBashConfig(config: ContainerBashConfig = {}): ResolvedContainerBashConfig {
  const issues: string[] = []
  if (typeof config !== 'object' || config === null) throw new BashConfigError(['config: must be an object'])
  for (const key of Object.keys(config)) {
    if (!(LOCAL_KEYS as readonly string[]).includes(key) && !(OWN_KEYS as readonly string[]).includes(key)) issues.push(`${key}: unknown option`)
  }
  const localInput: Record<string, unknown> = {}
  for (const key of LOCAL_KEYS) if (own(config, key) !== undefined) localInput[key] = own(config, key)
  let local: ReturnType<typeof resolveLocalBashConfig> | undefined
  try {
    local = resolveLocalBashConfig(localInput as LocalBashConfig)
  } catch (error) {
    if (!BashConfigError.isInstance(error)) throw error
    issues.push(...(error as BashConfigError).issues)
  }
  const image = own(config, 'image')
  if (typeof image !== 'string' || image.trim() === '') issues.push('image: required, the name of an image holding bash')
  const integer = (key: string, fallback: number, minimum: number): number => {
    const value = own(config, key) ?? fallback
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum) {
      issues.push(`${key}: must be an integer ≥ ${minimum}, got ${String(value)}`)
      return fallback
    }
    return value
  }
  const memoryBytes = integer('memoryBytes', CONTAINER_DEFAULTS.memoryBytes, 16_777_216)
  const pidsLimit = integer('pidsLimit', CONTAINER_DEFAULTS.pidsLimit, 16)
  const cpusInput = own(config, 'cpus')
  if (cpusInput !== undefined && (typeof cpusInput !== 'number' || !Number.isFinite(cpusInput) || cpusInput < 0.01 || cpusInput > 1024)) {
    issues.push(`cpus: must be a number of CPUs from 0.01 to 1024, got ${String(cpusInput)}`)
  }
  const nofile = integer('nofile', CONTAINER_DEFAULTS.nofile, 64)
  const nproc = integer('nproc', CONTAINER_DEFAULTS.nproc, 16)
  const tmpfsBytes = integer('tmpfsBytes', CONTAINER_DEFAULTS.tmpfsBytes, 1_048_576)
  const startTimeoutMs = integer('startTimeoutMs', CONTAINER_DEFAULTS.startTimeoutMs, 100)
  const engine = (own(config, 'engine') as ContainerEngineEndpoint | undefined) ?? defaultEngine()
  if (typeof engine !== 'object' || engine === null || (!('socketPath' in engine) && !('url' in engine))) {
    issues.push('engine: must be { socketPath } or { url, ca?, cert?, key? }')
  }
  const remote = typeof engine === 'object' && engine !== null && 'url' in engine
  const agentInput = own(config, 'agentNode') ?? (remote ? 'image' : 'host')
  if (typeof agentInput !== 'string' || (agentInput !== 'host' && agentInput !== 'image' && !isAbsolute(agentInput))) {
    issues.push(`agentNode: must be 'host', 'image' or an absolute path in the image, got ${String(agentInput)}`)
  }
  if (agentInput === 'host' && remote) issues.push("agentNode: 'host' needs a local engine (a unix socket); use an image with node and 'image'")
  const protectInput = own(config, 'protectAgent')
  if (protectInput !== undefined && typeof protectInput !== 'boolean') issues.push(`protectAgent: must be a boolean, got ${String(protectInput)}`)
  if (protectInput === true && agentInput !== 'host') issues.push("protectAgent: needs agentNode 'host' (the image's node cannot be made execute-only)")
  const mounts: Required<ContainerMount>[] = []
  const mountsInput = own(config, 'mounts') ?? []
  if (!Array.isArray(mountsInput)) issues.push('mounts: must be an array')
  else {
    for (const [index, mount] of (mountsInput as ContainerMount[]).entries()) {
      if (typeof mount?.source !== 'string' || !isAbsolute(mount.source)) {
        issues.push(`mounts[${index}].source: must be an absolute path`)
        continue
      }
      const target = mount.target ?? mount.source
      if (typeof target !== 'string' || !isAbsolute(target)) issues.push(`mounts[${index}].target: must be an absolute path`)
      mounts.push({ source: mount.source, target, readOnly: mount.readOnly !== false })
    }
  }
  let user = own(config, 'user')
  if (user === undefined && local !== undefined) {
    const owner = statSync(local.cwd)
    user = `${owner.uid}:${owner.gid}`
  }
  if (user !== undefined && (typeof user !== 'string' || !/^\d+(:\d+)?$/.test(user))) issues.push(`user: must be "uid:gid" (numbers), got ${String(user)}`)
  const seccompProfilePath = own(config, 'seccompProfilePath')
  if (seccompProfilePath !== undefined && (typeof seccompProfilePath !== 'string' || !isAbsolute(seccompProfilePath))) {
    issues.push('seccompProfilePath: must be an absolute path')
  }
  const networkInput = own(config, 'network') ?? 'off'
  let network: ContainerNetworkAllowList | null = null
  if (networkInput !== 'off') {
    const allow = typeof networkInput === 'object' && networkInput !== null ? own(networkInput, 'allow') : undefined
    const resolve = typeof networkInput === 'object' && networkInput !== null ? own(networkInput, 'resolve') : undefined
    if (!Array.isArray(allow) || allow.length === 0 || !allow.every((entry) => typeof entry === 'string')) {
      issues.push("network: must be 'off' or { allow: [host, …] } with at least one host name (strings)")
    } else if (resolve !== undefined && typeof resolve !== 'function') {
      issues.push('network.resolve: must be a function (host) => Promise<addresses>')
    } else {
      network = Object.freeze({ allow: Object.freeze([...(allow as string[])]), ...(resolve === undefined ? {} : { resolve: resolve as ContainerNetworkAllowList['resolve'] }) })
    }
  }
  if (issues.length > 0 || local === undefined) throw new BashConfigError(issues)
  return Object.freeze({
    engine,
    image: image as string,
    agentNode: agentInput === 'host' ? '/opt/dsh-agent/node' : agentInput === 'image' ? 'node' : (agentInput as string),
    protectAgent: agentInput === 'host' && protectInput !== false,
    memoryBytes,
    pidsLimit,
    cpus: typeof cpusInput === 'number' ? cpusInput : null,
    nofile,
    nproc,
    tmpfsBytes,
    mounts: Object.freeze(mounts),
    user: (user as string | undefined) ?? '0:0',
    startTimeoutMs,
    seccompProfilePath: (seccompProfilePath as string | undefined) ?? null,
    network,
    local: Object.freeze({
      ...(localInput as LocalBashConfig),
      cwd: local.cwd,
      killGraceMs: local.killGraceMs,
      drainTimeoutMs: local.drainTimeoutMs,
      maxTimeoutMs: local.maxTimeoutMs,
      defaultTimeoutMs: local.defaultTimeoutMs,
      backgroundTimeoutMs: local.backgroundTimeoutMs,
      outputWindowBytes: local.outputWindowBytes,
    }),
  })
}

/** True when this config mounts the host's node binary into the container. */
export const mountsHostNode = (config: ResolvedContainerBashConfig): boolean => config.agentNode === '/opt/dsh-agent/node'

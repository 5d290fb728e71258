import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { locateCgroups, type CgroupControllerName, type CgroupLocation, type CgroupVersion } from './cgroup-layout.js'

// Per-command cgroups on the host: one directory per hierarchy for the executor (made at the preflight), one child of
// it per command (made before the command starts, joined by the launch wrapper before it execs bwrap, removed when
// the command has ended). Everything here runs as the host user; a cgroup file system it may not write means the
// rlimit fallback.

/** The prefix of the executor's cgroup directories (with the host's pid, so a later host can sweep stale ones). */
export const CGROUP_PREFIX = 'dsh-bash-sandbox-'

/** What one command's limits are: a total memory in bytes and a process count, each or both. */
export interface CgroupLimits {
  readonly memoryBytes: number | null
  readonly maxProcesses: number | null
}

/** The text of `/proc/self/mountinfo` and `/proc/self/cgroup`: where this process's cgroups are. */
export interface CgroupFiles {
  readonly mountinfo: string
  readonly cgroup: string
}

/** What the kernel recorded about one command in its cgroups. */
export interface CgroupReport {
  /** Processes the memory limit's OOM killer killed (0 without a memory limit). */
  readonly oomKills: number
  /** Forks (and clones) the process limit refused (0 without a process limit). */
  readonly refusedForks: number
}

/** One command's cgroups: the `cgroup.procs` files the wrapper writes its pid to, the kernel's facts, removal. */
export interface CommandCgroup {
  readonly procsFiles: readonly string[]
  report(): CgroupReport
  remove(): Promise<void>
}

interface Hierarchy {
  readonly version: CgroupVersion
  readonly directory: string
  readonly controllers: readonly CgroupControllerName[]
}

const REMOVE_ATTEMPTS = 50
const REMOVE_PAUSE_MS = 20
const sleepCell = new Int32Array(new SharedArrayBuffer(4))
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return ''
  }
}

/** `key value` lines (memory.events, pids.events, memory.oom_control): the value of `key`, or 0. */
function counter(path: string, key: string): number {
  const match = new RegExp(`^${key} (\\d+)$`, 'm').exec(readText(path))
  return match === null ? 0 : Number(match[1])
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** SIGKILL to everything still in a command's cgroup (v2: `cgroup.kill`, which also catches forks in flight). */
function killMembers(directory: string, version: CgroupVersion): void {
  if (version === 'v2' && existsSync(join(directory, 'cgroup.kill'))) {
    try {
      writeFileSync(join(directory, 'cgroup.kill'), '1')
      return
    } catch {
      // fall through to signalling each member
    }
  }
  for (const line of readText(join(directory, 'cgroup.procs')).split('\n')) {
    const pid = Number(line)
    if (!Number.isSafeInteger(pid) || pid <= 0) continue
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // gone
    }
  }
}

/** rmdir that says whether the directory is gone (a cgroup with members, or zombies being reaped, is EBUSY). */
function tryRemove(directory: string): boolean {
  try {
    rmdirSync(directory)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT'
  }
}

/** Removes a command cgroup, waiting (without blocking the event loop) while its last members are reaped. */
async function removeCommandDirectory(directory: string, version: CgroupVersion): Promise<boolean> {
  for (let attempt = 0; attempt < REMOVE_ATTEMPTS; attempt += 1) {
    killMembers(directory, version)
    if (tryRemove(directory)) return true
    await pause(REMOVE_PAUSE_MS)
  }
  return false
}

/** The same, synchronously (disposal and host exit): blocks for at most about a second. */
function removeCommandDirectorySync(directory: string, version: CgroupVersion): boolean {
  for (let attempt = 0; attempt < REMOVE_ATTEMPTS; attempt += 1) {
    killMembers(directory, version)
    if (tryRemove(directory)) return true
    Atomics.wait(sleepCell, 0, 0, REMOVE_PAUSE_MS)
  }
  return false
}

/** Removes the executor cgroups a host that died without cleaning up left under `parent` (empty ones only). */
function sweepStale(parent: string, version: CgroupVersion): void {
  let entries: string[]
  try {
    entries = readdirSync(parent)
  } catch {
    return
  }
  for (const entry of entries) {
    const match = new RegExp(`^${CGROUP_PREFIX}(\\d+)-[0-9a-f]+$`).exec(entry)
    if (match === null || isAlive(Number(match[1]))) continue
    const directory = join(parent, entry)
    for (const child of readdirSafe(directory)) removeCommandDirectorySync(join(directory, child), version)
    tryRemove(directory)
  }
}

/**
 * The executor's cgroups. {@link CommandCgroups.open} makes one directory per hierarchy under the host process's
 * own cgroup (so the host's own limits still bound the commands) for the controllers it can use, and says which
 * limits it could not place (those fall back to rlimits).
 */
export class CommandCgroups {
  private readonly hierarchies: readonly Hierarchy[]
  private readonly limits: CgroupLimits
  private readonly live = new Set<string>()
  private serial = 0
  private disposed = false

  private constructor(hierarchies: readonly Hierarchy[], limits: CgroupLimits) {
    this.hierarchies = hierarchies
    this.limits = limits
  }

  /**
   * Prepares the cgroups for `limits`. Returns the executor's cgroups (null when no limit could be placed) and, by
   * controller, why one could not be used (not mounted, not writable by this user, v2 without the controller
   * delegated).
   */
  static open(
    limits: CgroupLimits,
    read: CgroupFiles = { mountinfo: readText('/proc/self/mountinfo'), cgroup: readText('/proc/self/cgroup') },
  ): { cgroups: CommandCgroups | null; versions: Partial<Record<CgroupControllerName, CgroupVersion>>; problems: Partial<Record<CgroupControllerName, string>> } {
    const wanted: CgroupControllerName[] = []
    if (limits.memoryBytes !== null) wanted.push('memory')
    if (limits.maxProcesses !== null) wanted.push('pids')
    const problems: Partial<Record<CgroupControllerName, string>> = {}
    const versions: Partial<Record<CgroupControllerName, CgroupVersion>> = {}
    if (wanted.length === 0) return { cgroups: null, versions, problems }
    const located = locateCgroups({
      ...read,
      controllersOf: (directory) => readText(join(directory, 'cgroup.controllers')).trim().split(/\s+/).filter(Boolean),
    })
    const byDirectory = new Map<string, { location: CgroupLocation; controllers: CgroupControllerName[] }>()
    for (const name of wanted) {
      const location = located[name]
      if (location === undefined) {
        problems[name] = `no cgroup hierarchy with the ${name} controller is mounted`
        continue
      }
      const entry = byDirectory.get(location.directory) ?? { location, controllers: [] }
      entry.controllers.push(name)
      byDirectory.set(location.directory, entry)
    }
    const hierarchies: Hierarchy[] = []
    const suffix = `${process.pid}-${randomBytes(4).toString('hex')}`
    for (const { location, controllers } of byDirectory.values()) {
      sweepStale(location.directory, location.version)
      const directory = join(location.directory, `${CGROUP_PREFIX}${suffix}`)
      try {
        mkdirSync(directory)
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? String(error)
        for (const name of controllers) problems[name] = `cannot create a cgroup in ${location.directory} (${code})`
        continue
      }
      if (location.version === 'v2') {
        try {
          writeFileSync(join(directory, 'cgroup.subtree_control'), controllers.map((name) => `+${name}`).join(' '))
        } catch (error) {
          tryRemove(directory)
          const code = (error as NodeJS.ErrnoException).code ?? String(error)
          for (const name of controllers) problems[name] = `the ${name} controller is not delegated to ${location.directory} (${code})`
          continue
        }
      }
      for (const name of controllers) versions[name] = location.version
      hierarchies.push({ version: location.version, directory, controllers })
    }
    return { cgroups: hierarchies.length === 0 ? null : new CommandCgroups(hierarchies, limits), versions, problems }
  }

  /** Makes one command's cgroups with its limits set. Throws (and leaves nothing) when the kernel refuses. */
  create(): CommandCgroup {
    if (this.disposed) throw new Error('the executor cgroups have been removed')
    this.serial += 1
    const made: Array<{ directory: string; version: CgroupVersion; controllers: readonly CgroupControllerName[] }> = []
    try {
      for (const hierarchy of this.hierarchies) {
        const directory = join(hierarchy.directory, `command-${this.serial}`)
        mkdirSync(directory)
        made.push({ directory, version: hierarchy.version, controllers: hierarchy.controllers })
        this.live.add(`${hierarchy.version}:${directory}`)
        this.setLimits(directory, hierarchy)
      }
    } catch (error) {
      for (const { directory, version } of made) {
        removeCommandDirectorySync(directory, version)
        this.live.delete(`${version}:${directory}`)
      }
      throw new Error(`cannot set up the command's cgroup: ${(error as Error).message}`, { cause: error })
    }
    let removed = false
    return {
      procsFiles: made.map(({ directory }) => join(directory, 'cgroup.procs')),
      report: () => {
        let oomKills = 0
        let refusedForks = 0
        for (const { directory, version, controllers } of made) {
          if (controllers.includes('memory')) {
            oomKills += version === 'v2' ? counter(join(directory, 'memory.events'), 'oom_kill') : counter(join(directory, 'memory.oom_control'), 'oom_kill')
          }
          if (controllers.includes('pids')) refusedForks += counter(join(directory, 'pids.events'), 'max')
        }
        return { oomKills, refusedForks }
      },
      remove: async () => {
        if (removed) return
        removed = true
        for (const { directory, version } of made) {
          const gone = await removeCommandDirectory(directory, version)
          // One still busy stays listed: disposal (or host exit) tries again.
          if (gone) this.live.delete(`${version}:${directory}`)
        }
      },
    }
  }

  private setLimits(directory: string, hierarchy: Hierarchy): void {
    const { memoryBytes, maxProcesses } = this.limits
    const write = (file: string, value: number | string): void => writeFileSync(join(directory, file), String(value))
    const optional = (file: string, value: number | string): void => {
      if (existsSync(join(directory, file))) write(file, value)
    }
    if (hierarchy.controllers.includes('memory') && memoryBytes !== null) {
      if (hierarchy.version === 'v2') {
        write('memory.max', memoryBytes)
        optional('memory.swap.max', 0)
      } else {
        write('memory.limit_in_bytes', memoryBytes)
        // With swap accounting, memory+swap gets the same bound (no swapping past the limit).
        optional('memory.memsw.limit_in_bytes', memoryBytes)
      }
    }
    if (hierarchy.controllers.includes('pids') && maxProcesses !== null) write('pids.max', maxProcesses)
  }

  /**
   * Kills whatever is still in a command cgroup and removes them all, then the executor's own directories.
   * Synchronous (it runs on host exit too); waits at most about a second per busy cgroup.
   */
  dispose(): void {
    if (this.disposed) return
    this.disposed = true
    for (const entry of this.live) {
      const version = entry.slice(0, 2) as CgroupVersion
      removeCommandDirectorySync(entry.slice(3), version)
    }
    this.live.clear()
    for (const hierarchy of this.hierarchies) {
      for (const child of readdirSafe(hierarchy.directory)) removeCommandDirectorySync(join(hierarchy.directory, child), hierarchy.version)
      tryRemove(hierarchy.directory)
    }
  }

  /** The executor's cgroup directories (one per hierarchy in use). */
  get directories(): readonly string[] {
    return this.hierarchies.map((hierarchy) => hierarchy.directory)
  }
}

function readdirSafe(directory: string): string[] {
  try {
    return readdirSync(directory, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
  } catch {
    return []
  }
}

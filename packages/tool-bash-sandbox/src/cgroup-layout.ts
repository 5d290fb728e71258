import { posix } from 'node:path'

/** The cgroup controllers the sandbox limits commands with. */
export type CgroupControllerName = 'memory' | 'pids'

/** A cgroup hierarchy: the unified one (v2) or a legacy one (v1) holding the controller. */
export type CgroupVersion = 'v1' | 'v2'

/** Where this process's own cgroup of one controller is, as a directory of the host's cgroup file system. */
export interface CgroupLocation {
  readonly version: CgroupVersion
  /** The directory of this process's cgroup (the parent of the executor's cgroups). */
  readonly directory: string
}

/** What {@link locateCgroups} reads: the text of `/proc/self/mountinfo` and `/proc/self/cgroup`. */
export interface CgroupLayoutInput {
  readonly mountinfo: string
  readonly cgroup: string
  /**
   * The controllers a v2 cgroup directory offers (its `cgroup.controllers`, split), or `[]` when it cannot be read.
   * Injected so that the locator stays pure.
   */
  readonly controllersOf: (directory: string) => readonly string[]
}

/** `\040` and the other octal escapes of mountinfo fields. */
function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)))
}

interface CgroupMount {
  readonly version: CgroupVersion
  readonly root: string
  readonly mountPoint: string
  readonly options: readonly string[]
}

function cgroupMounts(mountinfo: string): CgroupMount[] {
  const mounts: CgroupMount[] = []
  for (const line of mountinfo.split('\n')) {
    const fields = line.split(' ')
    const separator = fields.indexOf('-')
    if (separator < 6) continue
    const type = fields[separator + 1]
    if (type !== 'cgroup' && type !== 'cgroup2') continue
    mounts.push({
      version: type === 'cgroup2' ? 'v2' : 'v1',
      root: unescapeMountField(fields[3] ?? '/'),
      mountPoint: unescapeMountField(fields[4] ?? ''),
      options: (fields[separator + 3] ?? '').split(','),
    })
  }
  return mounts
}

/** The host directory of cgroup `path` in a hierarchy mounted at `mount` (undefined when the mount cannot see it). */
function directoryIn(mount: CgroupMount, path: string): string | undefined {
  const rest = posix.relative(mount.root, path)
  if (rest.startsWith('..') || posix.isAbsolute(rest)) return undefined
  return rest === '' ? mount.mountPoint : posix.join(mount.mountPoint, rest)
}

/**
 * Finds this process's own cgroup for each controller the sandbox uses, preferring the unified hierarchy (v2) when
 * it offers the controller and falling back to a legacy (v1) hierarchy that holds it. A controller found nowhere is
 * absent from the result. Pure: the caller reads the files.
 */
export function locateCgroups(input: CgroupLayoutInput): Partial<Record<CgroupControllerName, CgroupLocation>> {
  const mounts = cgroupMounts(input.mountinfo)
  const paths = new Map<string, string>()
  let unifiedPath: string | undefined
  for (const line of input.cgroup.split('\n')) {
    const match = /^(\d+):([^:]*):(.*)$/.exec(line)
    if (match === null) continue
    const [, id, controllers, path] = match as unknown as [string, string, string, string]
    if (id === '0' && controllers === '') unifiedPath = path
    else for (const name of controllers.split(',')) paths.set(name, path)
  }
  const found: Partial<Record<CgroupControllerName, CgroupLocation>> = {}
  const unifiedMount = mounts.find((mount) => mount.version === 'v2')
  const unified = unifiedMount !== undefined && unifiedPath !== undefined ? directoryIn(unifiedMount, unifiedPath) : undefined
  const offered = unified === undefined ? [] : input.controllersOf(unified)
  for (const name of ['memory', 'pids'] as const) {
    if (unified !== undefined && offered.includes(name)) {
      found[name] = { version: 'v2', directory: unified }
      continue
    }
    const path = paths.get(name)
    const mount = mounts.find((candidate) => candidate.version === 'v1' && candidate.options.includes(name))
    const directory = mount === undefined || path === undefined ? undefined : directoryIn(mount, path)
    if (directory !== undefined) found[name] = { version: 'v1', directory }
  }
  return found
}

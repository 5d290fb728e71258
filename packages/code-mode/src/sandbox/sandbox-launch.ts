import { accessSync, constants, lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs'
import { delimiter, isAbsolute, join } from 'node:path'

// What the host needs to launch one sandboxed Node process: finding binaries, the mounts of the minimal root, the
// descriptors a child would inherit, and the sandbox's processes as /proc shows them.

/** The first executable file named `program` (a path, or a name looked up on PATH), or undefined. */
export function findExecutable(program: string): string | undefined {
  const candidates = isAbsolute(program)
    ? [program]
    : (process.env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin').split(delimiter).filter(Boolean).map((directory) => join(directory, program))
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK)
      if (statSync(candidate).isFile()) return realpathSync(candidate)
    } catch {
      // not here
    }
  }
  return undefined
}

/** The top-level directories a dynamically linked program may load from (binaries and shared libraries). */
const SYSTEM_ROOTS = ['/usr', '/lib', '/lib32', '/lib64', '/libx32', '/bin']

/**
 * The bubblewrap operations of the read-only root: the system directories as they are on the host (a symlink such as
 * merged-usr's `/lib -> usr/lib` stays a symlink), the loader's cache, and `node` itself when it lies elsewhere (a
 * version manager's directory: only that file is bound, never the directory around it).
 */
export function systemMounts(node: string): string[] {
  const args: string[] = []
  const bound: string[] = []
  for (const root of SYSTEM_ROOTS) {
    let kind: 'directory' | 'symlink' | undefined
    try {
      const stat = lstatSync(root)
      kind = stat.isSymbolicLink() ? 'symlink' : stat.isDirectory() ? 'directory' : undefined
    } catch {
      continue
    }
    if (kind === 'symlink') args.push('--symlink', readlinkSync(root), root)
    else if (kind === 'directory') {
      args.push('--ro-bind', root, root)
      bound.push(root)
    }
  }
  args.push('--ro-bind-try', '/etc/ld.so.cache', '/etc/ld.so.cache')
  const real = realpathSync(node)
  if (!bound.some((root) => real.startsWith(`${root}/`))) args.push('--ro-bind', real, real)
  return args
}

/** One process as `/proc/<pid>/stat` shows it: its parent, the CPU time it used (clock ticks), its address space (bytes). */
interface ProcessStat {
  readonly parent: number
  readonly ticks: number
  readonly virtualBytes: number
}

export function readStat(pid: number): ProcessStat | undefined {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1')
  } catch {
    return undefined
  }
  // The command name (field 2) may hold spaces and parentheses: the fields after the last ')' are fixed.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  const parent = Number(fields[1])
  const ticks = Number(fields[11]) + Number(fields[12])
  const virtualBytes = Number(fields[20])
  return Number.isFinite(parent) && Number.isFinite(ticks) ? { parent, ticks, virtualBytes: Number.isFinite(virtualBytes) ? virtualBytes : 0 } : undefined
}

/** USER_HZ: the unit of `/proc/<pid>/stat`'s times, 100 on every Linux architecture Node runs on. */
export const CLOCK_TICKS_PER_SECOND = 100

/** The host pids of every live descendant of `root` (the sandbox's init and the processes in it). */
export function descendants(root: number): number[] {
  const parents = new Map<number, number>()
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return []
  }
  for (const entry of entries) {
    const pid = Number(entry)
    // Pids grow (until they wrap): a descendant started after root almost always has a higher one; the rest are read too.
    if (!Number.isInteger(pid) || pid === root) continue
    const stat = readStat(pid)
    if (stat !== undefined) parents.set(pid, stat.parent)
  }
  const found: number[] = []
  const family = new Set([root])
  let grew = true
  while (grew) {
    grew = false
    for (const [pid, parent] of parents) {
      if (family.has(parent) && !family.has(pid)) {
        family.add(pid)
        found.push(pid)
        grew = true
      }
    }
  }
  return found
}

import { accessSync, constants, existsSync, lstatSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs'
import { delimiter, dirname, isAbsolute, join } from 'node:path'
import type { BashResult } from '@dsh/tool-bash'
import type { ProfileFileSystem, ProfilePathKind } from './sandbox-profile.js'
import type { SandboxUnavailableCause } from './sandbox-unavailable-error.js'

// What the sandboxed executor needs from the host, apart from its state: finding binaries, the real file system as
// the profile builder sees it, reading bubblewrap's status and messages.

/** The real file system, as the profile builder sees it. */
export const realFileSystem: ProfileFileSystem = {
  kind(path): ProfilePathKind {
    let stat: Stats | undefined
    try {
      // Without an exception for a missing path (most of the default hidden paths are): several times faster.
      stat = lstatSync(path, { throwIfNoEntry: false })
    } catch {
      return 'missing'
    }
    if (stat === undefined) return 'missing'
    return stat.isDirectory() ? 'directory' : stat.isFile() ? 'file' : stat.isSymbolicLink() ? 'symlink' : 'other'
  },
  realpath(path) {
    try {
      return realpathSync.native(path)
    } catch {
      return undefined
    }
  },
  canCreate(path) {
    let parent = dirname(path)
    while (parent !== dirname(parent) && !existsSync(parent)) parent = dirname(parent)
    try {
      accessSync(parent, constants.W_OK)
      return true
    } catch {
      return false
    }
  },
}

/** The setup errors bubblewrap prints, with what they mean and the fix. */
export const KNOWN_FAILURES: ReadonlyArray<{ pattern: RegExp; reason: SandboxUnavailableCause; problem: string; fix: string }> = [
  {
    pattern: /setting up uid map: Permission denied|uid map/i,
    reason: 'userns-restricted',
    problem: 'the kernel refuses this user a user namespace (AppArmor restricts unprivileged user namespaces)',
    fix: 'allow them for bwrap: install an AppArmor profile for /usr/bin/bwrap, or set kernel.apparmor_restrict_unprivileged_userns=0',
  },
  {
    pattern: /Creating new namespace failed|No permissions to creating new namespace|unshare failed/i,
    reason: 'namespaces-unavailable',
    problem: 'new namespaces are refused (a container seccomp profile, or user.max_user_namespaces is 0)',
    fix: 'run on a host or VM that allows user namespaces, or give the container --security-opt seccomp=unconfined and a user.max_user_namespaces above 0',
  },
  {
    pattern: /RTM_NEWADDR|loopback/i,
    reason: 'network-namespace-restricted',
    problem: 'a network namespace cannot be configured here (a nested container)',
    fix: 'run the agent outside the nested container, or in one that allows network namespaces',
  },
  {
    pattern: /Failed to make \/ slave|Can't mount|mount.*Permission denied|Operation not permitted/i,
    reason: 'mount-denied',
    problem: 'bubblewrap may not mount here (a container without CAP_SYS_ADMIN, or a restricted /proc)',
    fix: 'run on a host or VM, or in a container that allows mounts in user namespaces',
  },
]

export function locate(program: string): string | undefined {
  const candidates = isAbsolute(program)
    ? [program]
    : (process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(delimiter).filter(Boolean).map((dir) => join(dir, program))
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK)
      if (statSync(candidate).isFile()) return candidate
    } catch {
      // not here
    }
  }
  return undefined
}

export function readStatus(path: string): { exitCode: number | undefined } {
  let text = ''
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return { exitCode: undefined }
  }
  let exitCode: number | undefined
  for (const line of text.split('\n')) {
    try {
      const record = JSON.parse(line) as Record<string, unknown>
      if (typeof record['exit-code'] === 'number') exitCode = record['exit-code']
    } catch {
      // not a record (a partial line)
    }
  }
  return { exitCode }
}

export function bwrapLines(result: BashResult): string {
  const text = `${result.stderr.head}${result.stderr.tail}`
  const lines = text.split('\n').filter((line) => line.startsWith('bwrap:'))
  return (lines.length > 0 ? lines : text.split('\n').filter(Boolean).slice(0, 3)).join('; ').slice(0, 1_000)
}
